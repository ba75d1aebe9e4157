"""Extractors of ONNX activation and elementwise operators that take attributes.

Those with an opset op of the same meaning map to it (Elu, Gelu, IsInf, Mod, BitShift);
the others become onnx::Elementwise with their float attributes (defaults of the ONNX schema) and
are lowered in ``extensions/front/onnx/elementwise_to_opset.py``."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.elementwise import BitwiseLeftShift, BitwiseRightShift, Elu, FloorMod, Gelu, IsInf, Mod
from extensions.ops.onnx_math import OnnxElementwise

# ONNX op type -> its float attributes and their defaults.
LOWERED = {
    "Reciprocal": {}, "LeakyRelu": {"alpha": 0.01}, "ThresholdedRelu": {"alpha": 1.0},
    "Selu": {"alpha": 1.67326319217681884765625, "gamma": 1.05070102214813232421875},
    "Celu": {"alpha": 1.0}, "HardSigmoid": {"alpha": 0.2, "beta": 0.5}, "Shrink": {"bias": 0.0, "lambd": 0.5},
    "Swish": {"alpha": 1.0}, "Max": {}, "Min": {}, "Sum": {}, "Mean": {},
    "Clip": {"min": None, "max": None}, "ai.onnx.ml::Binarizer": {"threshold": 0.0},
}


class LoweredElementwiseExtractor(OnnxExtractor):
    op_types = tuple(LOWERED)

    @classmethod
    def extract(cls, node):
        attrs = {"variant": node.fw_op}
        for name, default in LOWERED[f"{node.domain}::{node.fw_op}" if node.domain else node.fw_op].items():
            value = cls.attr(node, name, default)
            attrs[name] = None if value is None else float(value)
        OnnxElementwise.update_node(node, attrs)


class EluExtractor(OnnxExtractor):
    op_types = ("Elu",)

    @classmethod
    def extract(cls, node):
        Elu.update_node(node, {"alpha": float(cls.attr(node, "alpha", 1.0))})


class GeluExtractor(OnnxExtractor):
    """Gelu(approximate="none"|"tanh") -> Gelu-7 (ERF|TANH)."""

    op_types = ("Gelu",)

    @classmethod
    def extract(cls, node):
        Gelu.update_node(node, {"approximation_mode": "TANH" if cls.attr(node, "approximate") == "tanh" else "ERF"})


class IsInfExtractor(OnnxExtractor):
    op_types = ("IsInf",)

    @classmethod
    def extract(cls, node):
        IsInf.update_node(node, {"detect_negative": bool(cls.attr(node, "detect_negative", 1)),
                                 "detect_positive": bool(cls.attr(node, "detect_positive", 1))})


class ModExtractor(OnnxExtractor):
    """Mod: fmod=1 is C fmod (sign of the dividend, Mod); fmod=0 the sign of the divisor (FloorMod)."""

    op_types = ("Mod",)

    @classmethod
    def extract(cls, node):
        (Mod if int(cls.attr(node, "fmod", 0)) else FloorMod).update_node(node)


class BitShiftExtractor(OnnxExtractor):
    op_types = ("BitShift",)

    @classmethod
    def extract(cls, node):
        op = BitwiseLeftShift if cls.attr(node, "direction") == "LEFT" else BitwiseRightShift
        op.update_node(node, {"onnx_bitshift": True})
