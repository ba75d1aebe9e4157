"""ONNX indexing operators: Gather, GatherElements, GatherND, Scatter, ScatterElements, ScatterND
and NonZero map to one opset op each; Compress and OneHot are translated."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.gather_scatter import Gather, GatherElements, GatherND, ScatterElementsUpdate, ScatterNDUpdate
from extensions.ops.sorting import NonZero
from mo.front.translator import translator
from mo.graph.building import as_scalar, convert, i64

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
    """Compress: ``axis``, None when absent (the input is flattened)."""

    op_types = ("Compress",)

    @classmethod
    def extract(cls, node):
        axis = cls.attr(node, "axis")
        node["axis"] = None if axis is None else int(axis)


@translator("onnx", "Compress")
def compress(node, b):
    """Compress(x, condition, axis) -> Gather(x, NonZero(condition), axis); without an axis x is
    flattened first."""
    x = node.in_port(0).get_source()
    axis = node.axis
    if axis is None:
        x = b.Reshape(x, i64(-1), special_zero=False)
        axis = 0
    cond = b.Reshape(node.in_port(1).get_source(), i64(-1), special_zero=False)
    indices = b.Reshape(b.NonZero(cond, output_type="i64"), i64(-1), special_zero=False)
    return [b.Gather(x, indices, np.int64(axis), batch_dims=0)]


class OneHotExtractor(OnnxExtractor):
    op_types = ("OneHot",)

    @classmethod
    def extract(cls, node):
        node["axis"] = int(cls.attr(node, "axis", -1))


@translator("onnx", "OneHot")
def one_hot(node, b):
    """OneHot(indices, depth, values=[off, on]) -> OneHot-16 with i64 indices (ONNX allows any
    numeric type), a scalar i64 depth, the two values split out, and negative indices counted from
    the end (as ONNX says)."""
    depth = convert(b, as_scalar(b, node.in_port(1).get_source()), "i64")
    values = node.in_port(2).get_source()
    off = b.Gather(values, np.int64(0), np.int64(0), batch_dims=0)
    on = b.Gather(values, np.int64(1), np.int64(0), batch_dims=0)
    indices = convert(b, node.in_port(0).get_source(), "i64")
    return [b.OneHot(indices, depth, on, off, axis=node.axis, negative_indices_mode="normalize")]
