"""Extractors of ONNX Cast and CastLike (-> Convert / ConvertLike) and BitCast.

OpenVINO's Convert to a float8 type does not saturate (overflow gives NaN for f8e4m3 and inf
for f8e5m2), which is ONNX's ``saturate=0``; the ONNX default ``saturate=1`` is kept on the node
as ``saturate`` and lowered to a Clamp before the Convert (``extensions/middle/saturate_cast.py``)."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import element_type_of
from extensions.ops.elementwise import Convert, ConvertLike
from extensions.ops.onnx_math import OnnxBitCast


def target_type(ext, node) -> str:
    """The OpenVINO element type of the ``to`` attribute (not string)."""
    target = element_type_of(int(ext.attr(node, "to")), f" ({node.fw_op} '{node.name}')")
    if target == "string":
        raise ValueError(f"{node.fw_op} to string has no OpenVINO equivalent")
    return target


class CastExtractor(OnnxExtractor):
    """Cast(to, saturate): Convert to the OpenVINO element type of ``to``."""

    op_types = ("Cast",)

    @classmethod
    def extract(cls, node):
        Convert.update_node(node, {"destination_type": target_type(cls, node),
                                   "saturate": bool(cls.attr(node, "saturate", 1))})


class BitCastExtractor(OnnxExtractor):
    op_types = ("BitCast",)

    @classmethod
    def extract(cls, node):
        OnnxBitCast.update_node(node, {"destination_type": target_type(cls, node)})


class CastLikeExtractor(OnnxExtractor):
    """CastLike(x, like, saturate): ConvertLike."""

    op_types = ("CastLike",)

    @classmethod
    def extract(cls, node):
        ConvertLike.update_node(node, {"saturate": bool(cls.attr(node, "saturate", 1))})
