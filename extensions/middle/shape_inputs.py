"""Middle-phase rewrites of opset shape ops whose form the OpenVINO runtime cannot take as is,
whichever framework made them (ONNX Unsqueeze / Tile, TensorFlow ExpandDims / Tile, ATen repeat):
Unsqueeze with non-constant axes (OpenVINO gives it a dynamic rank) and Tile with non-constant
repeats (wrong results on the CPU plugin)."""
from __future__ import annotations

import numpy as np

from extensions.middle.constant_folding import ConstantFolding
from mo.graph.builder import OpBuilder
from mo.graph.building import i64
from mo.pipeline.transform import ReplaceOp


class UnsqueezeDynamicAxes(ReplaceOp):
    """Unsqueeze(x, axes) with axes unknown but of known length n -> Reshape(x, target): the
    target has ones at the (normalised) axes and x's dims, in order, elsewhere."""

    phase = "middle"
    op = "Unsqueeze"

    def run_before(self):
        return [ConstantFolding]     # the constant pieces it builds get folded

    def replace_op(self, graph, node):
        rank = node.in_port(0).data.get_rank()
        axes_shape = node.in_port(1).data.get_shape()
        if (node.in_port(1).data.get_value() is not None or rank is None or axes_shape is None
                or any(d < 0 for d in axes_shape)):
            return None
        n = int(np.prod(axes_shape))
        out_rank = rank + n
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        axes = b.FloorMod(b.Convert(b.Reshape(node.in_port(1).get_source(), i64(-1)), destination_type="i64"),
                          i64(out_rank))
        inserted = b.ScatterUpdate(np.zeros(out_rank, np.int64), axes, np.ones(n, np.int64), i64(0))
        kept = b.Reshape(b.NonZero(b.Equal(inserted, i64(0)), output_type="i64"), i64(-1))
        target = b.ScatterUpdate(np.ones(out_rank, np.int64), kept, b.ShapeOf(x, output_type="i64"), i64(0))
        return [b.Reshape(x, target, special_zero=False, name=node.name)]


class TileDynamicRepeats(ReplaceOp):
    """Tile(x, repeats) with repeats unknown and len(repeats) == rank(x) -> Reshape(Broadcast(
    x viewed as [1, d0, 1, d1, ...], [r0, d0, r1, d1, ...]), repeats * dims)."""

    phase = "middle"
    op = "Tile"

    def run_before(self):
        return [ConstantFolding]     # the constant pieces it builds get folded

    def replace_op(self, graph, node):
        rank = node.in_port(0).data.get_rank()
        if node.in_port(1).data.get_value() is not None or rank is None \
                or node.in_port(1).data.get_shape() != (rank,):
            return None
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        repeats = b.Convert(node.in_port(1).get_source(), destination_type="i64")
        dims = b.ShapeOf(x, output_type="i64")
        spread = b.Unsqueeze(x, np.arange(0, 2 * rank, 2, dtype=np.int64))
        pairs = b.Concat(b.Unsqueeze(repeats, i64(1)), b.Unsqueeze(dims, i64(1)), axis=1)
        wide = b.Broadcast(spread, b.Reshape(pairs, i64(-1)), mode="numpy")
        return [b.Reshape(wide, b.Multiply(repeats, dims), special_zero=False, name=node.name)]
