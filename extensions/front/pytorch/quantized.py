"""Quantized PyTorch models: quantize / dequantize, fake quantization (QAT modules and their
export names) and the ``quantized::`` ops of eager-mode quantized modules: their translators.

A quantized tensor is its dequantized float value in the graph (``extensions/load/pytorch/
quantized.py``), so an op on quantized tensors is the float op followed by a requantization to
its output scale and zero point:

* quantizing (``quantize_per_tensor/channel``, the ``quantized::`` ops' outputs, fake quantization)
  is a FakeQuantize with the grid's bounds, (qmin - zero_point) * scale and (qmax - zero_point) *
  scale, and qmax - qmin + 1 levels (qint32, too fine for FakeQuantize's float arithmetic:
  Round / Clamp / Subtract / Multiply);
* quantized constants (weights) keep their integers: Convert (not folded) / Subtract / Multiply,
  the form OpenVINO's low-precision pipeline runs in int8;
* ``dequantize`` is the value itself.

Ops that PyTorch requantizes with parameters it derives itself (``add_scalar``, ``relu6``) are
computed in float: within one quantum of PyTorch's result.
"""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.quantization import dequantize
from extensions.front.pytorch.aten import const, convert, is_float_type, rank_of
from extensions.front.pytorch.normalization import _group_norm, _layer_norm, instance_norm
from extensions.load.pytorch.arguments import aten
from extensions.load.pytorch.quantized import QUANT_RANGES
from mo.errors import ConversionError
from mo.graph.building import channel_bias, grouped_weights, norm_axis

# levels up to which a FakeQuantize computes the grid exactly enough in f32
_FQ_MAX_LEVELS = 2 ** 16


def _float(b, x):
    """x as a float tensor (its own type if it has one, else f32)."""
    return x if is_float_type(x.data.get_dtype()) else convert(b, x, "f32")


def _param(b, value, et):
    """A scale / zero point given as a number or a tensor, in the element type ``et``."""
    if value is None:
        return None
    if isinstance(value, (int, float, np.number)):
        return const(b, value, et)
    return convert(b, value, et)


def _along(b, param, axis: int, rank: int):
    """A per-channel parameter [C] shaped to broadcast along ``axis`` of a rank-``rank`` tensor."""
    if param is None or param.data.get_rank() == 0 or axis == rank - 1:
        return param
    return b.Unsqueeze(param, np.arange(1, rank - axis, dtype=np.int64))


def fake_quantize(b, x, scale, zero_point, qmin: int, qmax: int):
    """x rounded onto the grid (q - zero_point) * scale, q in [qmin, qmax]; scale and zero point
    are ports of x's type (or broadcastable to it)."""
    et = x.data.get_dtype()
    if qmax - qmin + 1 > _FQ_MAX_LEVELS:
        q = b.Add(b.Round(b.Divide(x, scale), mode="half_to_even"), zero_point)
        q = b.Clamp(q, min=float(qmin), max=float(qmax))
        return b.Multiply(b.Subtract(q, zero_point), scale)
    scale_value = scale.data.get_value()
    if scale_value is not None and np.all(scale_value > 0):
        low = b.Multiply(b.Subtract(const(b, qmin, et), zero_point), scale)
        high = b.Multiply(b.Subtract(const(b, qmax, et), zero_point), scale)
        return b.FakeQuantize(x, low, high, low, high, levels=qmax - qmin + 1)
    # a negative scale mirrors the grid: the result is sign * (x * sign on the grid of |scale|)
    sign = b.Select(b.Less(scale, const(b, 0, et)), const(b, -1, et), const(b, 1, et))
    magnitude = b.Abs(scale)
    low = b.Multiply(b.Subtract(const(b, qmin, et), zero_point), magnitude)
    high = b.Multiply(b.Subtract(const(b, qmax, et), zero_point), magnitude)
    return b.Multiply(sign, b.FakeQuantize(b.Multiply(x, sign), low, high, low, high, levels=qmax - qmin + 1))


def _quant_range(node, dtype: str | None = None) -> tuple[int, int]:
    qtype = dtype or node.get("quant_dtype") or "quint8"
    if qtype not in QUANT_RANGES:
        raise ConversionError(f"Quantizing to {qtype} is not supported (only quint8, qint8 and qint32).")
    return QUANT_RANGES[qtype]


def requantize(node, b, y, scale_key, zero_point_key, a, relu: bool = False):
    """The float result ``y`` of a quantized op (after a ReLU for the ``_relu`` variants) on the
    grid of its output scale and zero point (arguments ``scale_key``, ``zero_point_key``), in the
    node's quantized type."""
    if relu:
        y = b.ReLU(y)
    if a.is_none(scale_key):
        return y
    et = y.data.get_dtype()
    scale, zero_point = _param(b, _arg(a, scale_key), et), _param(b, _arg(a, zero_point_key), et)
    return fake_quantize(b, y, scale, zero_point, *_quant_range(node))


def _arg(a, key):
    """A scalar argument as a port (a constant one included)."""
    port = a.port(key)
    return port if port is not None else a.const(key)


# ---------------------------------------------------------------------------- quantize / dequantize


@aten("aten::quantize_per_tensor")
def quantize_per_tensor(node, a, b):
    """quantize_per_tensor(self, scale, zero_point, dtype): scale and zero point as numbers or
    tensors."""
    x = _float(b, a.tensor(0))
    et = x.data.get_dtype()
    return [fake_quantize(b, x, _param(b, _arg(a, "scale"), et), _param(b, _arg(a, "zero_point"), et),
                          *_quant_range(node, a.const("dtype")))]


@aten("aten::quantize_per_channel")
def quantize_per_channel(node, a, b):
    """quantize_per_channel(self, scales, zero_points, axis, dtype)."""
    x = _float(b, a.tensor(0))
    et, rank = x.data.get_dtype(), rank_of(x, node)
    axis = norm_axis(int(a.const("axis")), rank, node)
    scale = _along(b, convert(b, a.tensor("scales"), et), axis, rank)
    zero_point = _along(b, convert(b, a.tensor("zero_points"), et), axis, rank)
    return [fake_quantize(b, x, scale, zero_point, *_quant_range(node, a.const("dtype")))]


@aten("aten::dequantize")
def dequantize_op(node, a, b):
    """dequantize(self): the value a quantized tensor stands for (it is that value already)."""
    return [_float(b, a.tensor(0))]


def _nonzero(port):
    """None for a constant zero point that is all zeros (no subtraction), else the port."""
    value = port.data.get_value()
    return None if value is not None and not np.any(value) else port


@aten("aten::_make_per_tensor_quantized_tensor")
def make_per_tensor(node, a, b):
    """_make_per_tensor_quantized_tensor(self, scale, zero_point): integers as their values
    (weights stay integers in the IR, decompressed at run time)."""
    ints = a.tensor(0)
    scale = _param(b, _arg(a, "scale"), "f32")
    return [dequantize(b, ints, scale, _nonzero(_param(b, _arg(a, "zero_point"), "f32")))]


@aten("aten::_make_per_channel_quantized_tensor")
def make_per_channel(node, a, b):
    """_make_per_channel_quantized_tensor(self, scale, zero_point, axis)."""
    ints = a.tensor(0)
    rank = rank_of(ints, node)
    axis = norm_axis(int(a.const("axis")), rank, node)
    scale = _along(b, convert(b, a.tensor("scale"), "f32"), axis, rank)
    zero_point = _nonzero(convert(b, a.tensor("zero_point"), "f32"))
    return [dequantize(b, ints, scale, _along(b, zero_point, axis, rank))]


# ---------------------------------------------------------------------------- fake quantization


def _fake_quantize_op(node, a, b, axis_key: str | None, round_zero_point: bool = False,
                      enabled_key: str = "fake_quant_enabled"):
    """The fake-quantized value of input 0 and the mask of the elements inside the grid's range
    (the cachemask forms' second output); scale and zero point per tensor, or per channel along
    argument ``axis_key``; a tensor argument ``enabled_key`` (when the op has it) switches the
    quantization off where it is 0."""
    x = a.tensor(0)
    et, rank = x.data.get_dtype(), rank_of(x, node)
    qmin, qmax = int(a.const("quant_min")), int(a.const("quant_max"))
    scale, zero_point = _param(b, _arg(a, "scale"), et), _param(b, _arg(a, "zero_point"), et)
    if round_zero_point:     # the learnable forms keep a float zero point
        zero_point = b.Clamp(b.Round(zero_point, mode="half_to_even"), min=float(qmin), max=float(qmax))
    if axis_key is not None:
        axis = norm_axis(int(a.const(axis_key)), rank, node)
        scale, zero_point = _along(b, scale, axis, rank), _along(b, zero_point, axis, rank)
    y = fake_quantize(b, x, scale, zero_point, qmin, qmax)
    q = b.Add(b.Round(b.Divide(x, scale), mode="half_to_even"), zero_point)
    mask = b.LogicalAnd(b.GreaterEqual(q, const(b, qmin, et)), b.LessEqual(q, const(b, qmax, et)))
    if a.has(enabled_key):
        enabled = a.value(enabled_key)
        if enabled is not None and not np.all(enabled):
            return [x, b.Broadcast(const(b, True, "boolean"), b.ShapeOf(x))]
        if enabled is None:
            on = b.NotEqual(convert(b, a.tensor(enabled_key), et), const(b, 0, et))
            on = b.Reshape(on, np.array([], np.int64), special_zero=False)
            y = b.Select(on, y, x)
            mask = b.LogicalOr(mask, b.LogicalNot(on))
    return [y, mask]


@aten("aten::fake_quantize_per_tensor_affine", "aten::fake_quantize_per_tensor_affine_cachemask",
      "aten::_fake_quantize_per_tensor_affine_cachemask_tensor_qparams")
def fake_quantize_per_tensor(node, a, b):
    """fake_quantize_per_tensor_affine(self, scale, zero_point, quant_min, quant_max) (numbers or
    tensors), its cachemask forms (also with ``fake_quant_enabled``): value and mask."""
    return _fake_quantize_op(node, a, b, None)[:node.get("num_outputs") or 1]


@aten("aten::fake_quantize_per_channel_affine", "aten::fake_quantize_per_channel_affine_cachemask")
def fake_quantize_per_channel(node, a, b):
    """fake_quantize_per_channel_affine(self, scale, zero_point, axis, quant_min, quant_max)."""
    return _fake_quantize_op(node, a, b, "axis")[:node.get("num_outputs") or 1]


@aten("aten::_fake_quantize_learnable_per_tensor_affine")
def fake_quantize_learnable_per_tensor(node, a, b):
    """_fake_quantize_learnable_per_tensor_affine(self, scale, zero_point, quant_min, quant_max,
    grad_factor): the zero point is rounded and clamped first."""
    return _fake_quantize_op(node, a, b, None, round_zero_point=True)[:1]


@aten("aten::_fake_quantize_learnable_per_channel_affine")
def fake_quantize_learnable_per_channel(node, a, b):
    """_fake_quantize_learnable_per_channel_affine(self, scale, zero_point, axis, quant_min,
    quant_max, grad_factor)."""
    return _fake_quantize_op(node, a, b, "axis", round_zero_point=True)[:1]


@aten("aten::fused_moving_avg_obs_fake_quant", "aten::_fused_moving_avg_obs_fq_helper",
      "aten::_fused_moving_avg_obs_fq_helper_functional")
def fused_observer_fake_quantize(node, a, b):
    """fused_moving_avg_obs_fake_quant(self, observer_on, fake_quant_on, running_min, running_max,
    scale, zero_point, averaging_const, quant_min, quant_max, ch_axis, per_row_fake_quant,
    symmetric_quant) (QAT's FusedMovingAvgObsFakeQuantize): fake quantization with the scale and
    zero point the model holds when converted; the observer's updates of them are training-time
    state and are not reproduced (the functional form's state outputs are the values as they are)."""
    per_row = bool(a.const("per_row_fake_quant", False))
    y, mask = _fake_quantize_op(node, a, b, "ch_axis" if per_row else None, enabled_key="fake_quant_on")
    state = [a.tensor(k) for k in ("running_min", "running_max", "scale", "zero_point")]
    return [y, mask, *state][:node.get("num_outputs") or 1]


# ---------------------------------------------------------------------------- quantized:: ops


@aten("quantized::linear", "quantized::linear_relu")
def quantized_linear(node, a, b):
    """quantized::linear(X, W_prepack, Y_scale_i, Y_zero_point_i), the packed weight and bias
    unpacked by the loader: X W^T + bias, requantized."""
    y = _linear(b, a)
    return [requantize(node, b, y, "Y_scale_i", "Y_zero_point_i", a, relu=node.fw_op.endswith("_relu"))]


@aten("quantized::linear_dynamic", "quantized::linear_relu_dynamic", "quantized::linear_dynamic_fp16",
      "quantized::linear_relu_dynamic_fp16")
def quantized_linear_dynamic(node, a, b):
    """quantized::linear_dynamic(X, W_prepack, reduce_range): a float input and output, the
    integer weights dequantized (PyTorch also quantizes X on the fly: results differ from it by
    that rounding)."""
    y = _linear(b, a)
    return [b.ReLU(y) if "_relu_dynamic" in node.fw_op else y]


def _linear(b, a):
    x = _float(b, a.tensor(0))
    et = x.data.get_dtype()
    weight = a.tensor("weight")
    if weight.data.get_value() is not None and weight.data.get_dtype() in ("f16", "bf16") and et == "f32":
        # float16 weights (dynamic quantization to float16) stay compressed, decompressed at run time
        weight = b.Convert(weight, destination_type=et, rt_info={"decompression": None}, foldable=False)
    y = b.MatMul(x, convert(b, weight, et), transpose_b=True)
    return y if a.is_none("bias") else b.Add(y, convert(b, a.tensor("bias"), et))


@aten("quantized::conv1d", "quantized::conv2d", "quantized::conv3d", "quantized::conv1d_relu",
      "quantized::conv2d_relu", "quantized::conv3d_relu", "quantized::conv_transpose1d",
      "quantized::conv_transpose2d", "quantized::conv_transpose3d")
def quantized_conv(node, a, b):
    """quantized::conv{1,2,3}d[_relu](qx, packed_weight, output_scale, output_zero_point) and
    conv_transpose{1,2,3}d: the convolution of the dequantized input and weights, plus the float
    bias, requantized."""
    x = _float(b, a.tensor(0))
    et = x.data.get_dtype()
    weight = convert(b, a.tensor("weight"), et)
    n = rank_of(weight, node) - 2
    if rank_of(x, node) != n + 2:
        raise ConversionError(f"A rank-{rank_of(x, node)} input of a {n}-d quantized convolution is not supported "
                              f"(expected rank {n + 2}).")
    groups = int(a.const("groups"))
    pads = [int(p) for p in a.const("padding")]
    attrs = dict(strides=[int(s) for s in a.const("stride")], dilations=[int(d) for d in a.const("dilation")],
                 pads_begin=pads, pads_end=pads, auto_pad="explicit")
    if a.const("transposed"):
        attrs["output_padding"] = [int(p) for p in a.const("output_padding")]
        if groups == 1:
            y = b.ConvolutionBackpropData(x, weight, **attrs)
        else:
            y = b.GroupConvolutionBackpropData(x, grouped_weights(b, weight, groups), **attrs)
    elif groups == 1:
        y = b.Convolution(x, weight, **attrs)
    else:
        y = b.GroupConvolution(x, grouped_weights(b, weight, groups), **attrs)
    if not a.is_none("bias"):
        y = b.Add(y, channel_bias(b, convert(b, a.tensor("bias"), et), n))
    return [requantize(node, b, y, "output_scale", "output_zero_point", a, relu=node.fw_op.endswith("_relu"))]


_BINARY = {"add": "Add", "mul": "Multiply"}


@aten("quantized::add", "quantized::add_relu", "quantized::mul", "quantized::mul_relu")
def quantized_binary(node, a, b):
    """quantized::add / mul[_relu](qa, qb, scale, zero_point)."""
    x = _float(b, a.tensor(0))
    y = convert(b, a.tensor(1), x.data.get_dtype())
    op = _BINARY[node.fw_op.split("::")[1].split("_")[0]]
    return [requantize(node, b, getattr(b, op)(x, y), "scale", "zero_point", a,
                       relu=node.fw_op.endswith("_relu"))]


@aten("quantized::add_scalar", "quantized::add_scalar_relu", "quantized::mul_scalar", "quantized::mul_scalar_relu")
def quantized_binary_scalar(node, a, b):
    """quantized::add_scalar / mul_scalar[_relu](qa, b): PyTorch picks the output's parameters
    so that the result stays on a grid of the input's spacing; computed in float."""
    x = _float(b, a.tensor(0))
    y = convert(b, a.tensor(1), x.data.get_dtype())
    out = b.Add(x, y) if "add" in node.fw_op else b.Multiply(x, y)
    return [b.ReLU(out) if node.fw_op.endswith("_relu") else out]


@aten("quantized::cat", "quantized::cat_relu")
def quantized_cat(node, a, b):
    """quantized::cat[_relu](qx, dim, scale, zero_point): a None scale keeps the inputs' grid."""
    tensors = [_float(b, t) for t in a.tensors(0)]
    if not tensors:
        raise ConversionError("quantized::cat of an empty list.")
    rank = rank_of(tensors[0], node)
    y = b.Concat(*tensors, axis=norm_axis(int(a.const("dim")), rank, node))
    return [requantize(node, b, y, "scale", "zero_point", a, relu=node.fw_op.endswith("_relu"))]


@aten("quantized::hardswish", "quantized::sigmoid")
def quantized_activation(node, a, b):
    """quantized::hardswish / sigmoid(input, output_scale, output_zero_point)."""
    x = _float(b, a.tensor(0))
    y = b.HSwish(x) if node.fw_op.endswith("hardswish") else b.Sigmoid(x)
    return [requantize(node, b, y, "output_scale", "output_zero_point", a)]


@aten("quantized::leaky_relu")
def quantized_leaky_relu(node, a, b):
    """quantized::leaky_relu(qx, negative_slope, inplace, output_scale, output_zero_point)."""
    x = _float(b, a.tensor(0))
    slope = const(b, float(a.const("negative_slope")), x.data.get_dtype())
    return [requantize(node, b, b.PRelu(x, slope), "output_scale", "output_zero_point", a)]


@aten("quantized::relu6")
def quantized_relu6(node, a, b):
    """quantized::relu6(qx, inplace): clamped to [0, 6] (PyTorch clamps at the grid value
    nearest 6, within one quantum)."""
    return [b.Clamp(_float(b, a.tensor(0)), min=0.0, max=6.0)]


@aten("quantized::batch_norm1d", "quantized::batch_norm2d", "quantized::batch_norm3d", "quantized::batch_norm",
      "quantized::batch_norm1d_relu", "quantized::batch_norm2d_relu", "quantized::batch_norm3d_relu",
      "quantized::batch_norm_relu")
def quantized_batch_norm(node, a, b):
    """quantized::batch_norm*(qx, weight, bias, mean, var, eps, output_scale, output_zero_point)."""
    x = _float(b, a.tensor(0))
    et = x.data.get_dtype()
    mean, var = convert(b, a.tensor("mean"), et), convert(b, a.tensor("var"), et)
    gamma = const(b, 1.0, et) if a.is_none("weight") else convert(b, a.tensor("weight"), et)
    beta = const(b, 0.0, et) if a.is_none("bias") else convert(b, a.tensor("bias"), et)
    gamma, beta = b.Broadcast(gamma, b.ShapeOf(mean)), b.Broadcast(beta, b.ShapeOf(mean))
    y = b.BatchNormInference(x, gamma, beta, mean, var, epsilon=float(a.const("eps")))
    return [requantize(node, b, y, "output_scale", "output_zero_point", a, relu=node.fw_op.endswith("_relu"))]


@aten("quantized::layer_norm", "quantized::group_norm", "quantized::instance_norm")
def quantized_norm(node, a, b):
    """quantized::layer_norm(input, normalized_shape, weight, bias, eps, ...), group_norm(input,
    num_groups, weight, bias, eps, ...), instance_norm(input, weight, bias, eps, ...): the float
    normalization, requantized."""
    kind = node.fw_op.split("::")[1]
    if kind == "layer_norm":
        y = _layer_norm(node, a, b)
    elif kind == "group_norm":
        y = _group_norm(node, a, b, int(a.const("num_groups")))
    else:
        y = instance_norm(node, b)[0]
    return [requantize(node, b, y, "output_scale", "output_zero_point", a)]


@aten("quantized::embedding_byte")
def quantized_embedding(node, a, b):
    """quantized::embedding_byte(weight, indices, pruned_weights): rows of the 8-bit table (per-row
    float scale and zero point), dequantized."""
    if a.const("pruned_weights", False):
        raise ConversionError("quantized::embedding_byte of pruned weights is not supported.")
    return [b.Gather(a.tensor("weight"), convert(b, a.tensor("indices"), "i64"), np.int64(0))]


@aten("quantized::matmul")
def quantized_matmul(node, a, b):
    """quantized::matmul(qa, qb, scale, zero_point)."""
    x = _float(b, a.tensor(0))
    y = b.MatMul(x, convert(b, a.tensor(1), x.data.get_dtype()))
    return [requantize(node, b, y, "scale", "zero_point", a)]


# ---------------------------------------------------------------------------- quantized_decomposed (PT2E)


def _decomposed_params(node, a, b, x, et: str):
    """Scale and zero point of a quantized_decomposed op in ``et``, per tensor or along ``axis``."""
    scale = _param(b, _arg(a, 1), et)
    zero_point = None if a.is_none(2) else _param(b, _arg(a, 2), et)
    if a.has("axis"):
        rank = rank_of(x, node)
        axis = norm_axis(int(a.const("axis")), rank, node)
        scale, zero_point = _along(b, scale, axis, rank), _along(b, zero_point, axis, rank)
    return scale, zero_point


@aten("quantized_decomposed::quantize_per_tensor", "quantized_decomposed::quantize_per_channel")
def decomposed_quantize(node, a, b):
    """quantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype) and
    quantize_per_channel(input, scales, zero_points, axis, ...): the integers
    clamp(round(x / scale) + zero_point, quant_min, quant_max) in ``dtype``. The dequantize that
    reads them directly folds the pair into a FakeQuantize."""
    x = _float(b, a.tensor(0))
    et = x.data.get_dtype()
    scale, zero_point = _decomposed_params(node, a, b, x, et)
    qmin, qmax = int(a.const("quant_min")), int(a.const("quant_max"))
    q = b.Add(b.Round(b.Divide(x, scale), mode="half_to_even"), zero_point)
    q = b.Convert(b.Clamp(q, min=float(qmin), max=float(qmax)), destination_type=a.const("dtype"))
    q.node["quantized_from"] = (x, scale, zero_point, qmin, qmax)
    return [q]


@aten("quantized_decomposed::dequantize_per_tensor", "quantized_decomposed::dequantize_per_channel")
def decomposed_dequantize(node, a, b):
    """dequantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype, out_dtype) and
    dequantize_per_channel(input, scales, zero_points, axis, ...): (q - zero_point) * scale;
    integer constants (weights) stay integers in the IR. Of a quantize's result directly: a
    FakeQuantize of the quantize's input."""
    q = a.tensor(0)
    et = a.const("out_dtype", None) or "f32"
    source = q.node.get("quantized_from")
    if source is not None:
        x, scale, zero_point, qmin, qmax = source
        return [convert(b, fake_quantize(b, x, scale, zero_point, qmin, qmax), et)]
    scale, zero_point = _decomposed_params(node, a, b, q, et)
    return [dequantize(b, q, scale, None if zero_point is None else _nonzero(zero_point), et)]
