"""Reductions over no elements, as the constants they are: a product over an empty inner dimension
is zeros (a sum of no terms), ReduceMax over an empty axis its type's lowest value, and so on.

OpenVINO leaves these undefined or fails on them: its CPU plugin refuses to compile a MatMul or an
Einsum that contracts a dim statically 0 ("object is not initialized"; OpenVINO's own converters
write the op as it is and their IRs do not compile either), has left a product over a dim that
is 0 at run time uninitialised, and the opset says a reduction of an empty tensor is undefined.
They come from models that slice a tensor down to nothing (an empty prompt, a model cut where a
feature dimension is 0, PyTorch's OpInfo samples). The value given is the frameworks' (ONNX,
TensorFlow, NumPy): the identity of the reduction."""
from __future__ import annotations

import numpy as np

from extensions.ops.reduction import reduction_identity
from mo.graph.builder import OpBuilder
from mo.graph.building import INT64_MAX, dims_slice, i64, shape_of, typed_const
from mo.pipeline.transform import Transform
from mo.utils.shape import normalize_axes


def _inner_dim_is_zero(node) -> bool:
    """Whether either operand's contracted dim is statically 0 (1-D operands contract their only dim)."""
    for idx, transposed_axis in ((0, -2), (1, -1)):
        shape = node.in_port(idx).data.get_shape()
        if shape is None or len(shape) == 0:
            continue
        transposed = node.get("transpose_a" if idx == 0 else "transpose_b", False)
        axis = 0 if len(shape) == 1 else transposed_axis if transposed else (-1 if idx == 0 else -2)
        if shape[axis] == 0:
            return True
    return False


_CONVOLUTIONS = ("Convolution", "ConvolutionBackpropData", "GroupConvolution", "GroupConvolutionBackpropData")


class EmptyContractions(Transform):
    """Products that sum over no elements -> zeros of their shape and type. MatMul(a, b) whose
    inner dim is statically 0: a Broadcast of a constant 0 to the product's shape when it is
    static, else to the shape computed from the operands' shapes (a's batch dims and rows,
    bidirectionally broadcast against b's batch dims and columns), as numpy's matmul rules give
    it. An Einsum with an empty operand, and a convolution of empty data or weights (0 input
    channels, or a spatial dim of 0 that padding makes an output of: every tap lands in the zero
    padding; the CPU plugin leaves such outputs uninitialised), when their output shape is static."""

    phase = "middle"
    ops = ("MatMul", "Einsum", *_CONVOLUTIONS)

    def graph_condition(self, graph) -> bool:
        return any(graph.has_op(op) for op in self.ops)

    def find_and_replace_pattern(self, graph) -> None:
        for node in list(graph.nodes_by_op("MatMul")):
            if _inner_dim_is_zero(node) and node.out_port(0).data.get_dtype() is not None:
                self._replace(graph, node)
        # an empty operand: the output is empty too, or each of its elements a sum over nothing
        for op in ("Einsum", *_CONVOLUTIONS):
            for node in list(graph.nodes_by_op(op)):
                out = node.out_port(0).data
                operands = sorted(node.in_ports()) if op == "Einsum" else (0, 1)
                if _static(out.get_shape()) and out.get_dtype() is not None and any(
                        0 in (node.in_port(i).data.get_shape() or ()) for i in operands):
                    _replace_by_constant(graph, node, 0)

    @staticmethod
    def _replace(graph, node) -> None:
        out = node.out_port(0)
        if _static(out.data.get_shape()):
            _replace_by_constant(graph, node, 0)
            return
        b = OpBuilder(graph, node.name)
        ranks = [len(node.in_port(i).data.get_shape()) for i in (0, 1)]
        zeros = b.Broadcast(b.Broadcast(typed_const(b, 0, out.data.get_dtype()), _operand_shape(b, node, 0, ranks)),
                            _operand_shape(b, node, 1, ranks), mode="bidirectional")
        out.get_connection().set_source(zeros)
        graph.remove_node(node.id)


def _operand_shape(b: OpBuilder, node, idx: int, ranks: list[int]):
    """The shape operand ``idx`` contributes to the product: a's batch dims, rows and a 1 for the
    columns (b: batch dims, a 1 for the rows, columns); a 1-D operand contributes nothing (its
    dim is contracted away), and the other one then no 1 for it."""
    port = node.in_port(idx).get_source()
    if ranks[idx] == 1:
        return i64()
    transposed = node.get("transpose_a" if idx == 0 else "transpose_b", False)
    kept = -1 if transposed == (idx == 0) else -2      # the rows of a, the columns of b
    shape = shape_of(b, port)
    batch = dims_slice(b, shape, 0, -2)
    own = dims_slice(b, shape, kept, kept + 1 if kept == -2 else INT64_MAX)
    if ranks[1 - idx] == 1:
        return b.Concat(batch, own, axis=0)
    one = np.array([1], np.int64)
    return b.Concat(batch, own, one, axis=0) if idx == 0 else b.Concat(batch, one, own, axis=0)


class EmptyReductions(Transform):
    """Reduce*(x, constant axes) where the reduced axes of x hold no element (one of them is
    statically 0) and the result's shape is static -> a Broadcast of the reduction's identity
    (ReduceSum/L1/L2 0, ReduceProd 1, ReduceMax the lowest value, ReduceMin the highest,
    ReduceLogicalAnd true, ReduceLogicalOr false). ReduceMean stays: the frameworks disagree (NaN in
    PyTorch, TensorFlow and NumPy, 0 in ONNX Runtime, undefined in ONNX), and the CPU plugin gives 0."""

    phase = "middle"
    ops = ("ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceL1", "ReduceL2",
           "ReduceLogicalAnd", "ReduceLogicalOr")

    def graph_condition(self, graph) -> bool:
        return any(graph.has_op(op) for op in self.ops)

    def find_and_replace_pattern(self, graph) -> None:
        for op in self.ops:
            for node in list(graph.nodes_by_op(op)):
                shape, axes = node.in_port(0).data.get_shape(), node.in_value(1)
                out = node.out_port(0).data
                if shape is None or axes is None or not _static(out.get_shape()) or out.get_dtype() is None:
                    continue
                axes = normalize_axes(np.atleast_1d(axes).tolist(), len(shape))
                if not axes or not any(shape[a] == 0 for a in axes):
                    continue
                _replace_by_constant(graph, node, reduction_identity(op, out.get_dtype()))


def _static(shape) -> bool:
    return shape is not None and all(d >= 0 for d in shape)


def _replace_by_constant(graph, node, value) -> None:
    """Feed ``node``'s consumers a Broadcast of ``value`` (in the output's type) to its static
    output shape, and remove it."""
    b = OpBuilder(graph, node.name)
    out = node.out_port(0)
    filled = b.Broadcast(typed_const(b, value, out.data.get_dtype()), i64(*out.data.get_shape()))
    out.get_connection().set_source(filled)
    graph.remove_node(node.id)
