"""TensorFlow FusedBatchNorm (V2/V3), channels-first: BatchNormInference at inference, the batch
statistics in training mode; LRN across the channels."""
from __future__ import annotations

import numpy as np

from extensions.front.tf.layout import back_to_data_format, in_channels_first
from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import (
    convert,
    i64,
    input_rank,
    shape_of,
    to_channels_first,
    to_channels_last,
    typed_const,
)


class FusedBatchNormExtractor(TfExtractor):
    """Reads ``epsilon``, ``data_format``, ``is_training`` and ``exponential_avg_factor``."""

    op_types = ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")

    @classmethod
    def extract(cls, node):
        node.update({"epsilon": float(cls.attr(node, "epsilon", 1e-4)), "data_format": cls.data_format(node),
                     "is_training": bool(cls.attr(node, "is_training", True)),
                     "exponential_avg_factor": float(cls.attr(node, "exponential_avg_factor", 1.0))})


@translator("tf", "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def fused_batch_norm(node, b):
    """Normalises with the given mean and variance; outputs 1 and 2 (the batch statistics) are
    that mean and variance, the other outputs (training only) are not computed. In training mode
    (``is_training``) see ``_training_batch_norm``."""
    x = node.in_port(0).get_source()
    rank = 5 if node.data_format in ("NDHWC", "NCDHW") else 4
    params = [node.in_port(i).get_source() for i in range(1, 5)]
    if node.is_training:
        return _training_batch_norm(node, b, x, rank, params)
    y = b.BatchNormInference(in_channels_first(b, x, node, rank), *params, epsilon=node.epsilon, name=node.name)
    return [back_to_data_format(b, y, node, rank), params[2], params[3]]


def _training_batch_norm(node, b, x, rank, params):
    """Normalises with the batch statistics: the mean and the (biased) variance over every
    dimension but the channels, computed in f32. Outputs: y (in x's type), the running mean and
    variance TensorFlow updates (the batch mean and the unbiased batch variance, or with an
    exponential_avg_factor f below 1, (1 - f) * given + f * batch), then the batch mean and
    biased variance (reserve spaces 1 and 2)."""
    scale, offset, mean, variance = (convert(b, p, "f32") for p in params)
    data = convert(b, in_channels_first(b, x, node, rank), "f32")
    axes = i64(0, *range(2, rank))
    batch_mean = b.ReduceMean(data, axes, keep_dims=True)
    centered = b.Subtract(data, batch_mean)
    batch_var = b.ReduceMean(b.Multiply(centered, centered), axes, keep_dims=False)
    batch_mean = b.Squeeze(batch_mean, axes)
    y = b.BatchNormInference(data, scale, offset, batch_mean, batch_var, epsilon=node.epsilon, name=node.name)
    y = convert(b, back_to_data_format(b, y, node, rank), x.data.get_dtype())
    count = b.Convert(b.ReduceProd(b.Gather(shape_of(b, data), axes, np.int64(0)), i64(0), keep_dims=False),
                      destination_type="f32")
    unbiased = b.Multiply(batch_var, b.Divide(count, b.Subtract(count, np.float32(1))))
    factor = node.exponential_avg_factor
    if factor == 1.0:
        running_mean, running_var = batch_mean, unbiased
    else:
        def average(given, batch):
            return b.Add(b.Multiply(given, np.float32(1 - factor)), b.Multiply(batch, np.float32(factor)))
        running_mean, running_var = average(mean, batch_mean), average(variance, unbiased)
    return [y, running_mean, running_var, batch_mean, batch_var]


@translator("tf", "LRN")
def lrn(node, b):
    """LRN across the channels (NHWC, rank 4): x / (bias + alpha * sum of squares over the
    2 * depth_radius + 1 channels around)^beta. The opset op divides alpha by the window size, so
    it gets alpha * size; it runs channels-first."""
    x = node.in_port(0).get_source()
    rank = input_rank(node)
    if rank != 4:
        raise ConversionError(f"its input has rank {rank} where TensorFlow takes rank 4.")
    size = 2 * int(TfExtractor.attr(node, "depth_radius", 5)) + 1
    alpha, beta, bias = (float(TfExtractor.attr(node, name, default))
                         for name, default in (("alpha", 1.0), ("beta", 0.5), ("bias", 1.0)))
    if size == 1:
        # the CPU plugin's LRN of a window of 1 is wrong: x / (bias + alpha * x^2)^beta directly
        dtype = x.data.get_dtype()
        base = b.Add(b.Multiply(b.Multiply(x, x), typed_const(b, alpha, dtype)), typed_const(b, bias, dtype))
        return [b.Divide(x, b.Power(base, typed_const(b, beta, dtype)))]
    data = b.Transpose(x, to_channels_first(rank))
    y = b.LRN(data, i64(1), alpha=alpha * size, beta=beta, bias=bias, size=size, name=node.name)
    return [b.Transpose(y, to_channels_last(rank))]
