"""Inlining a body graph (an ONNX graph attribute) into the graph of the node that owns it."""
from __future__ import annotations

from extensions.ops.control_flow import set_parameter
from mo.graph.builder import OpBuilder
from mo.pipeline.translate import translate_graph

# Node attributes that belong to the node's place in its own graph, not to the operation.
_PLACE_ATTRS = frozenset({"kind", "_seq", "name", "tensor_names", "op"})


def inline_body(b: OpBuilder, owner, body, inputs: list) -> list:
    """Copy the ops of ``body`` into ``b``'s graph, fed by ``inputs`` (one output port per body
    input, in order) and by the owner's extra inputs for the tensors the body reads from outside;
    returns the ports that compute the body's outputs, in order. The body is translated first,
    its Parameters described by what feeds them, so that only opset ops are copied."""
    params = sorted(body.nodes_by_op("Parameter"), key=lambda n: n["_seq"])
    formal = [p for p in params if p.get("outer_name") is None]
    if len(formal) != len(inputs):
        raise ValueError(f"a body of '{owner.name}' has {len(formal)} inputs, {len(inputs)} given")
    feeds = list(zip(formal, inputs))
    outer = owner.get("outer_names") or []
    first_outer = len(owner.pb.input) if owner.get("pb") is not None else 0
    for param in params:
        if param.get("outer_name") is not None:
            feeds.append((param, owner.in_port(first_outer + outer.index(param.outer_name)).get_source()))
    for param, port in feeds:
        set_parameter(param, port.data.get_shape(), port.data.get_dtype())
    translate_graph(body)
    sources = {(param.id, 0): port for param, port in feeds}
    results = []
    for node in body.topological_ops():
        if node.op == "Parameter":
            continue
        feeds_of_node = [sources[body.producer(node.id, i)] for i in range(max(node.in_ports(), default=-1) + 1)]
        if node.op == "Result":
            results.append((node["_seq"], feeds_of_node[0]))
            continue
        attrs = {k: v for k, v in node.attrs.items() if k not in _PLACE_ATTRS}
        copy = node.op_class.create(b.graph, feeds_of_node, name=f"{owner.name}/{node.name}", **attrs)
        for i in range(copy.op_class.outputs_count(copy)):
            sources[(node.id, i)] = copy.out_port(i)
    return [port for _, port in sorted(results, key=lambda r: r[0])]
