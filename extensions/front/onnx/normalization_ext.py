"""Extractors of the ONNX normalization operators."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import ONNX_TO_ET
from extensions.ops.normalization import BatchNormInference, GroupNormalization
from extensions.ops.onnx_nn_internal import (
    OnnxBatchNormTraining,
    OnnxGroupNormPerGroup,
    OnnxInstanceNorm,
    OnnxLayerNorm,
    OnnxLpNormalization,
    OnnxLRN,
    OnnxMeanVarianceNormalization,
    OnnxRMSNorm,
)


class BatchNormalizationExtractor(OnnxExtractor):
    """Inference form -> BatchNormInference; ``training_mode`` (opset 14+) uses batch statistics."""

    op_types = ("BatchNormalization",)

    @classmethod
    def extract(cls, node):
        if int(cls.attr(node, "spatial", 1)) == 0:
            raise ValueError("BatchNormalization with spatial=0 (per-element statistics) is not supported")
        epsilon = float(cls.attr(node, "epsilon", 1e-5))
        if int(cls.attr(node, "training_mode", 0)):
            OnnxBatchNormTraining.update_node(node, {"epsilon": epsilon,
                                                     "momentum": float(cls.attr(node, "momentum", 0.9))})
        else:
            BatchNormInference.update_node(node, {"epsilon": epsilon, "num_outputs": 1})


def stash_attrs(ext, node) -> dict:
    return {"axis": int(ext.attr(node, "axis", -1)), "epsilon": float(ext.attr(node, "epsilon", 1e-5)),
            "stash_dtype": ONNX_TO_ET.get(int(ext.attr(node, "stash_type", 1)), "f32")}


class LayerNormalizationExtractor(OnnxExtractor):
    op_types = ("LayerNormalization",)

    @classmethod
    def extract(cls, node):
        OnnxLayerNorm.update_node(node, stash_attrs(cls, node))


class RMSNormalizationExtractor(OnnxExtractor):
    op_types = ("RMSNormalization",)

    @classmethod
    def extract(cls, node):
        OnnxRMSNorm.update_node(node, stash_attrs(cls, node))


class InstanceNormalizationExtractor(OnnxExtractor):
    op_types = ("InstanceNormalization",)

    @classmethod
    def extract(cls, node):
        OnnxInstanceNorm.update_node(node, {"epsilon": float(cls.attr(node, "epsilon", 1e-5))})


class GroupNormalizationExtractor(OnnxExtractor):
    """Opset 21+: scale and bias per channel, as GroupNormalization; opset 18: per group."""

    op_types = ("GroupNormalization",)

    @classmethod
    def extract(cls, node):
        attrs = {"num_groups": int(cls.attr(node, "num_groups")), "epsilon": float(cls.attr(node, "epsilon", 1e-5))}
        if node.opset >= 21:
            GroupNormalization.update_node(node, attrs)
        else:
            OnnxGroupNormPerGroup.update_node(node, attrs)


class LRNExtractor(OnnxExtractor):
    op_types = ("LRN",)

    @classmethod
    def extract(cls, node):
        OnnxLRN.update_node(node, {"alpha": float(cls.attr(node, "alpha", 1e-4)),
                                   "beta": float(cls.attr(node, "beta", 0.75)),
                                   "bias": float(cls.attr(node, "bias", 1.0)), "size": int(cls.attr(node, "size"))})


class LpNormalizationExtractor(OnnxExtractor):
    op_types = ("LpNormalization",)

    @classmethod
    def extract(cls, node):
        p = int(cls.attr(node, "p", 2))
        if p not in (1, 2):
            raise ValueError(f"LpNormalization with p={p}: only 1 and 2 are defined")
        OnnxLpNormalization.update_node(node, {"p": p, "axis": int(cls.attr(node, "axis", -1))})


class MeanVarianceNormalizationExtractor(OnnxExtractor):
    op_types = ("MeanVarianceNormalization",)

    @classmethod
    def extract(cls, node):
        OnnxMeanVarianceNormalization.update_node(node, {"axes": cls.ints(node, "axes", [0, 2, 3])})
