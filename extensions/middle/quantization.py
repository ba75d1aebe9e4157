"""Middle lowering of the ONNX quantization operators to arithmetic opset ops:

* dequantize: (Convert(x) - Convert(zero_point)) * scale;
* quantize: Convert(Clamp(Round(x / scale, half to even) + zero_point, type range)), float8
  without the Round;
* QLinearConv / ConvInteger and QLinearMatMul / MatMulInteger: the zero-point-shifted operands
  multiplied in f32 (exact integer accumulators), then requantized with scale_a * scale_b /
  scale_y (or rounded to i32).

Scales and zero points are per tensor, per axis (1-D, along ``axis``) or blocked (the input's
rank, repeated ``block_size`` times along ``axis``)."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.conv import window
from extensions.middle.lowering import MiddleReplaceOp
from extensions.middle.nn_common import as_type
from mo.graph.builder import OpBuilder
from mo.graph.building import channel_bias, grouped_weights, input_rank
from mo.graph.port import Port
from mo.utils.shape import normalize_axis
from mo.utils.types import is_int

# Saturation range of each integer element type a quantizer can produce.
QUANT_RANGE = {"u8": (0, 255), "i8": (-128, 127), "u16": (0, 65535), "i16": (-32768, 32767), "u4": (0, 15),
               "i4": (-8, 7), "i32": (-2 ** 31, 2 ** 31 - 1), "u32": (0, 2 ** 32 - 1)}
# Largest finite value of the float8 types.
F8_MAX = {"f8e4m3": 448.0, "f8e5m2": 57344.0}




def dequantize(b: OpBuilder, x, scale, zero_point, dtype: str = "f32") -> Port:
    """(x - zero_point) * scale in ``dtype``; scale and zero point may be None. Constant integer
    data (quantized weights) stays in its type: its Convert is not folded, so the IR keeps the
    weights compressed and the runtime decompresses them."""
    if x.data.get_value() is not None and is_int(x.data.get_dtype()):
        real = b.Convert(x, destination_type=dtype, foldable=False)
    else:
        real = as_type(b, x, dtype)
    if zero_point is not None:
        real = b.Subtract(real, as_type(b, zero_point, dtype))
    return real if scale is None else b.Multiply(real, as_type(b, scale, dtype))


def quantize(b: OpBuilder, real, scale, zero_point, out_type: str, name: str, saturate: bool = True) -> Port:
    """saturate(round_half_even(real / scale) + zero_point) as the integer ``out_type``; for a
    float8 type real / scale + zero_point, rounded by the conversion and clamped to the type's
    finite range when ``saturate``."""
    return requantize(b, b.Divide(real, as_type(b, scale, real.data.get_dtype())), zero_point, out_type, name,
                      saturate)


def requantize(b: OpBuilder, q, zero_point, out_type: str, name: str, saturate: bool = True) -> Port:
    """Values already divided by the scale -> rounded, shifted by the zero point, saturated and
    converted to ``out_type``."""
    if out_type not in QUANT_RANGE and out_type not in F8_MAX:
        raise ValueError(f"quantizing to {out_type} is not supported: the output type must be an integer or "
                         f"float8 type (a zero point of a type OpenVINO lacks, such as int2 or float4e2m1, "
                         f"is read as f32)")
    dtype = q.data.get_dtype()
    if out_type in QUANT_RANGE:
        q = b.Round(q, mode="half_to_even")
    if zero_point is not None:
        q = b.Add(q, as_type(b, zero_point, dtype))
    low, high = QUANT_RANGE.get(out_type) or (-F8_MAX[out_type], F8_MAX[out_type])
    if out_type in QUANT_RANGE or saturate:
        q = b.Clamp(q, min=float(low), max=float(high))
    return b.Convert(q, destination_type=out_type, name=name)


def optional_source(node, port: int) -> Port | None:
    return node.in_port(port).get_source() if node.is_in_port_connected(port) else None


def leading_axis(b: OpBuilder, param, rank: int) -> Port | None:
    """A per-channel parameter [C] (or a scalar) -> [C, 1, ...] broadcasting along axis 0 of a
    tensor of ``rank``."""
    if param is None or rank < 2:
        return param
    return b.Reshape(param, np.array([-1] + [1] * (rank - 1), np.int64), special_zero=False)


def along_axis(b: OpBuilder, param, node, x_shape: tuple) -> Port | None:
    """A scale or zero point aligned with x: per tensor as is, per axis reshaped to [C, 1...],
    blocked repeated ``block_size`` times along the axis (and cut to x's size there)."""
    if param is None:
        return None
    shape = param.data.get_shape()
    if shape is None:
        raise ValueError(f"the rank of the scale of {node.fw_op} '{node.name}' is unknown")
    rank = len(x_shape)
    if node.block_size <= 0 and (len(shape) == 0 or shape == (1,)):
        return param
    axis = normalize_axis(node.axis, rank)
    if node.block_size <= 0:
        if len(shape) == 1 and axis < rank - 1:
            return b.Unsqueeze(param, np.arange(1, rank - axis, dtype=np.int64))
        return param
    if len(shape) != rank or any(d < 0 for d in shape):
        raise ValueError(f"blocked {node.fw_op} '{node.name}' needs a static scale of the input's rank")
    repeats = np.ones(rank + 1, np.int64)
    repeats[axis + 1] = node.block_size
    tiled = b.Tile(b.Unsqueeze(param, np.array([axis + 1], np.int64)), repeats)
    target = list(shape)
    target[axis] *= node.block_size
    expanded = b.Reshape(tiled, np.array(target, np.int64), special_zero=False)
    if 0 <= x_shape[axis] < target[axis]:
        expanded = b.Slice(expanded, np.array([0], np.int64), np.array([x_shape[axis]], np.int64),
                           np.array([1], np.int64), np.array([axis], np.int64))
    return expanded


def linear_operands(b: OpBuilder, node) -> tuple[Port, Port, Port | None]:
    """x, and the scale and zero point of Quantize/DequantizeLinear aligned with it."""
    x = node.in_port(0).get_source()
    shape = x.data.get_shape()
    if shape is None:
        raise ValueError(f"the rank of the input of {node.fw_op} '{node.name}' is unknown")
    scale = along_axis(b, node.in_port(1).get_source(), node, shape)
    return x, scale, along_axis(b, optional_source(node, 2), node, shape)


class QuantizeLinearToOpset(MiddleReplaceOp):
    op = "onnx::QuantizeLinear"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x, scale, zero_point = linear_operands(b, node)
        return [quantize(b, x, scale, zero_point, node.out_port(0).data.get_dtype(), node.name, node.saturate)]


def blocks_view(b: OpBuilder, node) -> tuple[Port, Port, Port | None, tuple] | None:
    """Blocked dequantization of a static x whose axis splits into whole blocks, kept compact:
    x [.., G * block, ..] viewed as [.., G, block, ..], scale and zero point [.., G, 1, ..]; the
    result is reshaped back to x's shape. None when that view does not apply."""
    x = node.in_port(0).get_source()
    shape = x.data.get_shape()
    if node.block_size <= 0 or shape is None or any(d < 0 for d in shape):
        return None
    axis = normalize_axis(node.axis, len(shape))
    if shape[axis] % node.block_size:
        return None
    grouped = list(shape[:axis]) + [shape[axis] // node.block_size, node.block_size] + list(shape[axis + 1:])
    view = b.Reshape(x, np.array(grouped, np.int64), special_zero=False)
    params = [node.in_port(i).get_source() if node.is_in_port_connected(i) else None for i in (1, 2)]
    scale, zero_point = (None if p is None else b.Unsqueeze(p, np.array([axis + 1], np.int64)) for p in params)
    return view, scale, zero_point, shape


class DequantizeLinearToOpset(MiddleReplaceOp):
    """Dequantization; blocked parameters along whole blocks stay one value per block (the
    weights of group-wise compressed models keep their size in the IR)."""

    op = "onnx::DequantizeLinear"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        blocks = blocks_view(b, node)
        if blocks is not None:
            view, scale, zero_point, shape = blocks
            real = dequantize(b, view, scale, zero_point, scale.data.get_dtype())
            real = b.Reshape(real, np.array(shape, np.int64), special_zero=False)
        else:
            x, scale, zero_point = linear_operands(b, node)
            real = dequantize(b, x, scale, zero_point, scale.data.get_dtype())
        out_type = node.out_port(0).data.get_dtype()
        if real.data.get_dtype() != out_type:
            return [b.Convert(real, destination_type=out_type, name=node.name)]
        real.node["name"] = node.name
        return [real]


def integer_result(b: OpBuilder, real, name: str) -> Port:
    """A product of integers computed in f32 -> i32."""
    return b.Convert(b.Round(real, mode="half_to_even"), destination_type="i32", name=name)


def multiplier(b: OpBuilder, a_scale, b_scale, y_scale) -> Port:
    """a_scale * b_scale / y_scale in f32: what turns an integer accumulator into output steps."""
    product = b.Multiply(as_type(b, a_scale, "f32"), as_type(b, b_scale, "f32"))
    return b.Divide(product, as_type(b, y_scale, "f32"))


class QuantizedConvToOpset(MiddleReplaceOp):
    """QLinearConv / ConvInteger -> Convolution or GroupConvolution of the zero-point-shifted
    operands in f32 (an exact integer accumulator, as the reference computes it in int32);
    QLinearConv adds its int32 bias and requantizes with x_scale * w_scale / y_scale."""

    op = "onnx::QuantizedConv"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        src = lambda i: optional_source(node, i)  # noqa: E731
        w_port = 3 if node.qlinear else 1
        w_rank = input_rank(node, w_port)
        x = dequantize(b, src(0), None, src(2))
        w = dequantize(b, src(w_port), None, leading_axis(b, src(w_port + 2), w_rank))
        if node.group == 1:
            acc = b.Convolution(x, w, **window(node))
        else:
            acc = b.GroupConvolution(x, grouped_weights(b, w, node.group), **window(node))
        if not node.qlinear:
            return [integer_result(b, acc, node.name)]
        if node.is_in_port_connected(8):
            acc = b.Add(acc, channel_bias(b, as_type(b, src(8), "f32"), w_rank - 2))
        steps = b.Multiply(acc, leading_axis(b, multiplier(b, src(1), src(4), src(6)), w_rank - 1))
        return [requantize(b, steps, src(7), node.out_port(0).data.get_dtype(), node.name)]


def per_row(b: OpBuilder, param) -> Port | None:
    """A per-row parameter [M] (or a scalar) -> [M, 1], broadcasting over rows of [..., M, K]."""
    return None if param is None else b.Reshape(param, np.array([-1, 1], np.int64), special_zero=False)


class QuantizedMatMulToOpset(MiddleReplaceOp):
    """QLinearMatMul / MatMulInteger -> MatMul of the zero-point-shifted operands in f32 (a's
    parameters per row, b's per column); QLinearMatMul requantizes with a_scale * b_scale /
    y_scale."""

    op = "onnx::QuantizedMatMul"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        src = lambda i: optional_source(node, i)  # noqa: E731
        b_port = 3 if node.qlinear else 1
        a = dequantize(b, src(0), None, per_row(b, src(2)))
        acc = b.MatMul(a, dequantize(b, src(b_port), None, src(b_port + 2)))
        if not node.qlinear:
            return [integer_result(b, acc, node.name)]
        steps = b.Multiply(acc, multiplier(b, per_row(b, src(1)), src(4), src(6)))
        return [requantize(b, steps, src(7), node.out_port(0).data.get_dtype(), node.name)]
