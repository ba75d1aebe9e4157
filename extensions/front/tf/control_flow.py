"""TensorFlow functional control flow -> If (opset8) and Loop (opset5).

While(vars) runs ``vars = body(vars)`` as long as ``cond(vars)`` holds. As a Loop: the initial
execution condition is ``cond`` computed on the initial values (the cond function copied into
the enclosing graph), and the body computes ``cond`` on its own results as the
``execution_condition`` output (a second copy, inside the body).

Loops over sequences use TensorLists (TensorArray). Two patterns are converted:

* a list made by TensorListFromTensor(t), passed through the body unchanged and read there with
  TensorListGetItem(list, i): ``t`` becomes a Loop input sliced along axis 0;
* a list made by TensorListReserve / EmptyTensorList, written in the body with
  TensorListSetItem(list, i, item) and read after the loop with TensorListStack: the item
  becomes a Loop output concatenated along axis 0,

where ``i`` is a counter: a loop variable that starts at 0 and grows by 1 per iteration; and a
one-element list written at index 0 on every iteration (Keras keeps the last output of a
recurrent layer so) becomes a Loop output of the last iteration's item. A list used otherwise
is a carried value: its contents (extensions/front/tf/tensor_array.py).
"""
from __future__ import annotations

import numpy as np

from extensions.front.tf.identity import RemoveTfIdentity
from extensions.load.tf.attributes import TfExtractor
from extensions.ops.control_flow import port_entry, sliced_entry
from mo.errors import ConversionError
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.pipeline.extract import framework_op_name, mark_framework_op
from mo.pipeline.transform import Transform, replace_outputs

WHILE = ("While", "StatelessWhile")
IF = ("If", "StatelessIf")
TENSOR_LISTS = ("TensorListReserve", "TensorListFromTensor", "TensorListStack", "TensorListGetItem",
                "TensorListSetItem", "EmptyTensorList")


class ControlFlowExtractor(TfExtractor):
    """While and If stay framework ops (``tf:While``, ``tf:StatelessIf``...) for the front
    rewrites below, which replace them by Loop and If with their bodies; an If's outputs are
    counted from ``Tout``."""

    op_types = WHILE + IF

    @classmethod
    def extract(cls, node):
        mark_framework_op(node, "tf", node.fw_op)
        if node.fw_op in IF:
            node["num_outputs"] = len(cls.attr(node, "Tout", []) or [])


def ordered(graph, op: str, key: str) -> list[Node]:
    """Parameters (``tf_arg_index``) or Results (``tf_ret_index``) of a function body in order."""
    nodes = [n for n in graph.nodes_by_op(op) if n.get(key) is not None]
    return sorted(nodes, key=lambda n: n[key])


def copy_graph(src, dst, feeds: dict[str, Port]) -> dict[str, Port]:
    """Copy the ops of op-form graph ``src`` into ``dst``; its Parameters are replaced by the
    ports in ``feeds`` (by Parameter id). Returns the port feeding each Result of ``src``."""
    mapping: dict[str, Port] = {}
    results: dict[str, Port] = {}
    for node in src.topological_ops():
        if node.op == "Parameter":
            continue
        if node.get("bodies"):
            raise ConversionError(f"'{node.name}' in a loop condition has a body of its own; not supported.")
        inputs = {}
        for i, port in node.in_ports().items():
            source = port.get_source()
            if source.node.op == "Parameter":
                if source.node.id not in feeds:
                    raise ConversionError(f"the loop condition reads '{source.node.name}', which cannot be computed "
                                          f"outside the loop")
                inputs[i] = feeds[source.node.id]
            else:
                inputs[i] = Node(dst, mapping[source.node.id]).out_port(source.idx)
        if node.op == "Result":
            results[node.id] = inputs[0]
            continue
        attrs = {k: v for k, v in node.attrs.items() if k not in ("_seq", "tensor_names", "kind")}
        copy = dst.add_op(attrs)
        mapping[node.id] = copy.id
        for i, port in inputs.items():
            port.connect(copy.in_port(i))
        if dst.data_form:
            from mo.pipeline.infer import infer_node
            infer_node(copy)
    return results


def list_kind(port: Port | None) -> str | None:
    """The TensorList op producing ``port``, if any."""
    if port is None or port.node.get("translate") not in TENSOR_LISTS:
        return None
    return port.node.fw_op


def is_list_op(node: Node, op_type: str) -> bool:
    return node.op == framework_op_name("tf", op_type)


class WhileLoop:
    """The analysis of one While node: which loop variables are counters, sliced input
    lists, concatenated output lists or plain carried values."""

    def __init__(self, node: Node):
        self.node = node
        self.body = node.bodies["body"]
        self.cond = node.bodies["cond"]
        self.params = ordered(self.body, "Parameter", "tf_arg_index")
        self.results = ordered(self.body, "Result", "tf_ret_index")
        n = len(node.in_ports())
        if len(self.params) != n or len(self.results) != n:
            raise ConversionError(f"While '{node.name}': its body takes {len(self.params)} and returns "
                                  f"{len(self.results)} values for {n} loop variables")
        self.inits = [node.in_port(k).get_source() for k in range(n)]
        self.counters = {k for k in range(n) if self._is_counter(k)}
        self.inputs: dict[int, list[Node]] = {}     # k -> the GetItem nodes reading it
        self.outputs: dict[int, Node] = {}          # k -> the SetItem node writing it
        self.last: set[int] = set()                 # outputs keeping only the last item
        for k in range(n):
            self._classify(k)

    def _is_counter(self, k: int) -> bool:
        init = self.inits[k].data.get_value()
        if init is None or init.size != 1 or int(init.reshape(-1)[0]) != 0:
            return False
        step = self.results[k].in_port(0).get_source().node
        if step.op != "Add":
            return False
        ports = [step.in_port(i).get_source() for i in (0, 1)]
        for a, b in (ports, ports[::-1]):
            if a.node.id == self.params[k].id and b.data.get_value() is not None \
                    and b.data.get_value().size == 1 and int(b.data.get_value().reshape(-1)[0]) == 1:
                return True
        return False

    def _index_is_counter(self, item: Node) -> bool:
        src = item.in_port(1).get_source()
        return src.node.op == "Parameter" and src.node.get("tf_arg_index") in self.counters

    def _overwrites_single_item(self, k: int, writer: Node) -> bool:
        """A list of one element (TensorListReserve(shape, 1)) written at index 0."""
        index = writer.in_port(1).data.get_value()
        maker = self.inits[k].node
        size = maker.in_port(1).data.get_value() if maker.fw_op == "TensorListReserve" else None
        return index is not None and int(index.reshape(-1)[0]) == 0 and size is not None and int(size) == 1

    def _classify(self, k: int) -> None:
        """A TensorList loop variable used otherwise than in the two patterns stays a carried
        value: the list's contents (extensions/front/tf/tensor_array.py), which needs the list's
        element shape where it is made."""
        kind = list_kind(self.inits[k])
        param, result = self.params[k], self.results[k]
        users = [p.node for p in param.out_port(0).get_destinations()]
        if kind == "TensorListFromTensor":
            reads = [u for u in users if is_list_op(u, "TensorListGetItem")]
            passthrough = result.in_port(0).get_source().node.id == param.id
            if passthrough and all(u.id == result.id or u in reads for u in users) \
                    and all(self._index_is_counter(r) for r in reads):
                self.inputs[k] = reads
        elif kind in ("TensorListReserve", "EmptyTensorList"):
            writer = result.in_port(0).get_source().node
            if not is_list_op(writer, "TensorListSetItem") or [u.id for u in users] != [writer.id]:
                return
            if not self._index_is_counter(writer):
                if not self._overwrites_single_item(k, writer):
                    return
                self.last.add(k)
            after = [p.node for p in self.node.out_port(k).get_destinations()]
            if not all(is_list_op(a, "TensorListStack") for a in after):
                self.last.discard(k)
                return
            self.outputs[k] = writer


class TfControlFlowRewrite(Transform):
    """A front rewrite replacing each node of the framework ops ``ops`` by what ``replace_op``
    builds, after the pass-through ops are gone."""

    abstract = True
    frameworks = ("tf",)

    def run_after(self):
        return [RemoveTfIdentity]

    def find_and_replace_pattern(self, graph) -> None:
        for op in self.ops:
            for node in graph.nodes_by_op(op):
                if node.id in graph:
                    replace_outputs(node, self.replace_op(graph, node))

    def replace_op(self, graph, node: Node) -> list[Port | None]:
        raise NotImplementedError


class TfWhileToLoop(TfControlFlowRewrite):
    """While / StatelessWhile -> Loop (see the module docstring)."""

    ops = tuple(framework_op_name("tf", t) for t in WHILE)

    def matched_ops(self) -> set[str]:
        """The While ops, and the TensorList ops it converts inside and around the loops."""
        return set(self.ops) | {framework_op_name("tf", t) for t in TENSOR_LISTS}

    def replace_op(self, graph, node):
        loop = WhileLoop(node)
        body = loop.body
        n = len(loop.params)
        carried = [k for k in range(n) if k not in loop.inputs and k not in loop.outputs]
        b = OpBuilder(graph, node.name)
        cond_params = {p.get("tf_arg_index"): p for p in ordered(loop.cond, "Parameter", "tf_arg_index")}
        init_feeds = {cond_params[k].id: loop.inits[k] for k in carried if k in cond_params}
        init_cond = next(iter(copy_graph(loop.cond, graph, init_feeds).values()))

        bb = OpBuilder(body, node.name)
        in_map = [port_entry(2 + j, loop.params[k]) for j, k in enumerate(carried)]
        sliced_sources = []
        for k, reads in loop.inputs.items():
            piece = bb.node("Parameter", name=f"{node.name}/slice{k}")
            in_map.append(sliced_entry(2 + len(carried) + len(sliced_sources), piece, 0))
            sliced_sources.append(loop.inits[k].node.in_port(0).get_source())
            item = bb.Squeeze(piece.out_port(0), np.array([0], np.int64))
            for read in reads:
                read.out_port(0).get_connection().set_source(item)
                body.remove_node(read.id)
        next_values = {cond_params[k].id: loop.results[k].in_port(0).get_source() for k in carried if k in cond_params}
        body_cond = next(iter(copy_graph(loop.cond, body, next_values).values()))
        out_map = [port_entry(-1, bb.node("Result", body_cond, name=f"{node.name}/cond"),
                              purpose="execution_condition")]
        out_map += [port_entry(j, loop.results[k]) for j, k in enumerate(carried)]
        stacked: dict[int, int] = {}
        for k, writer in loop.outputs.items():
            item = bb.Unsqueeze(writer.in_port(2).get_source(), np.array([0], np.int64))
            result = bb.node("Result", item, name=f"{node.name}/sequence{k}")
            stacked[k] = len(carried) + len(stacked)
            out_map.append(port_entry(stacked[k], result) if k in loop.last else sliced_entry(stacked[k], result, 0))
            body.remove_node(writer.id)
        for k in list(loop.inputs) + list(loop.outputs):
            body.remove_node(loop.results[k].id)
            body.remove_node(loop.params[k].id)
        back = [{"from": loop.results[k].id, "to": loop.params[k].id} for k in carried]
        inputs = [b.const(np.array(-1, np.int64)), init_cond] + [loop.inits[k] for k in carried] + sliced_sources
        new = b.node("Loop", *inputs, name=node.name, bodies={"body": body}, input_port_map=in_map,
                     output_port_map=out_map, back_edges=back, num_outputs=len(carried) + len(stacked))
        for k, idx in stacked.items():
            for stack in [p.node for p in node.out_port(k).get_destinations()]:
                stack.out_port(0).get_connection().set_source(new.out_port(idx))
                graph.remove_node(stack.id)
        outputs: list[Port | None] = [None] * n
        for j, k in enumerate(carried):
            outputs[k] = new.out_port(j)
        for k in list(loop.inputs) + list(loop.outputs):
            node.out_port(k).disconnect()
            node.in_port(k).disconnect()
        self._drop_unused_lists(graph, [loop.inits[k].node for k in list(loop.inputs) + list(loop.outputs)])
        return outputs

    @staticmethod
    def _drop_unused_lists(graph, makers: list[Node]) -> None:
        for maker in makers:
            if maker.id in graph and not any(p.is_connected() for p in maker.out_ports().values()):
                graph.remove_node(maker.id)


class TfIfToOpset(TfControlFlowRewrite):
    """If / StatelessIf -> If: the branches' arguments are inputs 1.. of the node; a numeric
    condition is true when non-zero."""

    ops = tuple(framework_op_name("tf", t) for t in IF)

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        cond = node.in_port(0).get_source()
        dtype = node.pb.attr["Tcond"].type if "Tcond" in node.pb.attr else 10
        if dtype != 10:
            cond = b.NotEqual(cond, b.ConvertLike(np.array(0, np.int64), cond))
        bodies = {"then_body": node.bodies["then_branch"], "else_body": node.bodies["else_branch"]}
        in_map, out_map = [], []
        n_out = node.num_outputs
        for name, body in bodies.items():
            params = ordered(body, "Parameter", "tf_arg_index")
            results = ordered(body, "Result", "tf_ret_index")
            if len(results) != n_out:
                raise ConversionError(f"If '{node.name}': a branch returns {len(results)} values, the node {n_out}")
            in_map += [port_entry(1 + p["tf_arg_index"], p, name) for p in params]
            out_map += [port_entry(i, r, name) for i, r in enumerate(results)]
        args = [node.in_port(i).get_source() for i in sorted(node.in_ports()) if i > 0]
        new = b.node("If", cond, *args, name=node.name, bodies=bodies, input_port_map=in_map,
                     output_port_map=out_map, num_outputs=n_out)
        return [new.out_port(i) for i in range(n_out)]
