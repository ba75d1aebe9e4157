"""ONNX quantization operators: their extractors and translators to arithmetic opset ops.

* dequantize: (Convert(x) - Convert(zero_point)) * scale;
* quantize: Convert(Clamp(Round(x / scale, half to even) + zero_point, type range)), float8
  without the Round;
* QLinearConv / ConvInteger and QLinearMatMul: the zero-point-shifted operands multiplied in f32
  (exact integer accumulators), then requantized with scale_a * scale_b / scale_y (or rounded
  to i32);
* DynamicQuantizeLinear: the u8 scale and zero point from the range of the input.

Scales and zero points are per tensor, per axis (1-D, along ``axis``) or blocked (the input's
rank, repeated ``block_size`` times along ``axis``)."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.conv import window, window_attrs
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import element_type_of
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import channel_bias, convert, grouped_weights, i64, input_rank, optional_source
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.shape import normalize_axis
from mo.utils.types import is_int

# Saturation range of each integer element type a quantizer can produce.
QUANT_RANGE = {"u8": (0, 255), "i8": (-128, 127), "u16": (0, 65535), "i16": (-32768, 32767), "u4": (0, 15),
               "i4": (-8, 7), "i32": (-2 ** 31, 2 ** 31 - 1), "u32": (0, 2 ** 32 - 1)}
# Largest finite value of the float8 types.
F8_MAX = {"f8e4m3": 448.0, "f8e5m2": 57344.0}


def linear_attrs(ext, node) -> dict:
    """axis, block_size and output_dtype (None: from the inputs) of Quantize/DequantizeLinear."""
    dtype = int(ext.attr(node, "output_dtype", 0))
    return {"axis": int(ext.attr(node, "axis", 1)), "block_size": int(ext.attr(node, "block_size", 0)),
            "output_dtype": element_type_of(dtype, f" of node '{node.name}'") if dtype else None}


def dequantize(b: OpBuilder, x, scale, zero_point, dtype: str = "f32") -> Port:
    """(x - zero_point) * scale in ``dtype``; scale and zero point may be None. Constant integer
    data (quantized weights) stays in its type: its Convert is not folded, so the IR keeps the
    weights compressed and the runtime decompresses them."""
    if x.data.get_value() is not None and is_int(x.data.get_dtype()):
        real = b.Convert(x, destination_type=dtype, foldable=False)
    else:
        real = convert(b, x, dtype)
    if zero_point is not None:
        real = b.Subtract(real, convert(b, zero_point, dtype))
    return real if scale is None else b.Multiply(real, convert(b, scale, dtype))


def requantize(b: OpBuilder, q, zero_point, out_type: str, saturate: bool = True) -> Port:
    """Values already divided by the scale -> rounded, shifted by the zero point, saturated and
    converted to ``out_type``; a float8 type is not rounded (the conversion does) and clamped to
    its finite range only when ``saturate``."""
    if out_type not in QUANT_RANGE and out_type not in F8_MAX:
        raise ConversionError(f"quantizing to {out_type} is not supported: the output type "
                              f"must be an integer or float8 type (a zero point of a type OpenVINO lacks, such as "
                              f"int2 or float4e2m1, is read as f32)")
    dtype = q.data.get_dtype()
    if out_type in QUANT_RANGE:
        q = b.Round(q, mode="half_to_even")
    if zero_point is not None:
        q = b.Add(q, convert(b, zero_point, dtype))
    low, high = QUANT_RANGE.get(out_type) or (-F8_MAX[out_type], F8_MAX[out_type])
    if out_type in QUANT_RANGE or saturate:
        q = b.Clamp(q, min=float(low), max=float(high))
    return b.Convert(q, destination_type=out_type)


def along_axis(b: OpBuilder, param, node: Node, x_shape: tuple) -> Port | None:
    """A scale or zero point aligned with x: per tensor as is, per axis reshaped to [C, 1...],
    blocked repeated ``block_size`` times along the axis (and cut to x's size there)."""
    if param is None:
        return None
    shape = param.data.get_shape()
    if shape is None:
        raise ConversionError("the rank of the scale is not known; give the model input shapes "
                              "with --input")
    rank = len(x_shape)
    if node.block_size <= 0 and (len(shape) == 0 or shape == (1,)):
        return param
    axis = normalize_axis(node.axis, rank)
    if node.block_size <= 0:
        if len(shape) == 1 and axis < rank - 1:
            return b.Unsqueeze(param, np.arange(1, rank - axis, dtype=np.int64))
        return param
    if len(shape) != rank or any(d < 0 for d in shape):
        raise ConversionError("blocked quantization needs a static scale of the input's rank")
    repeats = np.ones(rank + 1, np.int64)
    repeats[axis + 1] = node.block_size
    tiled = b.Tile(b.Unsqueeze(param, i64(axis + 1)), repeats)
    target = list(shape)
    target[axis] *= node.block_size
    expanded = b.Reshape(tiled, np.array(target, np.int64), special_zero=False)
    if 0 <= x_shape[axis] < target[axis]:
        expanded = b.Slice(expanded, i64(0), i64(x_shape[axis]), i64(1), i64(axis))
    return expanded


def linear_operands(b: OpBuilder, node: Node) -> tuple[Port, Port, Port | None]:
    """x, and the scale and zero point of Quantize/DequantizeLinear aligned with it."""
    x = node.in_port(0).get_source()
    shape = x.data.get_shape()
    if shape is None:
        raise ConversionError("the rank of the input is not known; give the model input shapes "
                              "with --input")
    scale = along_axis(b, node.in_port(1).get_source(), node, shape)
    return x, scale, along_axis(b, optional_source(node, 2), node, shape)


class QuantizeLinearExtractor(OnnxExtractor):
    op_types = ("QuantizeLinear",)

    @classmethod
    def extract(cls, node):
        node.update({**linear_attrs(cls, node), "saturate": bool(cls.attr(node, "saturate", 1))})


@translator("onnx", "QuantizeLinear")
def quantize_linear(node: Node, b: OpBuilder) -> list[Port]:
    """saturate(round_half_even(x / scale) + zero_point) in the type of ``output_dtype``, else of
    the zero point, else u8; for a float8 type x / scale + zero_point, rounded by the conversion
    and clamped to the type's finite range when ``saturate``."""
    x, scale, zero_point = linear_operands(b, node)
    out_type = node.output_dtype or (node.in_dtype(2) if node.is_in_port_connected(2) else "u8")
    q = b.Divide(x, convert(b, scale, x.data.get_dtype()))
    return [requantize(b, q, zero_point, out_type, node.saturate)]


class DequantizeLinearExtractor(OnnxExtractor):
    op_types = ("DequantizeLinear",)

    @classmethod
    def extract(cls, node):
        node.update(linear_attrs(cls, node))


def blocks_view(b: OpBuilder, node: Node) -> tuple[Port, Port, Port | None, tuple] | None:
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
    scale, zero_point = (None if p is None else b.Unsqueeze(p, i64(axis + 1))
                         for p in (optional_source(node, 1), optional_source(node, 2)))
    return view, scale, zero_point, shape


@translator("onnx", "DequantizeLinear")
def dequantize_linear(node: Node, b: OpBuilder) -> list[Port]:
    """Dequantization in the scale's type (then ``output_dtype`` if given); blocked parameters
    along whole blocks stay one value per block (the weights of group-wise compressed models keep
    their size in the IR)."""
    blocks = blocks_view(b, node)
    if blocks is not None:
        view, scale, zero_point, shape = blocks
        real = dequantize(b, view, scale, zero_point, scale.data.get_dtype())
        real = b.Reshape(real, np.array(shape, np.int64), special_zero=False)
    else:
        x, scale, zero_point = linear_operands(b, node)
        real = dequantize(b, x, scale, zero_point, scale.data.get_dtype())
    out_type = node.output_dtype or node.in_dtype(1)
    if real.data.get_dtype() != out_type:
        return [b.Convert(real, destination_type=out_type)]
    return [real]


@translator("onnx", "DynamicQuantizeLinear")
def dynamic_quantize_linear(node: Node, b: OpBuilder) -> list[Port]:
    """scale = (max(x, 0) - min(x, 0)) / 255, zero_point = clamp(round(-min / scale), 0, 255),
    y = clamp(round(x / scale) + zero_point, 0, 255), all rounding half to even."""
    x = node.in_port(0).get_source()
    flat = b.Reshape(x, i64(-1), special_zero=False)
    low = b.Minimum(b.ReduceMin(flat, i64(0)), np.float32(0))
    high = b.Maximum(b.ReduceMax(flat, i64(0)), np.float32(0))
    scale = b.Divide(b.Subtract(high, low), np.float32(255), name=node.name + "/scale")
    zero = b.Clamp(b.Round(b.Divide(b.Negative(low), scale), mode="half_to_even"), min=0.0, max=255.0)
    y = b.Clamp(b.Add(b.Round(b.Divide(x, scale), mode="half_to_even"), zero), min=0.0, max=255.0)
    return [b.Convert(y, destination_type="u8", name=node.name), scale,
            b.Convert(zero, destination_type="u8", name=node.name + "/zero_point")]


def integer_result(b: OpBuilder, real) -> Port:
    """A product of integers computed in f32 -> i32."""
    return b.Convert(b.Round(real, mode="half_to_even"), destination_type="i32")


def multiplier(b: OpBuilder, a_scale, b_scale, y_scale) -> Port:
    """a_scale * b_scale / y_scale in f32: what turns an integer accumulator into output steps."""
    return b.Divide(b.Multiply(convert(b, a_scale, "f32"), convert(b, b_scale, "f32")), convert(b, y_scale, "f32"))


def leading_axis(b: OpBuilder, param, rank: int) -> Port | None:
    """A per-channel parameter [C] (or a scalar) -> [C, 1, ...] broadcasting along axis 0 of a
    tensor of ``rank``."""
    if param is None or rank < 2:
        return param
    return b.Reshape(param, np.array([-1] + [1] * (rank - 1), np.int64), special_zero=False)


class QuantizedConvExtractor(OnnxExtractor):
    """The window attributes and ``group`` of QLinearConv and ConvInteger."""

    op_types = ("QLinearConv", "ConvInteger")

    @classmethod
    def extract(cls, node):
        node.update({**window_attrs(cls, node), "group": int(cls.attr(node, "group", 1))})


def integer_conv(b: OpBuilder, node: Node, x: Port, x_zero_point, w_port: int) -> Port:
    """Convolution or GroupConvolution of the zero-point-shifted operands in f32 (an exact integer
    accumulator, as the reference computes it in int32); the weights' zero point follows them
    (input ``w_port + 2``), per output channel."""
    w_rank = input_rank(node, w_port)
    x = dequantize(b, x, None, x_zero_point)
    w = dequantize(b, node.in_port(w_port).get_source(), None,
                   leading_axis(b, optional_source(node, w_port + 2), w_rank))
    if node.group == 1:
        return b.Convolution(x, w, **window(node))
    return b.GroupConvolution(x, grouped_weights(b, w, node.group), **window(node))


@translator("onnx", "QLinearConv")
def qlinear_conv(node: Node, b: OpBuilder) -> list[Port]:
    """The integer convolution + the int32 bias, requantized with x_scale * w_scale / y_scale."""
    src = lambda i: optional_source(node, i)  # noqa: E731
    acc = integer_conv(b, node, src(0), src(2), 3)
    n_spatial = input_rank(node, 3) - 2
    if src(8) is not None:
        acc = b.Add(acc, channel_bias(b, convert(b, src(8), "f32"), n_spatial))
    steps = b.Multiply(acc, leading_axis(b, multiplier(b, src(1), src(4), src(6)), n_spatial + 1))
    return [requantize(b, steps, src(7), node.in_dtype(7))]


@translator("onnx", "ConvInteger")
def conv_integer(node: Node, b: OpBuilder) -> list[Port]:
    """The integer convolution as i32."""
    return [integer_result(b, integer_conv(b, node, node.in_port(0).get_source(), optional_source(node, 2), 1))]


def per_row(b: OpBuilder, param) -> Port | None:
    """A per-row parameter [M] (or a scalar) -> [M, 1], broadcasting over rows of [..., M, K]."""
    return None if param is None else b.Reshape(param, i64(-1, 1), special_zero=False)


@translator("onnx", "QLinearMatMul")
def qlinear_matmul(node: Node, b: OpBuilder) -> list[Port]:
    """MatMul of the zero-point-shifted operands in f32 (a's parameters per row, b's per column),
    requantized with a_scale * b_scale / y_scale."""
    src = lambda i: optional_source(node, i)  # noqa: E731
    a = dequantize(b, src(0), None, per_row(b, src(2)))
    acc = b.MatMul(a, dequantize(b, src(3), None, src(5)))
    steps = b.Multiply(acc, multiplier(b, per_row(b, src(1)), src(4), src(6)))
    return [requantize(b, steps, src(7), node.in_dtype(7))]
