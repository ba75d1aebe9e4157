"""TensorFlow reductions, TopKV2 and Softmax/LogSoftmax (extractors that set the opset op), and
TopK (v1) and ArgMax/ArgMin, translated to TopK."""
from __future__ import annotations

import numpy as np

from extensions.front.tf.shape import constant_input
from extensions.load.tf.attributes import TfExtractor
from mo.front.translator import translator
from mo.graph.building import convert, i64

# reductions over the axes in input 1, as the opset's
REDUCTIONS = {"Sum": "ReduceSum", "Mean": "ReduceMean", "Max": "ReduceMax", "Min": "ReduceMin", "Prod": "ReduceProd",
              "All": "ReduceLogicalAnd", "Any": "ReduceLogicalOr", "EuclideanNorm": "ReduceL2"}
ARG_MODES = {"ArgMax": "max", "ArgMin": "min"}


class ReduceExtractor(TfExtractor):
    op_types = tuple(REDUCTIONS)

    @classmethod
    def becomes(cls, op_type: str) -> list[str]:
        return [REDUCTIONS[op_type]]

    @classmethod
    def extract(cls, node):
        node.graph.registry.op(REDUCTIONS[node.fw_op]).update_node(
            node, {"keep_dims": bool(cls.attr(node, "keep_dims", False))})


class TopKExtractor(TfExtractor):
    """TopKV2(input, k) along the last axis; values sorted when ``sorted``; i32 indices."""

    op_types = ("TopKV2",)

    @classmethod
    def extract(cls, node):
        node.graph.registry.op("TopK").update_node(node, {
            "axis": -1, "mode": "max", "sort": "value" if cls.attr(node, "sorted", True) else "none",
            "index_element_type": cls.dtype(node, "index_type") or "i32", "stable": True, "num_outputs": 2})


class SoftmaxExtractor(TfExtractor):
    """Softmax / LogSoftmax along the last axis."""

    op_types = ("Softmax", "LogSoftmax")

    @classmethod
    def becomes(cls, op_type: str) -> list[str]:
        return [op_type]

    @classmethod
    def extract(cls, node):
        node.graph.registry.op(node.fw_op).update_node(node, {"axis": -1})


@translator("tf", "TopK")
def top_k_v1(node, b):
    """TopK (v1): ``k`` is an attribute; otherwise as TopKV2."""
    k = int(TfExtractor.attr(node, "k", 0))
    values, indices = b.TopK(node.in_port(0).get_source(), np.int32(k), axis=-1, mode="max",
                             sort="value" if TfExtractor.attr(node, "sorted", True) else "none",
                             index_element_type="i32", stable=True)
    return [values, indices]


@translator("tf", "ArgMax", "ArgMin")
def arg_max_min(node, b):
    """The indices of TopK (max or min) with k = 1 (the first index among equals) along
    ``dimension``, squeezed. TopK's index type is i32 or i64: an i16/u16 ``output_type`` is
    computed in i32 and converted."""
    axis = int(constant_input(node, 1, "dimension"))
    out_type = TfExtractor.dtype(node, "output_type") or "i64"
    _, indices = b.TopK(node.in_port(0).get_source(), np.int64(1), axis=axis, mode=ARG_MODES[node.fw_op],
                        sort="value", index_element_type="i64" if out_type == "i64" else "i32", stable=True)
    return [convert(b, b.Squeeze(indices, i64(axis)), out_type)]
