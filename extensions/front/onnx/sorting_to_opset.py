"""Lowering of ONNX TopK, ArgMax and ArgMin to TopK-11."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.building import as_scalar, reversed_along
from mo.pipeline.transform import ReplaceOp


class TopKToOpset(ReplaceOp):
    """ONNX TopK -> TopK-11 with a scalar k, i64 indices and, when sorted, ``stable`` (ONNX puts
    the lower index first among equal values); unsorted results may come in any order."""

    op = "onnx::TopK"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        values, indices = b.TopK(node.in_port(0).get_source(), as_scalar(b, node.in_port(1).get_source()),
                                 axis=node.axis, mode="max" if node.largest else "min",
                                 sort="value" if node.sorted else "none", index_element_type="i64",
                                 stable=node.sorted, name=node.name)
        return [values, indices]


class ArgMinMaxToTopK(ReplaceOp):
    """ArgMax / ArgMin -> indices of a stable TopK with k = 1 (Squeezed unless keepdims). For
    ``select_last_index`` the input is reversed along the axis and the index mirrored."""

    op = "onnx::ArgMinMax"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        axis = np.array([node.axis], np.int64)
        if node.select_last_index:
            x = reversed_along(b, x, node.axis)
        final = node.name if node.keepdims else None
        _, index = b.TopK(x, np.int64(1), axis=node.axis, mode=node.mode, sort="value", index_element_type="i64",
                          stable=True, name=None if node.select_last_index else final)
        if node.select_last_index:
            last = b.Subtract(b.Gather(b.ShapeOf(x, output_type="i64"), axis, np.int64(0)), np.int64(1))
            index = b.Subtract(last, index, name=final)
        if not node.keepdims:
            index = b.Squeeze(index, axis, name=node.name)
        return [index]
