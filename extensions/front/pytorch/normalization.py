"""ATen normalizations: batch_norm (inference, or with batch statistics), instance_norm,
layer_norm, group_norm, rms_norm, weight_norm, and their native_ / _native_ forms with extra
outputs (saved statistics, which inference never uses): their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, convert, dim_size, rank_of, reshape
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import i64

F32_EPS = float(np.finfo(np.float32).eps)


def _optional(a, key):
    """A tensor argument that may be None or absent."""
    return None if a.is_none(key) else a.tensor(key)


def _affine(b, y, weight, bias, channels_first: bool = False):
    """y * weight + bias (either may be None); per channel (dim 1) with ``channels_first``, else
    along the last dims."""
    rank = y.data.get_rank()
    for param, op in ((weight, b.Multiply), (bias, b.Add)):
        if param is not None:
            param = convert(b, param, y.data.get_dtype())
            y = op(y, reshape(b, param, [1, -1] + [1] * (rank - 2)) if channels_first else param)
    return y


def _mvn(b, x, axes: list[int], eps: float):
    return b.MVN(x, i64(axes), eps=float(eps), normalize_variance=True, eps_mode="inside_sqrt")


def normalized_last(b, x, count: int, eps: float, weight=None, bias=None):
    """Normalization over the last ``count`` dims, then scale and shift (layer_norm)."""
    rank = x.data.get_rank()
    return _affine(b, _mvn(b, x, list(range(rank - count, rank)), eps), weight, bias)


def _filled(b, value: float, like, et: str):
    """A 1-D tensor of ``value`` as long as the 1-D tensor ``like`` (or the 0-d size ``like``)."""
    shape = like.data.get_shape()
    if shape is not None and len(shape) == 1 and shape[0] >= 0:
        return const(b, np.full(shape, value), et)
    count = reshape(b, like, [1]) if shape == () else b.ShapeOf(like)
    return b.Broadcast(const(b, value, et), count)


# ---------------------------------------------------------------------------- batch statistics or running ones


def _batch_norm(node, a, b, batch_stats: bool):
    """Normalization per channel (dim 1): with batch statistics an MVN over the batch and spatial
    dims, then scale and shift; with the running statistics BatchNormInference (a missing weight
    is 1, a missing bias 0)."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    et = x.data.get_dtype()
    eps = float(a.const("eps", 1e-5))
    weight, bias = _optional(a, "weight"), _optional(a, "bias")
    if batch_stats:
        return _affine(b, _mvn(b, x, [0] + list(range(2, rank)), eps), weight, bias, channels_first=True)
    mean, var = convert(b, a.tensor("running_mean"), et), convert(b, a.tensor("running_var"), et)
    gamma = convert(b, weight, et) if weight is not None else _filled(b, 1, mean, et)
    beta = convert(b, bias, et) if bias is not None else _filled(b, 0, mean, et)
    return b.BatchNormInference(x, gamma, beta, mean, var, epsilon=eps)


def _uses_batch_stats(a) -> bool:
    return bool(a.const("training", False)) or a.is_none("running_mean")


@aten("aten::batch_norm")
def batch_norm(node, a, b):
    """batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
    cudnn_enabled)."""
    return [_batch_norm(node, a, b, _uses_batch_stats(a))]


def _batch_statistics(node, b, x, eps: float):
    """(mean, variance, inverse deviation 1 / sqrt(variance + eps)) per channel (dim 1) over the
    batch and spatial dims; the mean with those dims kept."""
    et = x.data.get_dtype()
    axes = i64([0] + list(range(2, rank_of(x, node))))
    mean = b.ReduceMean(x, axes, keep_dims=True)
    variance = b.ReduceMean(b.SquaredDifference(x, mean), axes, keep_dims=False)
    inverse_deviation = b.Divide(const(b, 1, et), b.Sqrt(b.Add(variance, const(b, eps, et))))
    return mean, variance, inverse_deviation


@aten("aten::native_batch_norm", "aten::_native_batch_norm_legit")
def native_batch_norm(node, a, b):
    """native_batch_norm / _native_batch_norm_legit (also its no_stats form): the output, then the
    saved mean and inverse deviation of the batch statistics (empty when the running ones are
    used, as in PyTorch)."""
    batch_stats = _uses_batch_stats(a)
    y = _batch_norm(node, a, b, batch_stats)
    x = a.tensor(0)
    if not batch_stats:
        empty = b.Broadcast(const(b, 0, x.data.get_dtype()), i64([0]))
        return [y, empty, empty]
    mean, _, inverse_deviation = _batch_statistics(node, b, x, float(a.const("eps", 1e-5)))
    return [y, b.Reshape(mean, i64([-1]), special_zero=False), inverse_deviation]


@aten("aten::_native_batch_norm_legit_no_training")
def native_batch_norm_no_training(node, a, b):
    """_native_batch_norm_legit_no_training: with the running statistics, and two unused outputs."""
    return [_batch_norm(node, a, b, False), None, None]


def _updated_statistics(node, a, b, x, running: list):
    """The saved mean and inverse deviation of the batch statistics, and the running mean and
    variance updated with them: (1 - momentum) * running + momentum * batch, the variance
    unbiased."""
    et = x.data.get_dtype()
    axes = i64([0] + list(range(2, rank_of(x, node))))
    mean, variance, inverse_deviation = _batch_statistics(node, b, x, float(a.const("eps")))
    count = convert(b, b.ReduceProd(b.Gather(b.ShapeOf(x), axes, np.int64(0)), i64(0), keep_dims=False), et)
    unbiased = b.Divide(b.Multiply(variance, count), b.Maximum(b.Subtract(count, const(b, 1, et)), const(b, 1, et)))
    momentum = float(a.const("momentum"))
    mean = b.Squeeze(mean, axes)
    updated = [b.Add(b.Multiply(r, const(b, 1 - momentum, et)), b.Multiply(s, const(b, momentum, et)))
               for r, s in zip(running, (mean, unbiased))]
    return mean, inverse_deviation, updated


def _running(a, b, et: str) -> list:
    return [convert(b, a.tensor(k), et) for k in ("running_mean", "running_var")]


@aten("aten::_native_batch_norm_legit_functional")
def native_batch_norm_functional(node, a, b):
    """_native_batch_norm_legit_functional(input, weight, bias, running_mean, running_var, training,
    momentum, eps), the form torch.export gives a batch norm that updates its running statistics:
    the output, the saved mean and inverse deviation, and the updated running mean and variance."""
    training = bool(a.const("training"))
    y = _batch_norm(node, a, b, training)
    x = a.tensor(0)
    running = _running(a, b, x.data.get_dtype())
    if not training:
        return [y, None, None, *running]
    mean, inverse_deviation, updated = _updated_statistics(node, a, b, x, running)
    return [y, mean, inverse_deviation, *updated]


@aten("aten::_batch_norm_with_update", "aten::_batch_norm_with_update_functional")
def batch_norm_with_update(node, a, b):
    """_batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps): batch
    norm on the batch statistics; the output, the saved mean and inverse deviation, the (empty,
    u8) reserve of cuDNN, and in the functional form the updated running mean and variance (the
    in-place form updates its inputs, which an inference graph does not keep)."""
    y = _batch_norm(node, a, b, True)
    x = a.tensor(0)
    mean, inverse_deviation, updated = _updated_statistics(node, a, b, x, _running(a, b, x.data.get_dtype()))
    reserve = b.Broadcast(const(b, 0, "u8"), i64([0]))
    outputs = [y, mean, inverse_deviation, reserve]
    return outputs + updated if node.fw_op.endswith("_functional") else outputs


@aten("aten::_batch_norm_impl_index")
def batch_norm_impl_index(node, a, b):
    """_batch_norm_impl_index: the output of batch_norm, and four unused outputs (saved state)."""
    return [_batch_norm(node, a, b, _uses_batch_stats(a)), None, None, None, None]


@aten("aten::instance_norm")
def instance_norm(node, a, b):
    """instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, ...): the
    statistics of each sample and channel (an MVN over the spatial dims), or the running ones."""
    if not a.const("use_input_stats", True):
        return [_batch_norm(node, a, b, False)]
    x = a.tensor(0)
    y = _mvn(b, x, list(range(2, rank_of(x, node))), float(a.const("eps", 1e-5)))
    return [_affine(b, y, _optional(a, "weight"), _optional(a, "bias"), channels_first=True)]


# ---------------------------------------------------------------------------- layer, group, RMS, weight


def _layer_norm(node, a, b):
    x = a.tensor(0)
    count = len(np.atleast_1d(a.const("normalized_shape")))
    if count > rank_of(x, node):
        raise ConversionError(f"normalized_shape has {count} dims, more than the rank-{x.data.get_rank()} input.")
    return normalized_last(b, x, count, a.const("eps", 1e-5), _optional(a, "weight"), _optional(a, "bias"))


@aten("aten::layer_norm")
def layer_norm(node, a, b):
    """layer_norm(input, normalized_shape, weight, bias, eps): over the last len(normalized_shape) dims."""
    return [_layer_norm(node, a, b)]


def _mean_and_rstd(b, x, axes, eps: float):
    """The mean and inverse deviation 1 / sqrt(variance + eps) of x over ``axes`` (kept), the
    variance biased, as PyTorch's native normalizations save them."""
    et = x.data.get_dtype()
    mean = b.ReduceMean(x, i64(axes), keep_dims=True)
    variance = b.ReduceMean(b.SquaredDifference(x, mean), i64(axes), keep_dims=True)
    return mean, b.Divide(const(b, 1, et), b.Sqrt(b.Add(variance, const(b, eps, et))))


@aten("aten::native_layer_norm")
def native_layer_norm(node, a, b):
    """native_layer_norm: the output of layer_norm, then the mean and inverse deviation over the
    normalized dims (kept as 1s)."""
    y = _layer_norm(node, a, b)
    x = a.tensor(0)
    rank = x.data.get_rank()
    count = len(np.atleast_1d(a.const("normalized_shape")))
    return [y, *_mean_and_rstd(b, x, list(range(rank - count, rank)), float(a.const("eps", 1e-5)))]


def _group_norm(node, a, b, groups: int):
    """GroupNormalization; a missing weight is 1 and a missing bias 0 for each channel."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    weight, bias = _optional(a, "weight"), _optional(a, "bias")
    channels = dim_size(b, x, 1) if weight is None or bias is None else None
    gamma = convert(b, weight, et) if weight is not None else _filled(b, 1, channels, et)
    beta = convert(b, bias, et) if bias is not None else _filled(b, 0, channels, et)
    return b.GroupNormalization(x, gamma, beta, num_groups=groups, epsilon=float(a.const("eps", 1e-5)))


@aten("aten::group_norm")
def group_norm(node, a, b):
    """group_norm(input, num_groups, weight, bias, eps, cudnn_enabled)."""
    return [_group_norm(node, a, b, int(a.const("num_groups")))]


@aten("aten::native_group_norm")
def native_group_norm(node, a, b):
    """native_group_norm(input, weight, bias, N, C, HxW, group, eps): the output, then the mean and
    inverse deviation of each sample and group, [N, group]."""
    groups = int(a.const("group"))
    x = a.tensor(0)
    per_group = b.Reshape(x, i64([0, groups, -1]), special_zero=True)
    mean, rstd = _mean_and_rstd(b, per_group, [2], float(a.const("eps", 1e-5)))
    return [_group_norm(node, a, b, groups), *(b.Squeeze(v, i64([2])) for v in (mean, rstd))]


@aten("aten::rms_norm")
def rms_norm(node, a, b):
    """rms_norm(input, normalized_shape, weight, eps): x / sqrt(mean(x^2) + eps) over the last dims,
    times weight; eps None is the f32 machine epsilon."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    count = len(np.atleast_1d(a.const("normalized_shape")))
    eps = a.const("eps", None)
    mean_square = b.ReduceMean(b.Multiply(x, x), i64(list(range(rank - count, rank))), keep_dims=True)
    y = b.Divide(x, b.Sqrt(b.Add(mean_square, const(b, F32_EPS if eps is None else eps, x.data.get_dtype()))))
    return [_affine(b, y, _optional(a, "weight"), None)]


def _weight_norm(node, a, b):
    """v * g / ||v|| and the norm, over every dim but ``dim`` (-1: over all)."""
    v = a.tensor(0)
    g = convert(b, a.tensor(1), v.data.get_dtype())
    rank = rank_of(v, node)
    dim = int(a.const("dim", 0))
    kept = None if dim == -1 else (dim + rank if dim < 0 else dim)
    norm = b.ReduceL2(v, i64([i for i in range(rank) if i != kept]), keep_dims=True)
    return b.Multiply(v, b.Divide(g, norm)), norm


@aten("aten::_weight_norm")
def weight_norm(node, a, b):
    """_weight_norm(v, g, dim)."""
    return [_weight_norm(node, a, b)[0]]


@aten("aten::_weight_norm_interface")
def weight_norm_interface(node, a, b):
    """_weight_norm_interface(v, g, dim): the weight, then the norm."""
    return list(_weight_norm(node, a, b))
