"""Extractors of the TensorFlow reductions, ArgMax/ArgMin, TopKV2 and Softmax/LogSoftmax."""
from __future__ import annotations

from extensions.load.tf.attributes import TfExtractor
from extensions.ops.tf_internal import TfArgMinMax

# reductions over the axes in input 1, as the opset's
REDUCTIONS = {"Sum": "ReduceSum", "Mean": "ReduceMean", "Max": "ReduceMax", "Min": "ReduceMin", "Prod": "ReduceProd",
              "All": "ReduceLogicalAnd", "Any": "ReduceLogicalOr", "EuclideanNorm": "ReduceL2"}


class ReduceExtractor(TfExtractor):
    op_types = tuple(REDUCTIONS)

    @classmethod
    def extract(cls, node):
        node.graph.registry.op(REDUCTIONS[node.fw_op]).update_node(
            node, {"keep_dims": bool(cls.attr(node, "keep_dims", False))})


class ArgMinMaxExtractor(TfExtractor):
    op_types = ("ArgMax", "ArgMin")

    @classmethod
    def extract(cls, node):
        TfArgMinMax.update_node(node, {"mode": "max" if node.fw_op == "ArgMax" else "min",
                                       "output_type": cls.dtype(node, "output_type") or "i64"})


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
    def extract(cls, node):
        node.graph.registry.op(node.fw_op).update_node(node, {"axis": -1})
