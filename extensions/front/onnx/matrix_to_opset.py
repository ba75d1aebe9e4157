"""Shape-agnostic lowering of ONNX EyeLike (to Eye-9) and Trilu (to a Select by a mask made from
row and column Ranges)."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.port import Port
from mo.pipeline.transform import ReplaceOp


def dim(b: OpBuilder, shape: Port, index: int) -> Port:
    """Dimension ``index`` of a ShapeOf output as a scalar."""
    return b.Gather(shape, np.int64(index), np.int64(0))


class EyeLikeToEye(ReplaceOp):
    """EyeLike(x) -> Eye(rows, cols, k) of ``dtype``, or ConvertLike to x without one."""

    op = "onnx::EyeLike"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        shape = b.ShapeOf(x, output_type="i64")
        if node.dtype is not None:
            return [b.Eye(dim(b, shape, 0), dim(b, shape, 1), np.int64(node.k), output_type=node.dtype,
                          name=node.name)]
        eye = b.Eye(dim(b, shape, 0), dim(b, shape, 1), np.int64(node.k), output_type="f32")
        return [b.ConvertLike(eye, x, name=node.name)]


class TriluToSelect(ReplaceOp):
    """Trilu(x, k) -> Select(col >= row + k (upper) or col <= row + k (lower), x, 0) over the
    last two dims. (col - row compared with k would be simpler, but the CPU plugin crashes on a
    Subtract broadcast to a zero-size result.)"""

    op = "onnx::Trilu"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        shape = b.ShapeOf(x, output_type="i64")
        rows = b.Range(np.int64(0), dim(b, shape, -2), np.int64(1), output_type="i64")
        cols = b.Range(np.int64(0), dim(b, shape, -1), np.int64(1), output_type="i64")
        rows = b.Unsqueeze(rows, np.array([1], np.int64))
        if node.is_in_port_connected(1):
            rows = b.Add(rows, b.Convert(node.in_port(1).get_source(), destination_type="i64"))
        keep = b.GreaterEqual(cols, rows) if node.upper else b.LessEqual(cols, rows)
        return [b.Select(keep, x, b.ConvertLike(np.int64(0), x), name=node.name)]
