"""The model graph: a networkx.MultiDiGraph of op nodes (and, after partial inference starts,
data nodes between them).

Two forms, chosen once per graph and switched by ``to_data_form()``:

* op form (load, extract, front): edges go op -> op and carry ``out`` (producer port) and
  ``in`` (consumer port);
* data form (partial inference and later): op -(out)-> data -(in)-> op; the data node holds the
  tensor's ``shape``, ``value`` and ``dtype``.

All edge surgery goes through the four primitives ``producer``, ``consumers``, ``link`` and
``unlink_input``; they are the only code that knows which form the graph is in. ``Port`` and
``Connection`` (mo/graph/port.py) are built on them.
"""
from __future__ import annotations

import heapq
from collections import defaultdict
from typing import Iterable, Iterator

import networkx as nx

from mo.errors import GraphError
from mo.graph.node import Node

_EMPTY: dict = {}


class Graph(nx.MultiDiGraph):
    """Model graph with an index of op nodes by ``op`` type and form-aware edge primitives."""

    def __init__(self, incoming_graph_data=None, context=None, **attr):
        self._by_op: dict[str, set[str]] = defaultdict(set)
        # ids of op nodes that were given ``bodies`` (a superset: the attribute may be emptied)
        self._with_bodies: set[str] = set()
        self._names: dict[str, int] = {}
        self._seq = 0
        # (op, node id) each time a node enters the op index, in order: what a pass created
        self._indexed: list[tuple[str, str]] = []
        # bumped by every change of nodes or edges; topological_ops reuses its order while unchanged
        self._version = 0
        self._topological: tuple[int, list] | None = None
        self.data_form = False
        super().__init__(incoming_graph_data, **attr)
        if context is not None:
            self.graph["context"] = context

    # ----------------------------------------------------------------- conversion context
    @property
    def context(self):
        """The ConversionContext (options, registry, framework) this graph belongs to."""
        try:
            return self.graph["context"]
        except KeyError:
            raise GraphError("graph has no conversion context (build it with Graph(context=...))") from None

    @property
    def registry(self):
        return self.context.registry

    @property
    def options(self):
        return self.context.options

    @property
    def framework(self) -> str:
        return self.context.framework

    # ----------------------------------------------------------------- node index
    # add_node, remove_node, add_edge and remove_edge keep networkx's dicts (``_node``, ``_succ``,
    # ``_pred``: the same entries in the same order as networkx's own methods make them), written
    # directly: every conversion calls them a few hundred thousand times.
    def _changed(self) -> None:
        self._version += 1
        cache = self.__networkx_cache__
        if cache:
            cache.clear()

    def add_node(self, node_for_adding, **attr):
        self._changed()
        n = node_for_adding
        if n not in self._node:
            if n is None:
                raise ValueError("None cannot be a node")
            self._seq += 1
            attr.setdefault("_seq", self._seq)
            self._succ[n] = {}
            self._pred[n] = {}
            self._node[n] = attrs = attr        # this call's own dict
            before = None
        else:
            attrs = self._node[n]
            before = attrs.get("op")
            attrs.update(attr)
        op = attrs.get("op")
        if op is not None:
            self._by_op[op].add(n)
            if op != before:
                self._indexed.append((op, n))
        if attrs.get("bodies"):
            self._with_bodies.add(n)

    def add_nodes_from(self, nodes_for_adding, **attr):
        for n in nodes_for_adding:
            if isinstance(n, tuple):
                self.add_node(n[0], **{**attr, **n[1]})
            else:
                self.add_node(n, **attr)

    def remove_node(self, n):
        """Remove a node; in data form an op's unused output data nodes go with it."""
        self._changed()
        try:
            attrs = self._node[n]
        except KeyError:
            raise nx.NetworkXError(f"The node {n} is not in the digraph.") from None
        op = attrs.get("op")
        if op is not None:
            self._by_op[op].discard(n)
        self._with_bodies.discard(n)
        outputs = list(self._succ[n]) if self.data_form and attrs.get("kind") == "op" else []
        self._drop(n)
        for d in outputs:
            if d in self._node and self._node[d].get("kind") == "data" and not self._succ[d]:
                self._drop(d)

    def _drop(self, n) -> None:
        """The node and its edges out of networkx's dicts."""
        succ, pred = self._succ, self._pred
        del self._node[n]
        for u in succ[n]:
            del pred[u][n]
        del succ[n]
        for u in pred[n]:
            del succ[u][n]
        del pred[n]

    def add_edge(self, u_for_edge, v_for_edge, key=None, **attr):
        u, v = u_for_edge, v_for_edge
        if u not in self._succ or v not in self._succ:      # networkx adds the missing node
            self._changed()
            return super().add_edge(u, v, key, **attr)
        self._changed()
        keys = self._succ[u].get(v)
        if keys is None:
            keys = self._succ[u][v] = self._pred[v][u] = {}
        if key is None:
            key = len(keys)
            while key in keys:
                key += 1
        data = keys.get(key)
        if data is None:
            keys[key] = attr
        else:
            data.update(attr)
        return key

    def remove_edge(self, u, v, key=None):
        self._changed()
        try:
            keys = self._succ[u][v]
            if key is None:
                keys.popitem()
            else:
                del keys[key]
        except KeyError:
            raise nx.NetworkXError(f"The edge {u}-{v} with key {key} is not in the graph.") from None
        if not keys:
            del self._succ[u][v]
            del self._pred[v][u]

    def remove_nodes_from(self, nodes):
        for n in list(nodes):
            if n in self._node:
                self.remove_node(n)

    def reindex_op(self, node_id: str, old_op: str | None, new_op: str | None) -> None:
        """Keep the op index right when a node's ``op`` changes (called by Node.__setattr__)."""
        if old_op is not None:
            self._by_op[old_op].discard(node_id)
        if new_op is not None:
            self._by_op[new_op].add(node_id)
            if new_op != old_op:
                self._indexed.append((new_op, node_id))

    def note_bodies(self, node_id: str) -> None:
        """Record that a node holds bodies (called by Node.__setitem__ for ``bodies``)."""
        self._with_bodies.add(node_id)

    def may_have_bodies(self) -> bool:
        """False when no node of this graph was ever given bodies (then it has none); lets the
        per-transform walk over all graphs skip scanning large graphs without control flow."""
        return bool(self._with_bodies)

    def index_mark(self) -> int:
        """A mark for ``indexed_since``."""
        return len(self._indexed)

    def indexed_since(self, mark: int, op: str) -> list[str]:
        """Ids of the nodes that became ``op`` nodes after ``mark`` and still are, in order."""
        found = dict.fromkeys(n for o, n in self._indexed[mark:] if o == op)
        return [n for n in found if self._node.get(n, {}).get("op") == op]

    def has_op(self, op: str) -> bool:
        """Whether the graph has a node whose ``op`` is ``op``."""
        return bool(self._by_op.get(op))

    def nodes_by_op(self, op: str) -> list["Node"]:
        """Op nodes whose ``op`` is ``op``, in a deterministic (id) order."""
        return [Node(self, n) for n in sorted(self._by_op.get(op, ()))]

    def op_types(self) -> set[str]:
        return {op for op, ids in self._by_op.items() if ids}

    def op_nodes(self) -> list["Node"]:
        return [Node(self, n) for n, d in self._node.items() if d.get("kind") == "op"]

    def node(self, node_id: str) -> "Node":
        return Node(self, node_id)

    def unique_id(self, prefix: str = "node") -> str:
        """A node id not used in this graph yet, derived from ``prefix``."""
        if prefix not in self._node and prefix not in self._names:
            self._names[prefix] = 0
            return prefix
        count = self._names.get(prefix, 0)
        while True:
            count += 1
            candidate = f"{prefix}/{count}"
            if candidate not in self._node:
                self._names[prefix] = count
                return candidate

    def add_op(self, attrs: dict, node_id: str | None = None) -> "Node":
        """Add an op node with the given attributes and return it."""
        name = attrs.get("name") or attrs.get("op") or "node"
        node_id = node_id if node_id is not None and node_id not in self._node else self.unique_id(name)
        attrs = {"kind": "op", "name": name, **attrs}
        self.add_node(node_id, **attrs)
        return Node(self, node_id)

    # ----------------------------------------------------------------- edge primitives
    # They read networkx's adjacency dicts directly (``_pred[v][u][key]`` and ``_succ[u][v][key]``
    # are an edge's attributes): the same edges in the same order as ``in_edges``/``out_edges``,
    # without building a view object per call, which made these the hottest lines of a
    # conversion.
    def producer(self, node_id: str, in_idx: int) -> tuple[str, int] | None:
        """(producer op id, its output port) feeding input ``in_idx`` of ``node_id``."""
        for src, keys in self._pred.get(node_id, _EMPTY).items():
            for d in keys.values():
                if d.get("in") == in_idx:
                    if not self.data_form:
                        return src, d["out"]
                    for op_id, op_keys in self._pred[src].items():
                        for dd in op_keys.values():
                            return op_id, dd["out"]
                    return None
        return None

    def input_data(self, node_id: str, in_idx: int) -> str | None:
        """Data node feeding input ``in_idx`` (data form only)."""
        for src, keys in self._pred.get(node_id, _EMPTY).items():
            for d in keys.values():
                if d.get("in") == in_idx:
                    return src
        return None

    def output_data(self, node_id: str, out_idx: int, create: bool = False) -> str | None:
        """Data node of output ``out_idx`` (data form only), created on request."""
        for dst, keys in self._succ.get(node_id, _EMPTY).items():
            for d in keys.values():
                if d.get("out") == out_idx:
                    return dst
        if not create:
            return None
        data_id = self.unique_id(f"{node_id}:{out_idx}")
        self.add_node(data_id, kind="data", shape=None, value=None, dtype=None)
        self.add_edge(node_id, data_id, out=out_idx)
        return data_id

    def consumers(self, node_id: str, out_idx: int) -> list[tuple[str, int]]:
        """(consumer op id, its input port) pairs fed by output ``out_idx`` of ``node_id``."""
        result = []
        if not self.data_form:
            for dst, keys in self._succ.get(node_id, _EMPTY).items():
                for d in keys.values():
                    if d.get("out") == out_idx:
                        result.append((dst, d["in"]))
        else:
            data_id = self.output_data(node_id, out_idx)
            if data_id is not None:
                result = [(dst, d["in"]) for dst, keys in self._succ[data_id].items() for d in keys.values()]
        result.sort()
        return result

    def link(self, src_id: str, out_idx: int, dst_id: str, in_idx: int) -> None:
        """Connect output ``out_idx`` of ``src_id`` to input ``in_idx`` of ``dst_id``,
        replacing whatever fed that input before."""
        if src_id not in self._node or dst_id not in self._node:
            missing = src_id if src_id not in self._node else dst_id
            raise GraphError(f"cannot link {src_id}:{out_idx} -> {dst_id}:{in_idx}: node {missing} is not in this "
                             f"graph (a port of another graph, e.g. of a body, was used)")
        self.unlink_input(dst_id, in_idx)
        if not self.data_form:
            self.add_edge(src_id, dst_id, out=out_idx, **{"in": in_idx})
        else:
            data_id = self.output_data(src_id, out_idx, create=True)
            self.add_edge(data_id, dst_id, **{"in": in_idx})

    def unlink_input(self, dst_id: str, in_idx: int) -> None:
        found = [(src, key) for src, keys in self._pred.get(dst_id, _EMPTY).items()
                 for key, d in keys.items() if d.get("in") == in_idx]
        for src, key in found:
            self.remove_edge(src, dst_id, key)

    def input_values(self, node_id: str) -> dict:
        """Input port -> value of the tensor it reads (None when not known), data form."""
        nodes = self._node
        return {d["in"]: nodes[src].get("value") for src, keys in self._pred[node_id].items() for d in keys.values()}

    def in_indices(self, node_id: str) -> list[int]:
        """Connected input port numbers of a node, sorted."""
        return sorted([d["in"] for keys in self._pred.get(node_id, _EMPTY).values() for d in keys.values()])

    def out_indices(self, node_id: str) -> list[int]:
        """Output port numbers of a node that have consumers (op form) or data nodes."""
        return sorted({d["out"] for keys in self._succ.get(node_id, _EMPTY).values() for d in keys.values()})

    # ----------------------------------------------------------------- forms and checks
    def to_data_form(self) -> None:
        """Insert one data node per used output port (op -> data -> op)."""
        if self.data_form:
            return
        edges = [(src, dst, d) for src, nbrs in self._succ.items() for dst, keys in nbrs.items() for d in keys.values()]
        for adjacency in (self._succ, self._pred):      # every edge goes (each node keeps its dicts)
            for nbrs in adjacency.values():
                nbrs.clear()
        self._version += 1
        self.data_form = True
        for src, dst, d in edges:
            data_id = self.output_data(src, d["out"], create=True)
            self.add_edge(data_id, dst, **{"in": d["in"]})

    def topological_ops(self) -> list["Node"]:
        """Op nodes in a deterministic topological order: of the nodes whose inputs are all
        placed, the one created first (smallest ``_seq``) comes next (what networkx's
        lexicographical_topological_sort gives, several times faster). A cycle is a GraphError.
        Passes that change nothing in between get the order computed before."""
        if self._topological is not None and self._topological[0] == self._version:
            return list(self._topological[1])
        nodes = self._node
        succ = self._succ
        waiting: dict[str, list[int]] = {}      # node -> [input edges not placed yet, index]
        sources = []                             # nodes without inputs (Consts, Parameters): ready at once
        for index, (n, preds) in enumerate(self._pred.items()):   # _pred is in _node's order
            if preds:
                waiting[n] = [sum(map(len, preds.values())), index]
            else:
                sources.append((nodes[n]["_seq"], index, n))
        # The next node is the smallest of the sorted sources and of the heap of nodes that
        # became ready: the same order as one heap of everything, with a heap a fraction the
        # size (most ready nodes of a large graph are its constants).
        sources.sort(reverse=True)
        ready: list = []
        order = []
        while ready or sources:
            if sources and (not ready or sources[-1] < ready[0]):
                n = sources.pop()[2]
            else:
                n = heapq.heappop(ready)[2]
            if nodes[n].get("kind") == "op":
                order.append(n)
            for child, keys in succ[n].items():
                entry = waiting[child]
                entry[0] -= len(keys)
                if not entry[0]:
                    del waiting[child]
                    heapq.heappush(ready, (nodes[child]["_seq"], entry[1], child))
        if waiting:
            cycle = nx.find_cycle(self)
            names = [self._node[e[0]].get("name", e[0]) for e in cycle if self._node[e[0]].get("kind") == "op"]
            raise GraphError(f"The graph has a cycle through: {' -> '.join(names[:10])}")
        result = [Node(self, n) for n in order]
        self._topological = (self._version, result)
        return list(result)

    def lint(self) -> None:
        """Check structural consistency; raise GraphError on the first problem found."""
        for n in self._node:
            self._lint_node(n)
        for op, ids in self._by_op.items():
            for n in ids:
                if self._node.get(n, {}).get("op") != op:
                    raise GraphError(f"op index lists {n} under {op}")
        if not nx.is_directed_acyclic_graph(self):
            raise GraphError("graph has a cycle")

    def lint_nodes(self, node_ids: Iterable[str]) -> None:
        """The per-node checks of ``lint()`` for some nodes, their data nodes and their
        neighbours (after a local change such as one translation)."""
        around = set()
        for n in node_ids:
            if n in self._node:
                around.add(n)
                around.update(self.predecessors(n))
                around.update(self.successors(n))
        if self.data_form:
            around.update([s for n in list(around) if self._node[n].get("kind") == "data" for s in self.successors(n)])
        for n in sorted(around):
            self._lint_node(n)

    def _lint_node(self, n: str) -> None:
        d = self._node[n]
        kind = d.get("kind")
        if kind not in ("op", "data"):
            raise GraphError(f"node {n} has no kind")
        if d.get("bodies") and n not in self._with_bodies:
            raise GraphError(f"node {n} was given bodies behind the graph's back (set them through Node)")
        if kind == "op" and d.get("op") is not None and n not in self._by_op[d["op"]]:
            raise GraphError(f"node {n} missing from the op index")
        ins = [e.get("in") for _, _, e in self.in_edges(n, data=True)]
        if kind == "op" and len(ins) != len(set(ins)):
            raise GraphError(f"node {n} has two edges into one input port: {ins}")
        if kind == "data":
            if self.in_degree(n) > 1:
                raise GraphError(f"data node {n} has several producers")
            if not self.data_form:
                raise GraphError(f"data node {n} in an op-form graph")
        if kind == "op" and None in ins:
            raise GraphError(f"node {n} has an input edge without a port number")
        outs = [e.get("out") for _, _, e in self.out_edges(n, data=True)]
        if (kind == "op" or not self.data_form) and None in outs:
            raise GraphError(f"node {n} has an output edge without a port number")

    def lint_translated(self) -> None:
        """The checks that hold once the translate step is done, on top of ``lint()``: every op
        is registered, no framework op is left, every data node is typed, bodies are valid."""
        registry = self.registry
        for n, d in self._node.items():
            if d.get("kind") == "op":
                name = d.get("name", n)
                if d.get("translate") is not None:
                    raise GraphError(f"framework op {d.get('op')} '{name}' is left after translation")
                if d.get("op") not in registry.ops:
                    raise GraphError(f"node '{name}' has op {d.get('op')!r}, which no Op class registers")
                if registry.ops[d["op"]].type is None:
                    continue     # an internal op's bodies are consumed by the rewrite that replaces it
                for body in (d.get("bodies") or {}).values():
                    body.lint()
                    body.lint_translated()
            elif d.get("dtype") is None and self.in_degree(n):
                producer = next(iter(self.predecessors(n)))
                raise GraphError(f"output of '{self._node[producer].get('name', producer)}' "
                                 f"({self._node[producer].get('op')}) has no element type")

    def remove_dead_nodes(self, keep: Iterable[str] = ()) -> int:
        """Remove op nodes whose outputs do not reach a Result (or a node in ``keep``)."""
        roots = set(keep).union(*(self._by_op.get(op, ()) for op in ("Result", "Assign", "Sink")))
        alive = set(roots)
        stack = list(roots)
        pred, succ, nodes = self._pred, self._succ, self._node
        while stack:
            n = stack.pop()
            for p in pred[n]:
                if p not in alive:
                    alive.add(p)
                    stack.append(p)
        if self.data_form:      # an op's outputs (all its successors) live with it
            for n in [n for n in alive if nodes[n].get("kind") == "op"]:
                alive.update(succ[n])
        if len(alive) == len(nodes):
            return 0
        dead = [n for n in nodes if n not in alive]
        self.remove_nodes_from(dead)
        return len(dead)

    def output_values_known(self, node_id: str) -> bool:
        """Whether the op has output data nodes and each holds a value (data form): a quick
        test before looking at its ports."""
        succ, nodes = self._succ[node_id], self._node
        return bool(succ) and all(nodes[d].get("value") is not None for d in succ)

    def remove_orphan_data(self) -> None:
        """Remove the data nodes that have no producer (left by removed ops)."""
        pred = self._pred
        self.remove_nodes_from([n for n, d in self._node.items() if d.get("kind") == "data" and not pred[n]])

    def ops_iter(self) -> Iterator["Node"]:
        for n, d in list(self._node.items()):
            if d.get("kind") == "op" and n in self._node:
                yield Node(self, n)


def all_graphs(graph):
    """``graph`` and every body graph nested in it, outermost first."""
    yield graph
    if not graph.may_have_bodies():
        return
    for bodies in [d["bodies"] for d in graph._node.values() if d.get("bodies") and d.get("kind") == "op"]:
        for body in bodies.values():
            yield from all_graphs(body)
