"""Readable pattern rewrites: a pattern and its replacement, written in op vocabulary.

    class SwishFusion(PatternRewrite):
        def pattern(self, p):
            x = p.var("x")
            return p.Multiply(x, p.Sigmoid(x))
        def replacement(self, b, m):
            return b.Swish(m["x"])

``pattern(p)`` builds a small expression: ``p.var(name)`` matches any tensor (the same name must
bind the same tensor everywhere), ``p.const(name)`` matches a tensor with a known value (its
numpy value is bound), ``p.<Op>(...)`` matches a node of that op (keyword arguments must equal the
node's attributes). ``Add``, ``Multiply``, ``Maximum``, ``Minimum`` and the logical/equality ops
match their inputs in either order. The search is indexed by the pattern's root op type; the
inner nodes of a match may have no consumers outside the match. ``condition(m)`` can reject a
match (e.g. check constant values) and ``replacement(b, m)`` builds the new output with an
OpBuilder; the root's consumers and tensor names move to it. Runs in the middle phase (shapes and
constant values known) unless ``phase`` says otherwise.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.port import Port
from mo.pipeline.transform import Transform

COMMUTATIVE = frozenset({"Add", "Multiply", "Maximum", "Minimum", "Equal", "NotEqual", "LogicalAnd",
                         "LogicalOr", "LogicalXor"})


class PatternNode:
    """One node of a pattern: an op with inputs, a variable, or a constant."""

    def __init__(self, kind: str, name: str | None = None, op: str | None = None,
                 inputs: tuple = (), attrs: dict | None = None, output: int = 0):
        self.kind = kind          # "op", "var", "const"
        self.name = name
        self.op = op
        self.inputs = inputs
        self.attrs = attrs or {}
        self.output = output

    def __repr__(self) -> str:
        if self.kind == "op":
            return f"{self.op}({', '.join(map(repr, self.inputs))})"
        return f"{self.kind}:{self.name}"


class PatternBuilder:
    """Builds PatternNodes: ``p.var('x')``, ``p.const('c')``, ``p.Op(inputs..., attr=value)``."""

    def var(self, name: str) -> PatternNode:
        return PatternNode("var", name)

    def const(self, name: str) -> PatternNode:
        return PatternNode("const", name)

    def op(self, op: str, *inputs: PatternNode, _output: int = 0, **attrs) -> PatternNode:
        return PatternNode("op", op=op, inputs=inputs, attrs=attrs, output=_output)

    def __getattr__(self, op: str):
        if op.startswith("_"):
            raise AttributeError(op)
        return lambda *inputs, **attrs: self.op(op, *inputs, **attrs)


class Match(dict):
    """Bindings of a match: variable name -> output Port, constant name -> numpy value;
    ``nodes`` are the matched op nodes, ``root`` the node whose output the pattern computes."""

    def __init__(self):
        super().__init__()
        self.nodes: list = []
        self.root = None
        self.ports: dict[str, Port] = {}


def _attrs_equal(actual: Any, expected: Any) -> bool:
    if isinstance(expected, (list, tuple, np.ndarray)) or isinstance(actual, (list, tuple, np.ndarray)):
        return actual is not None and np.array_equal(np.asarray(actual), np.asarray(expected))
    return actual == expected


def _may_match(pn: PatternNode, graph, producer: tuple[str, int]) -> bool:
    """A quick check before binding anything: an op pattern node needs an output of its op
    (``producer``: the node id and output port of the tensor)."""
    return pn.kind != "op" or (graph._node[producer[0]].get("op") == pn.op and producer[1] == pn.output)


def _match(pn: PatternNode, port: Port, m: Match) -> bool:
    """Match pattern node ``pn`` against the tensor at output ``port``; extends ``m``."""
    if pn.kind == "var":
        bound = m.ports.get(pn.name)
        if bound is not None:
            return bound == port
        m.ports[pn.name] = port
        m[pn.name] = port
        return True
    if pn.kind == "const":
        value = port.data.get_value()
        if value is None:
            return False
        if pn.name in m and not np.array_equal(m[pn.name], value):
            return False
        m[pn.name] = value
        m.ports[pn.name] = port
        return True
    node = port.node
    if node.op != pn.op or port.idx != pn.output:
        return False
    for key, value in pn.attrs.items():
        if not _attrs_equal(node.get(key), value):
            return False
    graph = node.graph
    producers = [graph.producer(node.id, i) for i in range(len(pn.inputs))]
    if any(p is None for p in producers) or len(graph.in_indices(node.id)) != len(pn.inputs):
        return False
    orders = [list(range(len(pn.inputs)))]
    if pn.op in COMMUTATIVE and len(pn.inputs) == 2:
        orders.append([1, 0])
    sources = None
    for order in orders:
        if not all(_may_match(pn.inputs[j], graph, producers[order[j]]) for j in range(len(pn.inputs))):
            continue      # an input's producer is not of the op the pattern asks for
        sources = sources or [graph.node(src).out_port(idx) for src, idx in producers]
        trial = Match()
        trial.update(m)
        trial.ports = dict(m.ports)
        trial.nodes = list(m.nodes)
        if all(_match(pn.inputs[j], sources[order[j]], trial) for j in range(len(pn.inputs))):
            m.update(trial)
            m.ports = trial.ports
            m.nodes = trial.nodes + [node]
            return True
    return False


def match_at(pattern: PatternNode, port: Port) -> Match | None:
    """Match ``pattern`` with its root at ``port``; None when it does not match."""
    m = Match()
    if not _match(pattern, port, m):
        return None
    m.root = port.node
    return m


def _self_contained(m: Match) -> bool:
    """Inner nodes of the match feed only matched nodes."""
    inside = {n.id for n in m.nodes}
    for node in m.nodes:
        if node.id == m.root.id:
            continue
        for port in node.out_ports().values():
            if any(d.node.id not in inside for d in port.get_destinations()):
                return False
    return True


def _ops_of(root: PatternNode) -> set[str]:
    """The op types every match of the pattern under ``root`` contains."""
    found, stack = set(), [root]
    while stack:
        pn = stack.pop()
        if pn.kind == "op":
            found.add(pn.op)
            stack.extend(pn.inputs)
    return found


class PatternRewrite(Transform):
    """A rewrite given as ``pattern(p)`` + ``replacement(b, m)`` (+ optional ``condition(m)``)."""

    abstract = True
    phase = "middle"

    def pattern(self, p: PatternBuilder) -> PatternNode | list[PatternNode]:
        raise NotImplementedError

    def condition(self, m: Match) -> bool:
        return True

    def replacement(self, b: OpBuilder, m: Match) -> Port:
        raise NotImplementedError

    def _roots(self) -> list[PatternNode]:
        patterns = self.pattern(PatternBuilder())
        return list(patterns) if isinstance(patterns, list) else [patterns]

    def matched_ops(self) -> set[str]:
        return set(self.ops).union(*(_ops_of(root) for root in self._roots()))

    def find_and_replace_pattern(self, graph) -> None:
        patterns = self.pattern(PatternBuilder())
        if isinstance(patterns, PatternNode):
            patterns = [patterns]
        for pattern in patterns:
            if not all(graph.has_op(op) for op in _ops_of(pattern)):
                continue      # an op type the pattern needs is not in the graph: no match anywhere
            for node in graph.nodes_by_op(pattern.op):
                if node.id not in graph:
                    continue
                m = match_at(pattern, node.out_port(pattern.output))
                if m is None or not _self_contained(m) or not self.condition(m):
                    continue
                new = self.replacement(OpBuilder(graph, node.name), m)
                node.out_port(pattern.output).get_connection().set_source(new)
                for matched in reversed(m.nodes):   # root first, then its inputs
                    if matched.id in graph and not any(p.is_connected() for p in matched.out_ports().values()):
                        graph.remove_node(matched.id)


class MultiOutputPatternRewrite(PatternRewrite):
    """A rewrite of a pattern with several outputs: ``pattern(p)`` returns a dict of named roots
    that share variables (the same ``p.var`` name binds the same tensor in every root), and
    ``replacement(b, m)`` a dict of ports with the same names (None: the root keeps its value).

        class MeanAndVariance(MultiOutputPatternRewrite):
            def pattern(self, p):
                x = p.var("x")
                mean = p.ReduceMean(x, p.const("axes"), keep_dims=True)
                centered = p.Subtract(x, mean)
                return {"mean": mean, "var": p.ReduceMean(p.Multiply(centered, centered), p.const("axes2"),
                                                          keep_dims=True)}

            def replacement(self, b, m):
                ...
                return {"mean": new_mean, "var": new_var}

    A match binds every root; ``m.roots`` gives each root's node. Matched nodes other than the
    roots may be read only inside the match (the roots' consumers move to the replacement)."""

    abstract = True

    def pattern(self, p: PatternBuilder) -> dict[str, PatternNode]:
        raise NotImplementedError

    def replacement(self, b: OpBuilder, m: Match) -> dict[str, Port | None]:
        raise NotImplementedError

    def _roots(self) -> list[PatternNode]:
        return list(self.pattern(PatternBuilder()).values())

    @staticmethod
    def _extend(m: Match, root: PatternNode, graph) -> tuple[Match, object] | None:
        """``m`` extended by a match of ``root`` somewhere in the graph, and the root's node."""
        taken = {n.id for n in m.nodes}
        for node in graph.nodes_by_op(root.op):
            if node.id in taken or node.id not in graph:
                continue
            trial = Match()
            trial.update(m)
            trial.ports, trial.nodes = dict(m.ports), list(m.nodes)
            if _match(root, node.out_port(root.output), trial):
                return trial, node
        return None

    def find_and_replace_pattern(self, graph) -> None:
        roots = list(self.pattern(PatternBuilder()).items())
        first_name, first = roots[0]
        for node in graph.nodes_by_op(first.op):
            if node.id not in graph:
                continue
            m = match_at(first, node.out_port(first.output))
            if m is None:
                continue
            found = {first_name: node}
            for name, root in roots[1:]:
                extended = self._extend(m, root, graph)
                if extended is None:
                    break
                m, found[name] = extended
            if len(found) != len(roots):
                continue
            m.roots = found
            m.root = node
            inside = {n.id for n in m.nodes}
            root_ids = {n.id for n in found.values()}
            if any(d.node.id not in inside for n in m.nodes if n.id not in root_ids
                   for port in n.out_ports().values() for d in port.get_destinations()):
                continue
            if not self.condition(m):
                continue
            new = self.replacement(OpBuilder(graph, node.name), m)
            for name, root in roots:
                if new.get(name) is not None:
                    found[name].out_port(root.output).get_connection().set_source(new[name])
            for matched in reversed(m.nodes):
                if matched.id in graph and not any(p.is_connected() for p in matched.out_ports().values()):
                    graph.remove_node(matched.id)
