"""Lowering of the ATen normalizations: batch_norm (inference, or with batch statistics), layer_norm,
group_norm, instance_norm, rms_norm, and their native_ / _native_ forms with extra outputs."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import AtenOp, const, convert, rank_of
from mo.errors import ConversionError

BATCH_NORMS = ("aten::batch_norm", "aten::_native_batch_norm_legit_no_training", "aten::_native_batch_norm_legit",
               "aten::native_batch_norm", "aten::_batch_norm_impl_index", "aten::instance_norm")
OTHER_NORMS = ("aten::layer_norm", "aten::native_layer_norm", "aten::group_norm", "aten::native_group_norm",
               "aten::rms_norm")
WEIGHT_NORMS = ("aten::_weight_norm", "aten::_weight_norm_interface")
F32_EPS = float(np.finfo(np.float32).eps)


def _channel_shape(rank: int) -> np.ndarray:
    return np.array([1, -1] + [1] * (rank - 2), np.int64)


def _affine(b, y, weight, bias, shape=None):
    """y * weight + bias (either may be None), reshaped to ``shape`` first when given."""
    if weight is not None:
        w = convert(b, weight, y.data.get_dtype())
        y = b.Multiply(y, b.Reshape(w, b.const(shape), special_zero=False) if shape is not None else w)
    if bias is not None:
        c = convert(b, bias, y.data.get_dtype())
        y = b.Add(y, b.Reshape(c, b.const(shape), special_zero=False) if shape is not None else c)
    return y


def layer_norm(b, x, count: int, eps: float, weight=None, bias=None):
    """Normalization over the last ``count`` dims, then scale and shift."""
    rank = x.data.get_rank()
    return _affine(b, _mvn(b, x, list(range(rank - count, rank)), eps), weight, bias)


def _mvn(b, x, axes: list[int], eps: float):
    return b.MVN(x, b.const(np.array(axes, np.int64)), eps=float(eps), normalize_variance=True,
                 eps_mode="inside_sqrt")


class AtenBatchNorm(AtenOp):
    """batch_norm with running statistics -> BatchNormInference; with batch statistics
    (training, instance_norm) -> MVN over the batch (and spatial) dims, then scale and shift."""

    op = "pytorch::BatchNorm"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        rank = rank_of(x, node)
        et = x.data.get_dtype()
        eps = float(a.const("eps", 1e-5))
        weight = None if a.is_none("weight") else a.tensor("weight")
        bias = None if a.is_none("bias") else a.tensor("bias")
        if kind == "aten::instance_norm":
            batch_stats = bool(a.const("use_input_stats", True))
        elif kind == "aten::_native_batch_norm_legit_no_training":
            batch_stats = False
        else:
            batch_stats = bool(a.const("training", False)) or a.is_none("running_mean")
        extra = [None, None] if kind != "aten::batch_norm" and kind != "aten::instance_norm" else []
        if kind == "aten::_batch_norm_impl_index":
            extra = [None, None, None, None]
        if batch_stats:
            axes = list(range(2, rank)) if kind == "aten::instance_norm" else [0] + list(range(2, rank))
            y = _affine(b, _mvn(b, x, axes, eps), weight, bias, _channel_shape(rank))
            return [y] + extra
        channels = x.data.get_shape()[1]
        if (weight is None or bias is None) and channels < 0:
            raise ConversionError(f"batch_norm without weight or bias needs a static channel count ({node.name}).")
        gamma = convert(b, weight, et) if weight is not None else const(b, np.ones(channels), et)
        beta = convert(b, bias, et) if bias is not None else const(b, np.zeros(channels), et)
        mean, var = convert(b, a.tensor("running_mean"), et), convert(b, a.tensor("running_var"), et)
        y = b.BatchNormInference(x, gamma, beta, mean, var, epsilon=eps)
        return [y] + extra


class AtenNorm(AtenOp):
    """layer_norm (over the last len(normalized_shape) dims), group_norm, rms_norm."""

    op = "pytorch::Norm"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        rank = rank_of(x, node)
        weight = None if a.is_none("weight") else a.tensor("weight")
        bias = None if not a.has("bias") or a.is_none("bias") else a.tensor("bias")
        if kind in ("aten::layer_norm", "aten::native_layer_norm"):
            count = len(np.atleast_1d(a.const("normalized_shape")))
            y = layer_norm(b, x, count, a.const("eps", 1e-5), weight, bias)
            return [y] + ([None, None] if kind == "aten::native_layer_norm" else [])
        if kind == "aten::rms_norm":
            count = len(np.atleast_1d(a.const("normalized_shape")))
            eps = a.const("eps", None)
            et = x.data.get_dtype()
            axes = b.const(np.arange(rank - count, rank, dtype=np.int64))
            mean_square = b.ReduceMean(b.Multiply(x, x), axes, keep_dims=True)
            y = b.Divide(x, b.Sqrt(b.Add(mean_square, const(b, F32_EPS if eps is None else eps, et))))
            return [_affine(b, y, weight, None)]
        groups = int(a.const("num_groups" if kind == "aten::group_norm" else "group"))
        eps = float(a.const("eps", 1e-5))
        channels = x.data.get_shape()[1]
        et = x.data.get_dtype()
        if channels < 0 and (weight is None or bias is None):
            raise ConversionError(f"group_norm without weight or bias needs a static channel count ({node.name}).")
        gamma = convert(b, weight, et) if weight is not None else const(b, np.ones(channels), et)
        beta = convert(b, bias, et) if bias is not None else const(b, np.zeros(channels), et)
        y = b.GroupNormalization(x, gamma, beta, num_groups=groups, epsilon=eps)
        return [y] + ([None, None] if kind == "aten::native_group_norm" else [])


class AtenWeightNorm(AtenOp):
    """_weight_norm(v, g, dim): v * g / ||v||, the norm over every dim but ``dim`` (-1: all)."""

    op = "pytorch::WeightNorm"

    @classmethod
    def build(cls, node, a, b):
        v = a.tensor(0)
        g = convert(b, a.tensor(1), v.data.get_dtype())
        rank = rank_of(v, node)
        dim = int(a.const("dim", 0))
        kept = None if dim == -1 else (dim + rank if dim < 0 else dim)
        axes = [i for i in range(rank) if i != kept]
        norm = b.ReduceL2(v, b.const(np.array(axes, np.int64)), keep_dims=True)
        return [b.Multiply(v, b.Divide(g, norm)), norm] if node.fw_op.endswith("interface") else \
            [b.Multiply(v, b.Divide(g, norm))]
