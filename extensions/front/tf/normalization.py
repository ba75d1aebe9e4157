"""TensorFlow FusedBatchNorm (V2/V3) at inference: BatchNormInference, channels-first."""
from __future__ import annotations

from extensions.front.tf.layout import back_to_data_format, in_channels_first
from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator


class FusedBatchNormExtractor(TfExtractor):
    """Reads ``epsilon`` and ``data_format``; training mode (is_training true) is refused."""

    op_types = ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")

    @classmethod
    def extract(cls, node):
        if cls.attr(node, "is_training", True):
            raise ConversionError(f"{node.fw_op} '{node.name}' is in training mode (is_training=true); freeze the "
                                  f"model for inference.")
        node.update({"epsilon": float(cls.attr(node, "epsilon", 1e-4)), "data_format": cls.data_format(node)})


@translator("tf", "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def fused_batch_norm(node, b):
    """Normalises with the given mean and variance; outputs 1 and 2 (the batch statistics) are
    that mean and variance, the other outputs (training only) are not computed."""
    x = node.in_port(0).get_source()
    rank = 5 if node.data_format in ("NDHWC", "NCDHW") else 4
    params = [node.in_port(i).get_source() for i in range(1, 5)]
    y = b.BatchNormInference(in_channels_first(b, x, node, rank), *params, epsilon=node.epsilon, name=node.name)
    return [back_to_data_format(b, y, node, rank), params[2], params[3]]
