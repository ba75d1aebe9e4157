"""Inlining a body graph (an ONNX graph attribute) into the graph of the node that owns it."""
from __future__ import annotations

from mo.graph.builder import OpBuilder
from mo.pipeline.extract import is_framework_op
from mo.pipeline.translate import translate_node

# Node attributes that belong to the node's place in its own graph, not to the operation.
_PLACE_ATTRS = frozenset({"kind", "_seq", "name", "tensor_names", "op"})


def inline_body(b: OpBuilder, owner, body, inputs: list) -> list:
    """Copy the ops of ``body`` into ``b``'s graph, fed by ``inputs`` (one output port per body
    input, in order) and by the owner's extra inputs for the tensors the body reads from outside;
    returns the ports that compute the body's outputs, in order."""
    sources = {}
    params = sorted(body.nodes_by_op("Parameter"), key=lambda n: n["_seq"])
    formal = [p for p in params if p.get("outer_name") is None]
    if len(formal) != len(inputs):
        raise ValueError(f"a body of '{owner.name}' has {len(formal)} inputs, {len(inputs)} given")
    for param, port in zip(formal, inputs):
        sources[(param.id, 0)] = port
    outer = owner.get("outer_names") or []
    first_outer = len(owner.pb.input) if owner.get("pb") is not None else 0
    for param in params:
        if param.get("outer_name") is not None:
            index = first_outer + outer.index(param.outer_name)
            sources[(param.id, 0)] = owner.in_port(index).get_source()
    results = []
    for node in body.topological_ops():
        if node.op == "Parameter":
            continue
        feeds = [sources[body.producer(node.id, i)] for i in range(max(node.in_ports(), default=-1) + 1)]
        if node.op == "Result":
            results.append((node["_seq"], feeds[0]))
            continue
        attrs = {k: v for k, v in node.attrs.items() if k not in _PLACE_ATTRS}
        name = f"{owner.name}/{node.name}"
        if is_framework_op(node):      # a body not translated yet: its framework ops are translated in place
            copy = b.graph.add_op({**attrs, "op": node.op, "name": name})
            for i, port in enumerate(feeds):
                if port is not None:
                    port.connect(copy.in_port(i))
            outputs = translate_node(copy)
        else:
            copy = node.op_class.create(b.graph, feeds, name=name, **attrs)
            outputs = [copy.out_port(i) for i in range(copy.op_class.outputs_count(copy))]
        for i, port in enumerate(outputs):
            sources[(node.id, i)] = port
    return [port for _, port in sorted(results, key=lambda r: r[0])]
