"""Lowering of onnx::Softmax: the opset<13 2-D view and Hardmax.

The 2-D view [prod(dims[:axis]), prod(dims[axis:])] is a Reshape to dims[:axis] + [-1]; the op
runs along the last axis and a Reshape restores the input shape. Hardmax is 1 where the position
along the axis equals the first position holding the maximum."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder
from mo.graph.building import input_rank
from mo.utils.shape import normalize_axis


def axis_length(b: OpBuilder, x, axis: int):
    """The length of ``x`` along ``axis`` as an i64 scalar (a constant when static)."""
    shape = x.data.get_shape()
    if shape is not None and shape[axis] >= 0:
        return np.int64(shape[axis])
    rank = len(shape)
    parts = b.VariadicSplit(b.ShapeOf(x), np.int64(0), np.array([axis, 1, rank - axis - 1], np.int64))
    return b.Squeeze(parts[1], np.int64(0))


def hardmax(b: OpBuilder, x, axis: int, name: str):
    rank = x.data.get_rank()
    n = axis_length(b, x, axis)
    positions = b.Range(np.int64(0), n, np.int64(1))
    if axis < rank - 1:
        positions = b.Unsqueeze(positions, np.arange(1, rank - axis, dtype=np.int64))
    is_max = b.Equal(x, b.ReduceMax(x, np.array([axis], np.int64), keep_dims=True))
    first = b.ReduceMin(b.Select(is_max, positions, n), np.array([axis], np.int64), keep_dims=True)
    return b.Convert(b.Equal(positions, first), destination_type=x.data.get_dtype(), name=name)


class OnnxSoftmaxToOpset(MiddleReplaceOp):
    op = "onnx::Softmax"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        rank = input_rank(node)
        axis = normalize_axis(node.axis, rank)
        if not node.flatten or axis == rank - 1:
            return [self.along(b, node, x, axis, node.name)]
        flat = b.Reshape(x, np.array([0] * axis + [-1], np.int64), special_zero=True)
        result = self.along(b, node, flat, axis, node.name + "/2d")
        return [b.Reshape(result, b.ShapeOf(x), special_zero=False, name=node.name)]

    @staticmethod
    def along(b: OpBuilder, node, x, axis: int, name: str):
        if node.variant == "Hardmax":
            return hardmax(b, x, axis, name)
        return b.op(node.variant, x, axis=axis, name=name)
