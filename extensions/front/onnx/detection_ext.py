"""Extractors of ONNX RoiAlign, NonMaxSuppression, GridSample and AffineGrid."""
from __future__ import annotations

import logging

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.detection import GridSample, ROIAlign
from extensions.ops.onnx_nn_internal import OnnxAffineGrid, OnnxNonMaxSuppression

log = logging.getLogger("mo")

# RoiAlign coordinate_transformation_mode -> ROIAlign aligned_mode.
ALIGNED_MODE = {"half_pixel": "half_pixel_for_nn", "output_half_pixel": "asymmetric"}
GRID_SAMPLE_MODE = {"linear": "bilinear", "bilinear": "bilinear", "cubic": "bicubic", "bicubic": "bicubic",
                    "nearest": "nearest"}


class RoiAlignExtractor(OnnxExtractor):
    """Opset 16 added coordinate_transformation_mode (default half_pixel); before, the
    coordinates were those of output_half_pixel. Max mode with a fixed sampling_ratio is
    marked ``onnx_max`` and decomposed in the middle phase (ONNX's max differs from the op's)."""

    op_types = ("RoiAlign",)

    @classmethod
    def extract(cls, node):
        default = "half_pixel" if node.opset >= 16 else "output_half_pixel"
        mode = cls.attr(node, "coordinate_transformation_mode", default)
        pool = cls.attr(node, "mode", "avg")
        sampling = int(cls.attr(node, "sampling_ratio", 0))
        if pool == "max" and sampling <= 0:
            log.warning("RoiAlign '%s': max mode with an adaptive sampling ratio is converted to ROIAlign, "
                        "whose max takes the largest interpolated sample, not ONNX's largest bilinear term",
                        node.name)
        ROIAlign.update_node(node, {
            "pooled_h": int(cls.attr(node, "output_height", 1)), "pooled_w": int(cls.attr(node, "output_width", 1)),
            "sampling_ratio": int(cls.attr(node, "sampling_ratio", 0)),
            "spatial_scale": float(cls.attr(node, "spatial_scale", 1.0)), "mode": pool,
            "aligned_mode": ALIGNED_MODE[mode], "onnx_max": pool == "max" and sampling > 0})


class NonMaxSuppressionExtractor(OnnxExtractor):
    op_types = ("NonMaxSuppression",)

    @classmethod
    def extract(cls, node):
        OnnxNonMaxSuppression.update_node(node, {"center_point_box": bool(cls.attr(node, "center_point_box", 0))})


class GridSampleExtractor(OnnxExtractor):
    op_types = ("GridSample",)

    @classmethod
    def extract(cls, node):
        GridSample.update_node(node, {"align_corners": bool(cls.attr(node, "align_corners", 0)),
                                      "mode": GRID_SAMPLE_MODE[cls.attr(node, "mode", "bilinear")],
                                      "padding_mode": cls.attr(node, "padding_mode", "zeros")})


class AffineGridExtractor(OnnxExtractor):
    op_types = ("AffineGrid",)

    @classmethod
    def extract(cls, node):
        OnnxAffineGrid.update_node(node, {"align_corners": bool(cls.attr(node, "align_corners", 0))})
