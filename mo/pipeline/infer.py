"""Partial inference: shapes, element types and constant values of every tensor.

``infer_node(node)`` infers one op node; the translate step (``mo/pipeline/translate.py``) calls
it for every op in one topological walk, and transforms that add nodes to a data-form graph get
them inferred on creation (``Op.create``), so the graph is never re-inferred as a whole after a
pass.

Values that depend on a ShapeOf are marked ``shape_derived``: they are used for shape inference
but constant folding leaves the ops that compute them in the IR (unless --static_shape), so the
IR stays reshapeable.
"""
from __future__ import annotations

import math

import numpy as np

from mo.errors import ConversionError, ExtensionError, GraphError
from mo.graph.node import Node
from mo.utils.origin import class_origin, is_user_class
from mo.utils.shape import shape_str
from mo.utils.types import np_dtype

# A static tensor with more elements than this is refused (2^32: 16 GiB of f32, more than the largest
# weight of any model we know).
MAX_ELEMENTS = 2 ** 32

# Ops whose empty outputs are not given a value (model inputs, outputs, sub-graph ops).
KEEP_EMPTY = frozenset({"Parameter", "Result", "Const", "If", "Loop", "TensorIterator", "ReadValue", "Assign"})

# Ops whose output value is derived from input shapes rather than input values.
SHAPE_SOURCES = frozenset({"ShapeOf"})


def infer_node(node: Node) -> None:
    """Infer element types, shapes and (when possible) values of ``node``'s outputs."""
    op_class = node.op_class
    graph = node.graph
    for i in range(op_class.outputs_count(node)):
        graph.output_data(node.id, i, create=True)
    framework_check = node.get("input_check")
    if framework_check is not None:
        framework_check(node)
    try:
        op_class.check_inputs(node)
        op_class.type_infer(node)
        op_class.infer(node)
    except ConversionError:
        raise
    except Exception as e:
        if is_user_class(op_class):
            raise ExtensionError(f"infer of extension op {class_origin(op_class)} failed on node '{node.name}': "
                                 f"{type(e).__name__}: {e}") from e
        inputs = ", ".join(f"{shape_str(node.in_shape(i))}:{node.in_dtype(i)}" for i in sorted(node.in_ports()))
        raise GraphError(
            f"Cannot infer the outputs of node '{node.name}' (op {node.op}) with inputs "
            f"[{inputs}]: {type(e).__name__}: {e}") from e
    datas = _check_sizes(node, op_class)
    # the op's predecessors are the data nodes of its inputs
    if node.op in SHAPE_SOURCES or any(graph._node[d].get("shape_derived") for d in graph._pred[node.id]):
        for data in datas:
            data["shape_derived"] = True


def _check_sizes(node: Node, op_class) -> list[dict]:
    """Refuse a static output too large for any device; give a static empty output (a zero dim)
    its value, so constant folding replaces the op that would compute nothing (the runtime's
    kernels may divide by such a dim). Returns the attributes of the output data nodes."""
    graph = node.graph
    count = op_class.outputs_count(node)
    datas = [graph._node[graph.output_data(node.id, i)] for i in range(count)]
    empty = []
    for data in datas:
        shape = data.get("shape")
        if shape is not None and any(d < -1 for d in shape):
            raise GraphError(f"Node '{node.name}' (op {node.op}) would make a tensor of shape "
                             f"[{','.join(map(str, shape))}], with a negative dimension: the model is invalid.")
        if shape is not None and any(d > MAX_ELEMENTS for d in shape):
            raise GraphError(f"Node '{node.name}' (op {node.op}) would make a tensor of shape {shape_str(shape)}, a "
                             f"dimension of more elements than any device holds: the model or the input shapes "
                             f"given are wrong.")
        if not shape or min(shape) < 0:      # a scalar, unknown, or with a dynamic dim
            continue
        if math.prod(shape) > MAX_ELEMENTS:
            raise GraphError(f"Node '{node.name}' (op {node.op}) would make a tensor of shape {shape_str(shape)} "
                             f"({math.prod(shape):,} elements), more than any device holds: the model or the "
                             f"input shapes given are wrong.")
        if 0 in shape:
            empty.append(data)
    if not empty or node.op in KEEP_EMPTY or not op_class.foldable or not node.get("foldable", True):
        return datas
    for data in empty:
        dtype = data.get("dtype")
        if data.get("value") is None and dtype not in (None, "string"):
            data["value"] = np.zeros(data["shape"], np_dtype(dtype))
    return datas
