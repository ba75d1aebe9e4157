"""ONNX detection operators: RoiAlign and NonMaxSuppression, their extractors and translators."""
from __future__ import annotations

import logging

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, dim, i64
from mo.graph.node import Node
from mo.graph.port import Port

log = logging.getLogger("mo")

# RoiAlign coordinate_transformation_mode -> ROIAlign aligned_mode.
ALIGNED_MODE = {"half_pixel": "half_pixel_for_nn", "output_half_pixel": "asymmetric"}
# Values of absent optional NonMaxSuppression inputs: no box selected, any overlap suppresses, no
# score filter.
NMS_DEFAULTS = {2: np.array(0, np.int64), 3: np.array(0, np.float32), 4: np.array(np.finfo(np.float32).min)}


class RoiAlignExtractor(OnnxExtractor):
    """Opset 16 added coordinate_transformation_mode (default half_pixel); before, the
    coordinates were those of output_half_pixel. Max mode with a fixed sampling_ratio is
    marked ``onnx_max``: ONNX's max differs from the op's, so it is decomposed."""

    op_types = ("RoiAlign",)

    @classmethod
    def extract(cls, node):
        default = "half_pixel" if node.opset >= 16 else "output_half_pixel"
        mode = cls.attr(node, "coordinate_transformation_mode", default)
        if mode not in ALIGNED_MODE:
            raise ValueError(f"unknown coordinate_transformation_mode '{mode}'")
        pool = cls.attr(node, "mode", "avg")
        sampling = int(cls.attr(node, "sampling_ratio", 0))
        if pool == "max" and sampling <= 0:
            log.warning("RoiAlign '%s': max mode with an adaptive sampling ratio is converted to ROIAlign, "
                        "whose max takes the largest interpolated sample, not ONNX's largest bilinear term",
                        node.name)
        node.update({
            "pooled_h": int(cls.attr(node, "output_height", 1)), "pooled_w": int(cls.attr(node, "output_width", 1)),
            "sampling_ratio": sampling, "spatial_scale": float(cls.attr(node, "spatial_scale", 1.0)),
            "mode": pool, "aligned_mode": ALIGNED_MODE[mode], "onnx_max": pool == "max" and sampling > 0})


@translator("onnx", "RoiAlign")
def roi_align(node: Node, b: OpBuilder) -> list[Port]:
    """ROIAlign; max mode with a fixed sampling_ratio is decomposed (``roi_align_max``)."""
    inputs = [node.in_port(i).get_source() for i in range(3)]
    if node.onnx_max:
        return [roi_align_max(b, node, *inputs)]
    return [b.ROIAlign(*inputs, **{k: node[k] for k in ("pooled_h", "pooled_w", "sampling_ratio", "spatial_scale",
                                                          "mode", "aligned_mode")})]


def sample_positions(b: OpBuilder, start, extent, bins: int, grid: int) -> Port:
    """[R, bins * grid] positions: grid points evenly inside each of ``bins`` bins of
    [start, start + extent] (start and extent [R])."""
    offsets = np.array([p + (i + 0.5) / grid for p in range(bins) for i in range(grid)], np.float32) / bins
    return b.Add(b.Unsqueeze(start, np.int64(1)), b.Multiply(b.Unsqueeze(extent, np.int64(1)), offsets))


def bilinear_axis(b: OpBuilder, pos, length: Port) -> tuple[Port, Port, Port, Port, Port]:
    """(low index, high index, low weight, high weight, inside) of positions along an axis of
    ``length`` (f32) pixels, as the reference computes them: positions beyond [-1, length] are
    outside, others are clamped to [0, length - 1]."""
    last = b.Subtract(length, np.float32(1))
    inside = b.LogicalAnd(b.GreaterEqual(pos, np.float32(-1)), b.LessEqual(pos, length))
    clamped = b.Maximum(pos, np.float32(0))
    low = b.Floor(clamped)
    at_end = b.GreaterEqual(low, last)
    low = b.Select(at_end, last, low)
    high = b.Select(at_end, last, b.Add(low, np.float32(1)))
    high_weight = b.Subtract(b.Select(at_end, low, clamped), low)
    return low, high, b.Subtract(np.float32(1), high_weight), high_weight, inside


def roi_align_max(b: OpBuilder, node: Node, x: Port, rois: Port, batch: Port) -> Port:
    """ONNX max-mode RoiAlign: each sample point contributes the largest of its four bilinear
    terms (weight * pixel) rather than their sum, which ROIAlign does not do. Sample points per
    bin on a sampling_ratio x sampling_ratio grid, the four weighted corner pixels of each
    gathered from the roi's image, the largest term per point, then the largest per bin."""
    height, width = (convert(b, dim(b, x, axis), "f32") for axis in (2, 3))
    scaled = b.Multiply(rois, np.float32(node.spatial_scale))
    if node.aligned_mode == "half_pixel_for_nn":
        scaled = b.Subtract(scaled, np.float32(0.5))
    x1, y1, x2, y2 = (b.Squeeze(c, i64(1)) for c in b.Split(scaled, np.int64(1), num_splits=4))
    roi_w, roi_h = b.Subtract(x2, x1), b.Subtract(y2, y1)
    if node.aligned_mode != "half_pixel_for_nn":
        roi_w, roi_h = b.Maximum(roi_w, np.float32(1)), b.Maximum(roi_h, np.float32(1))
    grid, ph, pw = node.sampling_ratio, node.pooled_h, node.pooled_w
    ys = bilinear_axis(b, sample_positions(b, y1, roi_h, ph, grid), height)
    xs = bilinear_axis(b, sample_positions(b, x1, roi_w, pw, grid), width)
    images = b.Gather(x, batch, np.int64(0))                                   # [R, C, H, W]
    pixels = b.Transpose(b.Reshape(images, i64(0, 0, -1), special_zero=True), i64(0, 2, 1))  # [R, H*W, C]
    col = lambda t: b.Unsqueeze(t, np.int64(2))  # noqa: E731   [R, Y] -> [R, Y, 1]
    row = lambda t: b.Unsqueeze(t, np.int64(1))  # noqa: E731   [R, X] -> [R, 1, X]
    inside = convert(b, b.LogicalAnd(col(ys[4]), row(xs[4])), x.data.get_dtype())
    flat = i64(0, -1)
    best = None
    for y_index, y_weight in ((ys[0], ys[2]), (ys[1], ys[3])):
        for x_index, x_weight in ((xs[0], xs[2]), (xs[1], xs[3])):
            index = b.Add(b.Multiply(col(y_index), width), row(x_index))
            weight = b.Multiply(b.Multiply(col(y_weight), row(x_weight)), inside)
            values = b.Gather(pixels, b.Convert(b.Reshape(index, flat, special_zero=True), destination_type="i64"),
                              np.int64(1), batch_dims=1)                       # [R, S, C]
            term = b.Multiply(values, b.Unsqueeze(b.Reshape(weight, flat, special_zero=True), np.int64(-1)))
            best = term if best is None else b.Maximum(best, term)
    per_bin = b.Reshape(best, i64(0, ph, grid, pw, grid, -1), special_zero=True)
    pooled = b.ReduceMax(per_bin, i64(2, 4), keep_dims=False)                 # [R, PH, PW, C]
    return b.Transpose(pooled, i64(0, 3, 1, 2))


@translator("onnx", "NonMaxSuppression")
def non_max_suppression(node: Node, b: OpBuilder) -> list[Port]:
    """NonMaxSuppression-9 (its selected_indices output), boxes kept in batch, class, score order;
    absent optional inputs get ONNX's defaults. ONNX suppresses a box whose IoU is above the
    threshold and the opset op one whose IoU reaches it, so the threshold is raised by a few ulps
    (and 0 to the smallest normal float)."""
    inputs = [node.in_port(i).get_source() if node.is_in_port_connected(i) else NMS_DEFAULTS[i] for i in range(5)]
    inputs[3] = b.Add(b.Multiply(inputs[3], np.float32(1 + 2 ** -22)), np.float32(np.finfo(np.float32).tiny))
    center = bool(OnnxExtractor.attr(node, "center_point_box", 0))
    selected, _, _ = b.NonMaxSuppression(*inputs, name=node.name, sort_result_descending=False, output_type="i64",
                                         box_encoding="center" if center else "corner")
    return [selected]
