"""ONNX RoiAlign in max mode: each sample point contributes the largest of its four bilinear
terms (weight * pixel) rather than their sum, which OpenVINO's ROIAlign does not do; with a fixed
sampling_ratio the pooling is decomposed into gathers and reductions."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from extensions.middle.nn_common import as_float, as_type, dim
from mo.graph.builder import OpBuilder
from mo.graph.port import Port


def sample_positions(b: OpBuilder, start, extent, bins: int, grid: int) -> Port:
    """[R, bins * grid] positions: grid points evenly inside each of ``bins`` bins of
    [start, start + extent] (start and extent [R])."""
    offsets = np.array([p + (i + 0.5) / grid for p in range(bins) for i in range(grid)], np.float32) / bins
    return b.Add(b.Unsqueeze(start, np.int64(1)), b.Multiply(b.Unsqueeze(extent, np.int64(1)), offsets))


def bilinear_axis(b: OpBuilder, pos, size) -> tuple[Port, Port, Port, Port, Port]:
    """(low index, high index, low weight, high weight, inside) of positions along an axis of
    ``size`` pixels, as the reference computes them: positions beyond [-1, size] are outside,
    others are clamped to [0, size - 1]."""
    length = as_float(b, size)
    last = b.Subtract(length, np.float32(1))
    inside = b.LogicalAnd(b.GreaterEqual(pos, np.float32(-1)), b.LessEqual(pos, length))
    clamped = b.Maximum(pos, np.float32(0))
    low = b.Floor(clamped)
    at_end = b.GreaterEqual(low, last)
    low = b.Select(at_end, last, low)
    high = b.Select(at_end, last, b.Add(low, np.float32(1)))
    high_weight = b.Subtract(b.Select(at_end, low, clamped), low)
    return low, high, b.Subtract(np.float32(1), high_weight), high_weight, inside


class RoiAlignMaxToGather(MiddleReplaceOp):
    """The ROIAlign nodes of ONNX max-mode RoiAlign (``onnx_max``): sample points per bin on a
    sampling_ratio x sampling_ratio grid, the four weighted corner pixels of each gathered from
    the roi's image, the largest term per point, then the largest per bin."""

    op = "ROIAlign"

    def replace_op(self, graph, node):
        if not node.get("onnx_max"):
            return None
        b = OpBuilder(graph, node.name)
        x, rois, batch = (node.in_port(i).get_source() for i in range(3))
        height, width = dim(b, x, 2), dim(b, x, 3)
        scaled = b.Multiply(rois, np.float32(node.spatial_scale))
        if node.aligned_mode == "half_pixel_for_nn":
            scaled = b.Subtract(scaled, np.float32(0.5))
        x1, y1, x2, y2 = b.Split(scaled, np.int64(1), num_splits=4)
        x1, y1, x2, y2 = (b.Squeeze(c, np.array([1], np.int64)) for c in (x1, y1, x2, y2))
        roi_w, roi_h = b.Subtract(x2, x1), b.Subtract(y2, y1)
        if node.aligned_mode != "half_pixel_for_nn":
            roi_w, roi_h = b.Maximum(roi_w, np.float32(1)), b.Maximum(roi_h, np.float32(1))
        grid, ph, pw = node.sampling_ratio, node.pooled_h, node.pooled_w
        ys = bilinear_axis(b, sample_positions(b, y1, roi_h, ph, grid), height)
        xs = bilinear_axis(b, sample_positions(b, x1, roi_w, pw, grid), width)
        images = b.Gather(x, batch, np.int64(0))                                   # [R, C, H, W]
        pixels = b.Transpose(b.Reshape(images, np.array([0, 0, -1], np.int64), special_zero=True),
                             np.array([0, 2, 1], np.int64))                        # [R, H*W, C]
        col = lambda t: b.Unsqueeze(t, np.int64(2))  # noqa: E731   [R, Y] -> [R, Y, 1]
        row = lambda t: b.Unsqueeze(t, np.int64(1))  # noqa: E731   [R, X] -> [R, 1, X]
        inside = as_type(b, b.LogicalAnd(col(ys[4]), row(xs[4])), x.data.get_dtype())
        flat = np.array([0, -1], np.int64)
        best = None
        for y_index, y_weight in ((ys[0], ys[2]), (ys[1], ys[3])):
            for x_index, x_weight in ((xs[0], xs[2]), (xs[1], xs[3])):
                index = b.Add(b.Multiply(col(y_index), as_float(b, width)), row(x_index))
                weight = b.Multiply(b.Multiply(col(y_weight), row(x_weight)), inside)
                values = b.Gather(pixels, b.Convert(b.Reshape(index, flat, special_zero=True), destination_type="i64"),
                                  np.int64(1), batch_dims=1)                       # [R, S, C]
                term = b.Multiply(values, b.Unsqueeze(b.Reshape(weight, flat, special_zero=True), np.int64(-1)))
                best = term if best is None else b.Maximum(best, term)
        per_bin = b.Reshape(best, np.array([0, ph, grid, pw, grid, -1], np.int64), special_zero=True)
        pooled = b.ReduceMax(per_bin, np.array([2, 4], np.int64), keep_dims=False)   # [R, PH, PW, C]
        return [b.Transpose(pooled, np.array([0, 3, 1, 2], np.int64), name=node.name)]
