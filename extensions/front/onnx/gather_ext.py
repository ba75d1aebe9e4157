"""Extractors of the ONNX indexing operators: Gather, GatherElements, GatherND, Scatter,
ScatterElements, ScatterND, NonZero, Compress, OneHot."""
from __future__ import annotations

from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.gather_scatter import Gather, GatherElements, GatherND, ScatterElementsUpdate, ScatterNDUpdate
from extensions.ops.onnx_tensor_internal import OnnxCompress, OnnxOneHot
from extensions.ops.sorting import NonZero

# ONNX scatter ``reduction`` -> OpenVINO ``reduction``.
REDUCTION = {"none": "none", "add": "sum", "mul": "prod", "max": "max", "min": "min"}


def reduction(ext, node) -> str:
    value = ext.attr(node, "reduction", "none")
    if value not in REDUCTION:
        raise ValueError(f"unknown reduction '{value}'")
    return REDUCTION[value]


class GatherExtractor(OnnxExtractor):
    op_types = ("Gather",)

    @classmethod
    def extract(cls, node):
        add_const_input(node, 2, int(cls.attr(node, "axis", 0)), "axis")
        Gather.update_node(node, {"batch_dims": 0})


class GatherElementsExtractor(OnnxExtractor):
    op_types = ("GatherElements",)

    @classmethod
    def extract(cls, node):
        GatherElements.update_node(node, {"axis": int(cls.attr(node, "axis", 0))})


class GatherNDExtractor(OnnxExtractor):
    op_types = ("GatherND",)

    @classmethod
    def extract(cls, node):
        GatherND.update_node(node, {"batch_dims": int(cls.attr(node, "batch_dims", 0))})


class ScatterElementsExtractor(OnnxExtractor):
    """ScatterElements and the older Scatter: the ``axis`` becomes input 3."""

    op_types = ("ScatterElements", "Scatter")

    @classmethod
    def extract(cls, node):
        add_const_input(node, 3, int(cls.attr(node, "axis", 0)), "axis")
        ScatterElementsUpdate.update_node(node, {"reduction": reduction(cls, node), "use_init_val": True})


class ScatterNDExtractor(OnnxExtractor):
    op_types = ("ScatterND",)

    @classmethod
    def extract(cls, node):
        ScatterNDUpdate.update_node(node, {"reduction": reduction(cls, node)})


class NonZeroExtractor(OnnxExtractor):
    op_types = ("NonZero",)

    @classmethod
    def extract(cls, node):
        NonZero.update_node(node, {"output_type": "i64"})


class CompressExtractor(OnnxExtractor):
    op_types = ("Compress",)

    @classmethod
    def extract(cls, node):
        axis = cls.attr(node, "axis")
        OnnxCompress.update_node(node, {"axis": None if axis is None else int(axis)})


class OneHotExtractor(OnnxExtractor):
    op_types = ("OneHot",)

    @classmethod
    def extract(cls, node):
        OnnxOneHot.update_node(node, {"axis": int(cls.attr(node, "axis", -1))})
