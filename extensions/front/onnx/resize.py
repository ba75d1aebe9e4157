"""ONNX Resize and Upsample: the extractor reads and checks the attributes, the translator builds
Interpolate-11 or, for the forms Interpolate cannot express, the exact resampler
(``extensions/front/common/resize.py``)."""
from __future__ import annotations

from extensions.front.common.resize import ResizeSpec, build_resize
from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import input_rank, node_label, norm_axis, require_ranks

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
        node.update(attrs)


def _target(node, key: str):
    """The output port feeding the scales or sizes, or None when absent or empty."""
    port = node.get(key)
    if port is None or not node.is_in_port_connected(port):
        return None
    source = node.in_port(port).get_source()
    return None if source.data.get_shape() == (0,) else source


@translator("onnx", "Resize", "Upsample")
def resize(node, b):
    """Over ``axes`` (all dims by default), by the sizes input if there is one, else the scales."""
    x = node.in_port(0).get_source()
    rank = input_rank(node)
    require_ranks(node, {p: 1 for p in (1, node.scales_port, node.sizes_port) if p is not None},
                  " (roi, scales and sizes are 1-D)")
    axes = list(range(rank)) if node.axes is None else [norm_axis(a, rank, node) for a in node.axes]
    sizes, scales = _target(node, "sizes_port"), _target(node, "scales_port")
    if sizes is None and scales is None:
        raise ConversionError(f"Resize {node_label(node)} has neither scales nor sizes.")
    for what, target in (("sizes", sizes), ("scales", scales)):
        shape = None if target is None else target.data.get_shape()
        count = shape[0] if shape else None
        if count is not None and count >= 0 and count != len(axes):
            raise ConversionError(f"Resize {node_label(node)} gives {count} {what} for {len(axes)} axes: the model "
                                  f"is invalid.")
    spec = ResizeSpec(mode=node.mode, coordinate_transformation_mode=node.coordinate_transformation_mode,
                      nearest_mode=node.nearest_mode, cube_coeff=node.cube_coeff, antialias=node.antialias,
                      exclude_outside=node.exclude_outside, extrapolation_value=node.extrapolation_value,
                      keep_aspect_ratio_policy=node.keep_aspect_ratio_policy)
    roi = node.in_port(1).get_source() if spec.coordinate_transformation_mode == "tf_crop_and_resize" else None
    return [build_resize(b, spec, x, axes, sizes, scales, roi)]
