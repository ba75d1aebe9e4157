"""Lowering of ONNX Split with ``num_outputs`` (opset 18), whose last part may be smaller."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from extensions.ops.onnx_tensor_internal import split_lengths
from mo.graph.builder import OpBuilder


class SplitUnevenToOpset(MiddleReplaceOp):
    """Parts of ceil(dim / n): Split when n divides a static dim, VariadicSplit with the lengths
    for another static dim, and for a dynamic dim one Slice per part (Slice clamps the last)."""

    op = "onnx::Split"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        shape = x.data.get_shape()
        n = node.num_outputs
        axis = np.int64(node.axis)
        dim = -1 if shape is None else shape[node.axis]
        if dim >= 0 and dim % n == 0:
            parts = b.Split(x, axis, num_splits=n, name=node.name)
        elif dim >= 0:
            parts = b.VariadicSplit(x, axis, np.array(split_lengths(dim, n), np.int64), name=node.name)
        else:
            size = b.Gather(b.ShapeOf(x, output_type="i64"), np.array([node.axis], np.int64), np.int64(0))
            chunk = b.Divide(b.Add(size, np.int64(n - 1)), np.int64(n))
            parts = [b.Slice(x, b.Multiply(chunk, np.int64(i)), b.Multiply(chunk, np.int64(i + 1)),
                             np.ones(1, np.int64), np.array([node.axis], np.int64), name=f"{node.name}:{i}")
                     for i in range(n)]
        return list(parts) if isinstance(parts, (tuple, list)) else [parts]
