"""Lowering of ONNX Compress and OneHot to opset ops."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.building import as_scalar
from mo.pipeline.transform import ReplaceOp


class CompressToGather(ReplaceOp):
    """Compress(x, condition, axis) -> Gather(x, NonZero(condition), axis); without an axis x is
    flattened first."""

    op = "onnx::Compress"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        axis = node.axis
        if axis is None:
            x = b.Reshape(x, np.array([-1], np.int64), special_zero=False)
            axis = 0
        cond = b.Reshape(node.in_port(1).get_source(), np.array([-1], np.int64), special_zero=False)
        indices = b.Reshape(b.NonZero(cond, output_type="i64"), np.array([-1], np.int64), special_zero=False)
        return [b.Gather(x, indices, np.int64(axis), batch_dims=0, name=node.name)]


class OneHotToOpset(ReplaceOp):
    """OneHot(indices, depth, values=[off, on]) -> OneHot-16 with i64 indices (ONNX allows any
    numeric type), a scalar i64 depth, the two values split out, and negative indices counted from
    the end (as ONNX says)."""

    op = "onnx::OneHot"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        depth = b.Convert(as_scalar(b, node.in_port(1).get_source()),
                          destination_type="i64")
        values = node.in_port(2).get_source()
        off = b.Gather(values, np.int64(0), np.int64(0), batch_dims=0)
        on = b.Gather(values, np.int64(1), np.int64(0), batch_dims=0)
        indices = b.Convert(node.in_port(0).get_source(), destination_type="i64")
        return [b.OneHot(indices, depth, on, off, axis=node.axis,
                         negative_indices_mode="normalize", name=node.name)]
