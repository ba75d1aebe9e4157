"""Extractors of ONNX TopK, ArgMax, ArgMin, Unique, CumSum and CumProd."""
from __future__ import annotations

from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.cumulative import CumSum
from extensions.ops.onnx_tensor_internal import OnnxArgMinMax, OnnxCumProd, OnnxTopK
from extensions.ops.sorting import Unique


class TopKExtractor(OnnxExtractor):
    """TopK: ``k`` is an attribute before opset 10; ``largest``/``sorted`` from opset 11."""

    op_types = ("TopK",)

    @classmethod
    def extract(cls, node):
        if node.opset < 10:
            add_const_input(node, 1, [int(cls.attr(node, "k"))], "k")
        OnnxTopK.update_node(node, {"axis": int(cls.attr(node, "axis", -1)),
                                    "largest": bool(cls.attr(node, "largest", 1)),
                                    "sorted": bool(cls.attr(node, "sorted", 1))})


class ArgMinMaxExtractor(OnnxExtractor):
    op_types = ("ArgMax", "ArgMin")

    @classmethod
    def extract(cls, node):
        OnnxArgMinMax.update_node(node, {"mode": "max" if node.fw_op == "ArgMax" else "min",
                                         "axis": int(cls.attr(node, "axis", 0)),
                                         "keepdims": bool(cls.attr(node, "keepdims", 1)),
                                         "select_last_index": bool(cls.attr(node, "select_last_index", 0))})


class UniqueExtractor(OnnxExtractor):
    """Unique: outputs (Y, indices, inverse_indices, counts) as Unique-10's; ``axis`` -> input 1."""

    op_types = ("Unique",)

    @classmethod
    def extract(cls, node):
        axis = cls.attr(node, "axis")
        if axis is not None:
            add_const_input(node, 1, int(axis), "axis")
        Unique.update_node(node, {"sorted": bool(cls.attr(node, "sorted", 1)),
                                  "index_element_type": "i64", "count_element_type": "i64"})


class CumulativeExtractor(OnnxExtractor):
    """CumSum -> CumSum-3; CumProd (no OpenVINO op) is lowered in the middle phase."""

    op_types = ("CumSum", "CumProd")

    @classmethod
    def extract(cls, node):
        attrs = {"exclusive": bool(cls.attr(node, "exclusive", 0)), "reverse": bool(cls.attr(node, "reverse", 0))}
        (CumSum if node.fw_op == "CumSum" else OnnxCumProd).update_node(node, attrs)
