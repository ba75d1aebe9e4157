"""Extractors of ONNX EyeLike, Trilu and Col2Im."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import element_type_of
from extensions.ops.onnx_tensor_internal import OnnxCol2Im, OnnxEyeLike, OnnxTrilu


class EyeLikeExtractor(OnnxExtractor):
    """EyeLike: ``dtype`` (default: the input's element type) and diagonal offset ``k``."""

    op_types = ("EyeLike",)

    @classmethod
    def extract(cls, node):
        dtype = cls.attr(node, "dtype")
        OnnxEyeLike.update_node(node, {"k": int(cls.attr(node, "k", 0)),
                                       "dtype": None if dtype is None else element_type_of(int(dtype))})


class TriluExtractor(OnnxExtractor):
    op_types = ("Trilu",)

    @classmethod
    def extract(cls, node):
        OnnxTrilu.update_node(node, {"upper": bool(cls.attr(node, "upper", 1))})


class Col2ImExtractor(OnnxExtractor):
    """Col2Im: ``strides``, ``dilations`` and ``pads`` ([begins..., ends...]) per image dim, None
    when absent (the number of image dims may be known only from input 1's shape)."""

    op_types = ("Col2Im",)

    @classmethod
    def extract(cls, node):
        pads = cls.ints(node, "pads")
        OnnxCol2Im.update_node(node, {"strides": cls.ints(node, "strides"), "dilations": cls.ints(node, "dilations"),
                                      "pads_begin": None if pads is None else pads[:len(pads) // 2],
                                      "pads_end": None if pads is None else pads[len(pads) // 2:]})
