"""ATen activations and softmax / log_softmax: their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, convert, is_float_type
from extensions.load.pytorch.arguments import aten
from mo.graph.building import norm_axis, rank_of

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
# activations without arguments: ATen -> opset op
PLAIN = {"aten::silu": "Swish", "aten::mish": "Mish", "aten::hardswish": "HSwish",
         "aten::hardsigmoid": "HSigmoid", "aten::softsign": "SoftSign"}


def _floating(b, x):
    return x if is_float_type(x.data.get_dtype()) else convert(b, x, "f32")


@aten(*PLAIN)
def plain(node, a, b):
    """silu, mish, hardswish, hardsigmoid, softsign: one opset op each."""
    return [b.op(PLAIN[node.fw_op], _floating(b, a.tensor(0)))]


def _is_integer(x) -> bool:
    return x.data.get_dtype() != "boolean" and not is_float_type(x.data.get_dtype())


def _clamped(b, x, low: float, high: float):
    """x clamped to [low, high]; integers stay integers, the bounds truncated as PyTorch does."""
    if _is_integer(x):
        et = x.data.get_dtype()
        return b.Minimum(b.Maximum(x, const(b, int(low), et)), const(b, int(high), et))
    return b.Clamp(_floating(b, x), min=low, max=high)


@aten("aten::relu6")
def relu6(node, a, b):
    return [_clamped(b, a.tensor(0), 0.0, 6.0)]


@aten("aten::hardtanh")
def hardtanh(node, a, b):
    """x clamped to [min_val, max_val]."""
    return [_clamped(b, a.tensor(0), float(a.const("min_val", -1.0)), float(a.const("max_val", 1.0)))]


@aten("aten::hardshrink")
def hardshrink(node, a, b):
    """0 where -lambd <= x <= lambd, else x (NaN stays)."""
    x = _floating(b, a.tensor(0))
    et = x.data.get_dtype()
    lambd = float(a.const("lambd", 0.5))
    inside = b.LogicalAnd(b.GreaterEqual(x, const(b, -lambd, et)), b.LessEqual(x, const(b, lambd, et)))
    return [b.Select(inside, const(b, 0, et), x)]


@aten("aten::softshrink")
def softshrink(node, a, b):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0 (NaN stays)."""
    x = _floating(b, a.tensor(0))
    et = x.data.get_dtype()
    lambd = float(a.const("lambd", 0.5))
    low, high = const(b, -lambd, et), const(b, lambd, et)
    rest = b.Select(b.Less(x, low), b.Add(x, high), b.Multiply(x, const(b, 0, et)))
    return [b.Select(b.Greater(x, high), b.Subtract(x, high), rest)]


@aten("aten::leaky_relu")
def leaky_relu(node, a, b):
    x = _floating(b, a.tensor(0))
    return [b.PRelu(x, const(b, [a.const("negative_slope", 0.01)], x.data.get_dtype()))]


@aten("aten::rrelu")
def rrelu(node, a, b):
    """Inference form: the slope is the mean of ``lower`` and ``upper``."""
    x = _floating(b, a.tensor(0))
    slope = (a.const("lower", 1 / 8) + a.const("upper", 1 / 3)) / 2
    return [b.PRelu(x, const(b, [slope], x.data.get_dtype()))]


@aten("aten::prelu")
def prelu(node, a, b):
    """The weight is per channel (dim 1) unless it has one element."""
    x = _floating(b, a.tensor(0))
    weight = convert(b, a.tensor(1), x.data.get_dtype())
    rank = rank_of(x, node)
    if rank >= 2 and weight.data.get_shape() not in (None, (1,)):
        weight = b.Reshape(weight, b.const(np.array([-1] + [1] * (rank - 2), np.int64)), special_zero=False)
    return [b.PRelu(x, weight)]


@aten("aten::elu")
def elu(node, a, b):
    """ELU(x) = scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1))."""
    x = _floating(b, a.tensor(0))
    c = lambda v: const(b, v, x.data.get_dtype())  # noqa: E731
    alpha, scale, in_scale = (float(a.const(k, 1.0)) for k in ("alpha", "scale", "input_scale"))
    y = b.Elu(b.Multiply(x, c(in_scale)) if in_scale != 1 else x, alpha=alpha)
    if scale != 1:
        y = b.Select(b.Greater(x, c(0)), b.Multiply(x, c(scale)), b.Multiply(y, c(scale)))
    return [y]


@aten("aten::selu")
def selu(node, a, b):
    x = _floating(b, a.tensor(0))
    et = x.data.get_dtype()
    return [b.Selu(x, const(b, [SELU_ALPHA], et), const(b, [SELU_SCALE], et))]


@aten("aten::celu")
def celu(node, a, b):
    """alpha * elu(x / alpha)."""
    x = _floating(b, a.tensor(0))
    alpha = float(a.const("alpha", 1.0))
    if alpha == 1:
        return [b.Elu(x, alpha=1.0)]
    c = const(b, alpha, x.data.get_dtype())
    return [b.Multiply(b.Elu(b.Divide(x, c), alpha=1.0), c)]


@aten("aten::gelu")
def gelu(node, a, b):
    mode = a.const("approximate", "none")
    return [b.Gelu(_floating(b, a.tensor(0)), approximation_mode="TANH" if mode == "tanh" else "ERF")]


@aten("aten::softplus")
def softplus(node, a, b):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x exceeds ``threshold``."""
    x = _floating(b, a.tensor(0))
    c = lambda v: const(b, v, x.data.get_dtype())  # noqa: E731
    beta, threshold = float(a.const("beta", 1.0)), float(a.const("threshold", 20.0))
    scaled = b.Multiply(x, c(beta)) if beta != 1 else x
    soft = b.SoftPlus(scaled)
    if beta != 1:
        soft = b.Divide(soft, c(beta))
    return [b.Select(b.Greater(scaled, c(threshold)), x, soft)]


@aten("aten::glu")
def glu(node, a, b):
    """First half times the sigmoid of the second half along ``dim``."""
    x = _floating(b, a.tensor(0))
    axis = norm_axis(a.const("dim", -1), rank_of(x, node), node)
    first, second = b.Split(x, b.const(np.int64(axis)), num_splits=2)
    return [b.Multiply(first, b.Sigmoid(second))]


@aten("aten::log_sigmoid")
def log_sigmoid(node, a, b):
    x = _floating(b, a.tensor(0))
    return [b.Negative(b.SoftPlus(b.Negative(x)))]


@aten("aten::log_sigmoid_forward")
def log_sigmoid_forward(node, a, b):
    """log_sigmoid_forward: the output of log_sigmoid, and the buffer its backward uses (unused)."""
    return log_sigmoid(node, b) + [None]


@aten("aten::threshold")
def threshold(node, a, b):
    """threshold(x, threshold, value): x where x > threshold, else value (integers stay integers,
    threshold and value truncated to them as PyTorch does)."""
    x = a.tensor(0)
    if not _is_integer(x):
        x = _floating(b, x)
    et = x.data.get_dtype()
    bound, value = (const(b, int(v), et) if _is_integer(x) and (v := a.value(k)) is not None
                    else convert(b, a.tensor(k), et) for k in (1, 2))
    return [b.Select(b.Greater(x, bound), x, value)]


def _softmax_input(a, b):
    x = a.tensor(0)
    dtype = a.const("dtype", None) if a.has("dtype") else None
    if dtype is not None:
        x = convert(b, x, dtype)
    return _floating(b, x), int(a.const("dim"))


@aten("aten::softmax", "aten::_softmax", "aten::special_softmax")
def softmax(node, a, b):
    x, axis = _softmax_input(a, b)
    return [b.Softmax(x, axis=axis)]


@aten("aten::log_softmax", "aten::_log_softmax", "aten::special_log_softmax")
def log_softmax(node, a, b):
    x, axis = _softmax_input(a, b)
    return [b.LogSoftmax(x, axis=axis)]


@aten("aten::_safe_softmax")
def safe_softmax(node, a, b):
    """Softmax with 0 (not NaN) in the slices along ``dim`` that are -inf throughout (fully masked
    attention rows)."""
    x, axis = _softmax_input(a, b)
    et = x.data.get_dtype()
    masked = b.ReduceLogicalAnd(b.Equal(x, const(b, -np.inf, et)), np.int64(axis), keep_dims=True)
    return [b.Select(masked, const(b, 0, et), b.Softmax(x, axis=axis))]


@aten("aten::softmin")
def softmin(node, a, b):
    x, axis = _softmax_input(a, b)
    return [b.Softmax(b.Negative(x), axis=axis)]
