"""Extractors of ONNX Resize and Upsample (lowered to Interpolate-11 in the middle phase)."""
from __future__ import annotations

from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.onnx_tensor_internal import OnnxResize

MODES = {"nearest": "nearest", "linear": "linear_onnx", "bilinear": "linear_onnx", "cubic": "cubic"}
COORDINATES = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
               "half_pixel_symmetric", "tf_crop_and_resize")
NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
POLICIES = ("stretch", "not_larger", "not_smaller")


def _choice(value: str, allowed, what: str) -> str:
    if value not in allowed:
        raise ValueError(f"unknown {what} '{value}'")
    return value


class ResizeExtractor(OnnxExtractor):
    """Resize from opset 11: inputs (X, roi, scales, sizes). Opset 10 Resize and Upsample
    (scales in input 1, or the ``scales`` attribute of Upsample-7) use asymmetric coordinates
    and the 'simple' nearest rounding, as ONNX Runtime does for them."""

    op_types = ("Resize", "Upsample")

    @classmethod
    def extract(cls, node):
        mode = _choice(cls.attr(node, "mode", "nearest"), MODES, "mode")
        attrs = {"mode": MODES[mode], "axes": cls.ints(node, "axes"), "antialias": bool(cls.attr(node, "antialias", 0)),
                 "cube_coeff": float(cls.attr(node, "cubic_coeff_a", -0.75)),
                 "exclude_outside": bool(cls.attr(node, "exclude_outside", 0)),
                 "extrapolation_value": float(cls.attr(node, "extrapolation_value", 0.0)),
                 "keep_aspect_ratio_policy": _choice(cls.attr(node, "keep_aspect_ratio_policy", "stretch"),
                                                     POLICIES, "keep_aspect_ratio_policy")}
        if node.fw_op == "Upsample" or node.opset < 11:
            scales = cls.attr(node, "scales")
            if scales is not None:
                add_const_input(node, 1, [float(s) for s in scales], "scales", dtype="float32")
            attrs.update(scales_port=1, sizes_port=None, coordinate_transformation_mode="asymmetric",
                         nearest_mode="simple")
        else:
            attrs.update(scales_port=2, sizes_port=3,
                         coordinate_transformation_mode=_choice(
                             cls.attr(node, "coordinate_transformation_mode", "half_pixel"), COORDINATES,
                             "coordinate_transformation_mode"),
                         nearest_mode=_choice(cls.attr(node, "nearest_mode", "round_prefer_floor"), NEAREST,
                                              "nearest_mode"))
        OnnxResize.update_node(node, attrs)
