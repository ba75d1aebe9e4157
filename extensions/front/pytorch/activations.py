"""Lowering of the ATen activations and of softmax / log_softmax."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import AtenOp, const, convert, is_float_type, norm_axis, rank_of

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
# activations without arguments: ATen -> opset op
PLAIN = {"aten::silu": "Swish", "aten::mish": "Mish", "aten::hardswish": "HSwish",
         "aten::hardsigmoid": "HSigmoid", "aten::softsign": "SoftSign"}
WITH_ARGS = ("aten::relu6", "aten::hardtanh", "aten::leaky_relu", "aten::elu", "aten::selu", "aten::celu",
             "aten::gelu", "aten::softplus", "aten::prelu", "aten::glu", "aten::log_sigmoid", "aten::threshold",
             "aten::rrelu")
SOFTMAXES = ("aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax", "aten::softmin",
             "aten::special_softmax", "aten::special_log_softmax")


def _floating(b, x):
    return x if is_float_type(x.data.get_dtype()) else convert(b, x, "f32")


class AtenActivation(AtenOp):
    """ReLU6, hardtanh, leaky ReLU, ELU family, GELU, softplus, PReLU, GLU, log-sigmoid,
    threshold, and the activations that are one opset op."""

    op = "pytorch::Activation"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = _floating(b, a.tensor(0))
        et = x.data.get_dtype()
        c = lambda v: const(b, v, et)  # noqa: E731
        if kind in PLAIN:
            return [b.op(PLAIN[kind], x)]
        if kind == "aten::relu6":
            return [b.Clamp(x, min=0.0, max=6.0)]
        if kind == "aten::hardtanh":
            return [b.Clamp(x, min=float(a.const("min_val", -1.0)), max=float(a.const("max_val", 1.0)))]
        if kind in ("aten::leaky_relu", "aten::rrelu"):
            slope = a.const("negative_slope", 0.01) if kind == "aten::leaky_relu" else \
                (a.const("lower", 1 / 8) + a.const("upper", 1 / 3)) / 2
            return [b.PRelu(x, const(b, [slope], et))]
        if kind == "aten::prelu":
            weight = convert(b, a.tensor(1), et)
            rank = rank_of(x, node)
            if rank >= 2 and weight.data.get_shape() not in (None, (1,)):   # per channel (dim 1)
                weight = b.Reshape(weight, b.const(np.array([-1] + [1] * (rank - 2), np.int64)), special_zero=False)
            return [b.PRelu(x, weight)]
        if kind == "aten::elu":
            alpha, scale, in_scale = (float(a.const(k, 1.0)) for k in ("alpha", "scale", "input_scale"))
            y = b.Elu(b.Multiply(x, c(in_scale)) if in_scale != 1 else x, alpha=alpha)
            if scale != 1:   # ELU(x) = scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1))
                y = b.Select(b.Greater(x, c(0)), b.Multiply(x, c(scale)), b.Multiply(y, c(scale)))
            return [y]
        if kind == "aten::selu":
            return [b.Selu(x, c([SELU_ALPHA]), c([SELU_SCALE]))]
        if kind == "aten::celu":
            alpha = float(a.const("alpha", 1.0))
            if alpha == 1:
                return [b.Elu(x, alpha=1.0)]
            return [b.Multiply(b.Elu(b.Divide(x, c(alpha)), alpha=1.0), c(alpha))]
        if kind == "aten::gelu":
            mode = a.const("approximate", "none")
            return [b.Gelu(x, approximation_mode="TANH" if mode == "tanh" else "ERF")]
        if kind == "aten::softplus":
            beta, threshold = float(a.const("beta", 1.0)), float(a.const("threshold", 20.0))
            scaled = b.Multiply(x, c(beta)) if beta != 1 else x
            soft = b.SoftPlus(scaled)
            if beta != 1:
                soft = b.Divide(soft, c(beta))
            return [b.Select(b.Greater(scaled, c(threshold)), x, soft)]
        if kind == "aten::glu":
            axis = norm_axis(a.const("dim", -1), rank_of(x, node), node)
            first, second = b.Split(x, b.const(np.int64(axis)), num_splits=2)
            return [b.Multiply(first, b.Sigmoid(second))]
        if kind == "aten::log_sigmoid":
            return [b.Negative(b.SoftPlus(b.Negative(x)))]
        # threshold(x, threshold, value): x where x > threshold, else value
        return [b.Select(b.Greater(x, convert(b, a.tensor(1), et)), x, convert(b, a.tensor(2), et))]


class AtenSoftmax(AtenOp):
    """softmax / log_softmax / softmin along ``dim``, in ``dtype`` when given."""

    op = "pytorch::Softmax"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        dtype = a.const("dtype", None) if a.has("dtype") else None
        if dtype is not None:
            x = convert(b, x, dtype)
        x = _floating(b, x)
        axis = int(a.const("dim"))
        if kind == "aten::softmin":
            x = b.Negative(x)
        if "log_softmax" in kind:
            return [b.LogSoftmax(x, axis=axis)]
        return [b.Softmax(x, axis=axis)]
