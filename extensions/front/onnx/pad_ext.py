"""Extractors of ONNX Pad (``pads`` / ``value`` attributes before opset 11, inputs (data, pads,
constant_value, axes) after) and CenterCropPad."""
from __future__ import annotations

from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.onnx_tensor_internal import OnnxCenterCropPad, OnnxPad

MODES = ("constant", "reflect", "edge", "wrap")


class PadExtractor(OnnxExtractor):
    op_types = ("Pad",)

    @classmethod
    def extract(cls, node):
        mode = cls.attr(node, "mode", "constant")
        if mode not in MODES:
            raise ValueError(f"unknown mode '{mode}'")
        attrs = {"mode": mode, "value": None}
        if node.opset < 11:
            add_const_input(node, 1, cls.ints(node, "pads", cls.ints(node, "paddings")), "pads")
            attrs["value"] = float(cls.attr(node, "value", 0.0))
        OnnxPad.update_node(node, attrs)


class CenterCropPadExtractor(OnnxExtractor):
    op_types = ("CenterCropPad",)

    @classmethod
    def extract(cls, node):
        OnnxCenterCropPad.update_node(node, {"axes": cls.ints(node, "axes")})
