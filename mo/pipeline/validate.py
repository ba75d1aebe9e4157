"""The last check before the IR is written: what the runtime would refuse is refused here, with
the node and op named, instead of an IR that exits 0 but does not load.

* every op has an IR type (an internal op left over is a converter bug);
* inputs an op needs in one element type have one (``Op.same_type_inputs``): a model whose
  tensors mix types there is invalid (e.g. an LSTM fed integers);
* every model input has a known rank (the CPU plugin compiles no Parameter of dynamic rank);
* inputs the CPU plugin needs of static shape have one (``STATIC_SHAPE_INPUTS``): the filters of
  a convolution may be computed, but their shape must be known.
"""
from __future__ import annotations

from mo.errors import GraphError
from mo.graph.node import Node
from mo.utils.shape import shape_str


def _check_types(node: Node) -> None:
    same = node.op_class.same_type_inputs
    ports = sorted(node.in_ports()) if same == "all" else [i for i in same if node.is_in_port_connected(i)]
    types = {i: node.in_dtype(i) for i in ports}
    if len({t for t in types.values() if t is not None}) > 1:
        listed = ", ".join(f"input {i}: {t}" for i, t in types.items())
        raise GraphError(f"Node '{node.name}' ({node.op}) needs its inputs {ports} in one element type, but the "
                         f"model gives {listed}: the model is invalid.")


# op -> inputs whose shape the OpenVINO CPU plugin needs static ("Doesn't support dynamic weights
# shape" when compiling otherwise)
STATIC_SHAPE_INPUTS = {"Convolution": (1,), "GroupConvolution": (1,), "ConvolutionBackpropData": (1,),
                       "GroupConvolutionBackpropData": (1,)}


def _check_static_inputs(node: Node, ports: tuple[int, ...]) -> None:
    for i in ports:
        shape = node.in_shape(i) if node.is_in_port_connected(i) else None
        if node.is_in_port_connected(i) and (shape is None or any(d < 0 for d in shape)):
            raise GraphError(f"Node '{node.name}' ({node.op}) takes its input {i} of shape {shape_str(shape)}, and the "
                             f"OpenVINO CPU plugin compiles {node.op} only with a static shape there (the filters): "
                             f"give the model's input shapes with --input.")


def _check_input_ranks(graph) -> None:
    model = graph.context.options.input_model
    where = f"of '{model}'" if isinstance(model, str) else "of the model"
    for param in graph.nodes_by_op("Parameter"):
        if param.shape is None:
            raise GraphError(f"Input '{param.name}' {where} has no declared shape, so its rank is unknown, and the "
                             f"OpenVINO CPU plugin compiles no input of unknown rank: give its shape with --input "
                             f"\"{param.name}[...]\" (? for a dynamic dimension).")


def validate(graph) -> None:
    """Check ``graph`` and its bodies before emission."""
    if not graph.graph.get("is_body"):
        _check_input_ranks(graph)
    for node in graph.op_nodes():
        op_class = node.op_class
        if op_class.type is None:
            raise RuntimeError(f"internal op {node.op} '{node.name}' is left in the graph")
        if op_class.same_type_inputs:
            _check_types(node)
        if node.op in STATIC_SHAPE_INPUTS:
            _check_static_inputs(node, STATIC_SHAPE_INPUTS[node.op])
        for body in (node.get("bodies") or {}).values():
            validate(body)
