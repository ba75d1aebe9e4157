"""The last check before the IR is written: what the runtime would refuse is refused here, with
the node and op named, instead of an IR that exits 0 but does not load.

* every op has an IR type (an internal op left over is a converter bug);
* inputs an op needs in one element type have one (``Op.same_type_inputs``): a model whose
  tensors mix types there is invalid (e.g. an LSTM fed integers).
"""
from __future__ import annotations

from mo.errors import GraphError
from mo.graph.node import Node


def _check_types(node: Node) -> None:
    same = node.op_class.same_type_inputs
    ports = sorted(node.in_ports()) if same == "all" else [i for i in same if node.is_in_port_connected(i)]
    types = {i: node.in_dtype(i) for i in ports}
    if len({t for t in types.values() if t is not None}) > 1:
        listed = ", ".join(f"input {i}: {t}" for i, t in types.items())
        raise GraphError(f"Node '{node.name}' ({node.op}) needs its inputs {ports} in one element type, but the "
                         f"model gives {listed}: the model is invalid.")


def validate(graph) -> None:
    """Check ``graph`` and its bodies before emission."""
    for node in graph.op_nodes():
        op_class = node.op_class
        if op_class.type is None:
            raise RuntimeError(f"internal op {node.op} '{node.name}' is left in the graph")
        if op_class.same_type_inputs:
            _check_types(node)
        for body in (node.get("bodies") or {}).values():
            validate(body)
