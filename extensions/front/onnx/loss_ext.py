"""Extractors of ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.onnx_math import OnnxLoss


class LossExtractor(OnnxExtractor):
    op_types = ("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss")

    @classmethod
    def extract(cls, node):
        ignore = cls.attr(node, "ignore_index")
        OnnxLoss.update_node(node, {
            "variant": "NLL" if node.fw_op == "NegativeLogLikelihoodLoss" else "SCE",
            "reduction": cls.attr(node, "reduction", "mean"),
            "ignore_index": None if ignore is None else int(ignore)})
