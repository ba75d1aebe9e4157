"""Extractors of ONNX EyeLike, Trilu and Col2Im."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import element_type_of
from extensions.ops.onnx_tensor_internal import OnnxEyeLike, OnnxTrilu
from extensions.ops.rearrange import Col2Im


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
    """Col2Im: ONNX pads [begins..., ends...] -> pads_begin / pads_end (2-D images only in
    OpenVINO)."""

    op_types = ("Col2Im",)

    @classmethod
    def extract(cls, node):
        pads = cls.ints(node, "pads", [0, 0, 0, 0])
        half = len(pads) // 2
        n = max(half, len(cls.ints(node, "strides", [])), len(cls.ints(node, "dilations", [])), 2)
        if n != 2:
            raise ValueError(f"Col2Im of {n}-D images is not supported (OpenVINO Col2Im is 2-D)")
        Col2Im.update_node(node, {"strides": cls.ints(node, "strides", [1, 1]),
                                  "dilations": cls.ints(node, "dilations", [1, 1]),
                                  "pads_begin": pads[:half], "pads_end": pads[half:]})
