"""Extractors of the other layout-aware TensorFlow operations: FusedBatchNorm, the resizes,
DepthToSpace / SpaceToDepth and SpaceToBatchND / BatchToSpaceND."""
from __future__ import annotations

from extensions.load.tf.attributes import TfExtractor
from extensions.ops.tf_internal import TfDepthSpace, TfFusedBatchNorm, TfResize, TfSpaceBatch
from mo.errors import ConversionError


class FusedBatchNormExtractor(TfExtractor):
    """FusedBatchNorm(V2/V3) at inference (is_training false): normalises with the given mean
    and variance; outputs other than y are not computed."""

    op_types = ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")

    @classmethod
    def extract(cls, node):
        if cls.attr(node, "is_training", True):
            raise ConversionError(f"{node.fw_op} '{node.name}' is in training mode (is_training=true); freeze the "
                                  f"model for inference.")
        TfFusedBatchNorm.update_node(node, {"epsilon": float(cls.attr(node, "epsilon", 1e-4)),
                                            "data_format": cls.data_format(node), "num_outputs": 6})


class ResizeExtractor(TfExtractor):
    op_types = ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic")
    modes = {"ResizeBilinear": "linear", "ResizeNearestNeighbor": "nearest", "ResizeBicubic": "cubic"}

    @classmethod
    def extract(cls, node):
        TfResize.update_node(node, {"mode": cls.modes[node.fw_op],
                                    "align_corners": bool(cls.attr(node, "align_corners", False)),
                                    "half_pixel_centers": bool(cls.attr(node, "half_pixel_centers", False))})


class DepthSpaceExtractor(TfExtractor):
    op_types = ("DepthToSpace", "SpaceToDepth")

    @classmethod
    def extract(cls, node):
        if cls.data_format(node) not in ("NHWC", "NCHW"):
            raise ConversionError(f"{node.fw_op} '{node.name}' has data_format {cls.data_format(node)}, which is "
                                  f"not supported.")
        TfDepthSpace.update_node(node, {"block_size": int(cls.attr(node, "block_size")),
                                        "data_format": cls.data_format(node),
                                        "to_space": node.fw_op == "DepthToSpace"})


class SpaceBatchExtractor(TfExtractor):
    op_types = ("SpaceToBatchND", "BatchToSpaceND")

    @classmethod
    def extract(cls, node):
        TfSpaceBatch.update_node(node, {"to_batch": node.fw_op == "SpaceToBatchND"})
