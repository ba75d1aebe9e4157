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
from extensions.front.onnx.softmax import along_axis_of_opset
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import element_type_of
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import (
    channel_bias,
    convert,
    grouped_weights,
    i64,
    input_rank,
    norm_axis,
    optional_source,
    to_channels_first,
)
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
    weights compressed and the runtime decompresses them; their constant zero point stays integer
    too (one value when all are equal), as the runtime's decompression of weights expects it."""
    weights = x.data.get_value() is not None and is_int(x.data.get_dtype())
    real = b.Convert(x, destination_type=dtype, foldable=False) if weights else convert(b, x, dtype)
    if zero_point is not None:
        value = zero_point.data.get_value()
        if weights and value is not None and is_int(zero_point.data.get_dtype()):
            flat = value.reshape(-1)
            stored = b.const(flat[:1].reshape(()) if flat.size and np.all(flat == flat[0]) else value,
                             element_type=zero_point.data.get_dtype())
            zero_point = b.Convert(stored, destination_type=dtype, foldable=False)
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


def quantize(b: OpBuilder, x: Port, scale, zero_point, out_type: str, saturate: bool = True) -> Port:
    """x / scale, rounded half to even, + zero point, saturated to ``out_type`` (ONNX
    QuantizeLinear); scale and zero point broadcast to x. Where the result is dequantized again
    with constant parameters, the middle phase turns the pair into a FakeQuantize
    (``extensions/middle/quantization_fusions.py``)."""
    return requantize(b, b.Divide(x, convert(b, scale, x.data.get_dtype())), zero_point, out_type, saturate)


@translator("onnx", "QuantizeLinear")
def quantize_linear(node: Node, b: OpBuilder) -> list[Port]:
    """saturate(round_half_even(x / scale) + zero_point) in the type of ``output_dtype``, else of
    the zero point, else u8; for a float8 type x / scale + zero_point, rounded by the conversion
    and clamped to the type's finite range when ``saturate``."""
    x, scale, zero_point = linear_operands(b, node)
    out_type = node.output_dtype or (node.in_dtype(2) if node.is_in_port_connected(2) else "u8")
    return [quantize(b, x, scale, zero_point, out_type, node.saturate)]


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


def leading_axis(b: OpBuilder, param, rank: int) -> Port | None:
    """A per-channel parameter [C] (or a scalar) -> [C, 1, ...] broadcasting along axis 0 of a
    tensor of ``rank``."""
    if param is None or rank < 2:
        return param
    return b.Reshape(param, np.array([-1] + [1] * (rank - 1), np.int64), special_zero=False)


def per_row(b: OpBuilder, param) -> Port | None:
    """A per-row parameter [M] (or a scalar) -> [M, 1], broadcasting over rows of [..., M, K]."""
    return None if param is None else b.Reshape(param, i64(-1, 1), special_zero=False)


def operand(b: OpBuilder, node: Node, data: int, shape=None) -> Port:
    """Input ``data`` dequantized with the scale and zero point that follow it (inputs data + 1,
    data + 2); ``shape(port)`` aligns a per-channel scale or zero point with the data."""
    align = shape or (lambda p: p)
    scale, zero_point = optional_source(node, data + 1), optional_source(node, data + 2)
    return dequantize(b, node.in_port(data).get_source(), None if scale is None else align(scale),
                      None if zero_point is None else align(zero_point))


def quantized_result(b: OpBuilder, node: Node, y: Port, scale: int, like: int) -> Port:
    """The float result ``y`` of a quantized op quantized with its output scale (input ``scale``)
    and zero point (input ``scale + 1``, whose type is the output type; when it is absent, the type
    of input ``like``)."""
    zero_point = optional_source(node, scale + 1)
    out_type = node.in_dtype(like) if zero_point is None else zero_point.data.get_dtype()
    return quantize(b, y, node.in_port(scale).get_source(), zero_point, out_type)


class QuantizedConvExtractor(OnnxExtractor):
    """The window attributes and ``group`` of QLinearConv and ConvInteger."""

    op_types = ("QLinearConv", "ConvInteger", "com.microsoft::QLinearConv")

    @classmethod
    def extract(cls, node):
        if int(cls.attr(node, "channels_last", 0)):
            raise ConversionError("channels_last QLinearConv is not supported; quantize the model in the NCHW "
                                  "layout")
        node.update({**window_attrs(cls, node), "group": int(cls.attr(node, "group", 1))})


def convolve(b: OpBuilder, node: Node, x: Port, w: Port) -> Port:
    """Convolution, or GroupConvolution of the weights split per group, of the node's window."""
    if node.group == 1:
        return b.Convolution(x, w, **window(node))
    return b.GroupConvolution(x, grouped_weights(b, w, node.group), **window(node))


@translator("onnx", "QLinearConv", "com.microsoft::QLinearConv")
def qlinear_conv(node: Node, b: OpBuilder) -> list[Port]:
    """Convolution of the dequantized input and weights (the weights' scale and zero point per
    output channel) + the int32 bias times x_scale * w_scale, quantized with y_scale and
    y_zero_point."""
    w_rank = input_rank(node, 3)
    x = operand(b, node, 0)
    w = operand(b, node, 3, lambda p: leading_axis(b, p, w_rank))
    y = convolve(b, node, x, w)
    bias = optional_source(node, 8)
    if bias is not None:
        bias_scale = b.Multiply(convert(b, node.in_port(1).get_source(), "f32"),
                                convert(b, node.in_port(4).get_source(), "f32"))
        y = b.Add(y, channel_bias(b, b.Multiply(convert(b, bias, "f32"), bias_scale), w_rank - 2))
    return [quantized_result(b, node, y, 6, 0)]


def integer_result(b: OpBuilder, real) -> Port:
    """A product of integers computed in f32 -> i32."""
    return b.Convert(b.Round(real, mode="half_to_even"), destination_type="i32")


@translator("onnx", "ConvInteger")
def conv_integer(node: Node, b: OpBuilder) -> list[Port]:
    """Convolution of the zero-point-shifted operands in f32 (an exact integer accumulator, as
    the reference computes it in int32; the weights' zero point per output channel), as i32."""
    w_rank = input_rank(node, 1)
    x = dequantize(b, node.in_port(0).get_source(), None, optional_source(node, 2))
    w = dequantize(b, node.in_port(1).get_source(), None, leading_axis(b, optional_source(node, 3), w_rank))
    return [integer_result(b, convolve(b, node, x, w))]


@translator("onnx", "QLinearMatMul")
def qlinear_matmul(node: Node, b: OpBuilder) -> list[Port]:
    """MatMul of the dequantized operands (a's parameters per row, b's per column), quantized with
    y_scale and y_zero_point."""
    y = b.MatMul(operand(b, node, 0, lambda p: per_row(b, p)), operand(b, node, 3))
    return [quantized_result(b, node, y, 6, 0)]


@translator("onnx", "com.microsoft::QGemm")
def qgemm(node: Node, b: OpBuilder) -> list[Port]:
    """alpha * (A' B' + C * a_scale * b_scale) of the dequantized A and B (b's parameters per column
    of B'), quantized with y_scale / y_zero_point when given, else float."""
    trans_b = bool(OnnxExtractor.attr(node, "transB", 0))
    b_rank = input_rank(node, 3)
    along_b = (lambda p: leading_axis(b, p, b_rank)) if trans_b else None
    y = b.MatMul(operand(b, node, 0), operand(b, node, 3, along_b),
                 transpose_a=bool(OnnxExtractor.attr(node, "transA", 0)), transpose_b=trans_b)
    bias = optional_source(node, 6)
    if bias is not None:
        bias_scale = b.Multiply(convert(b, node.in_port(1).get_source(), "f32"),
                                convert(b, node.in_port(4).get_source(), "f32"))
        y = b.Add(y, b.Multiply(convert(b, bias, "f32"), bias_scale))
    alpha = float(OnnxExtractor.attr(node, "alpha", 1.0))
    if alpha != 1:
        y = b.Multiply(y, np.float32(alpha))
    if not node.is_in_port_connected(7):
        return [y]
    return [quantized_result(b, node, y, 7, 0)]


def elementwise(compute, operands: int):
    """A translator of a quantized op of ORT's contrib domain whose inputs are ``operands`` triples
    (X, X_scale, X_zero_point) then the output's scale and zero point: ``compute(b, node,
    *dequantized)`` gives the float result, which is quantized to the output's parameters."""
    def translate(node: Node, b: OpBuilder) -> list[Port]:
        inputs = [operand(b, node, 3 * i) for i in range(operands)]
        return [quantized_result(b, node, compute(b, node, *inputs), 3 * operands, 0)]
    translate.__doc__ = compute.__doc__
    translate.__name__ = compute.__name__
    return translate


def _add(b, node, x, y):
    """Sum of the dequantized operands."""
    return b.Add(x, y)


def _multiply(b, node, x, y):
    """Product of the dequantized operands."""
    return b.Multiply(x, y)


def _sigmoid(b, node, x):
    """Sigmoid of the dequantized input."""
    return b.Sigmoid(x)


def _leaky_relu(b, node, x):
    """LeakyRelu (``alpha``, default 0.01) of the dequantized input."""
    return b.PRelu(x, np.array([OnnxExtractor.attr(node, "alpha", 0.01)], np.float32))


def _spatial_axes(node: Node) -> np.ndarray:
    rank = input_rank(node)
    first = 1 if int(OnnxExtractor.attr(node, "channels_last", 0)) else 2
    return np.arange(first, first + rank - 2, dtype=np.int64)


def _global_average_pool(b, node, x):
    """Mean over the spatial axes (channels first, or last with ``channels_last``)."""
    return b.ReduceMean(x, _spatial_axes(node), keep_dims=True)


def _reduce_mean(b, node, x):
    """ReduceMean over ``axes`` (default all) with ``keepdims`` (default 1)."""
    axes = OnnxExtractor.ints(node, "axes") or list(range(input_rank(node)))
    return b.ReduceMean(x, np.array(axes, np.int64), keep_dims=bool(OnnxExtractor.attr(node, "keepdims", 1)))


qlinear_add = translator("onnx", "com.microsoft::QLinearAdd")(elementwise(_add, 2))
qlinear_mul = translator("onnx", "com.microsoft::QLinearMul")(elementwise(_multiply, 2))
qlinear_sigmoid = translator("onnx", "com.microsoft::QLinearSigmoid")(elementwise(_sigmoid, 1))
qlinear_leaky_relu = translator("onnx", "com.microsoft::QLinearLeakyRelu")(elementwise(_leaky_relu, 1))
qlinear_global_average_pool = translator("onnx", "com.microsoft::QLinearGlobalAveragePool")(
    elementwise(_global_average_pool, 1))
qlinear_reduce_mean = translator("onnx", "com.microsoft::QLinearReduceMean")(elementwise(_reduce_mean, 1))


class QLinearAveragePoolExtractor(OnnxExtractor):
    """The window, ceil_mode and count_include_pad of QLinearAveragePool."""

    op_types = ("com.microsoft::QLinearAveragePool",)

    @classmethod
    def extract(cls, node):
        if not cls.ints(node, "kernel_shape"):
            raise ValueError("kernel_shape is required")
        node.update({**window_attrs(cls, node), "ceil_mode": bool(cls.attr(node, "ceil_mode", 0)),
                     "exclude_pad": not bool(cls.attr(node, "count_include_pad", 0)),
                     "channels_last": bool(cls.attr(node, "channels_last", 0))})


@translator("onnx", "com.microsoft::QLinearAveragePool")
def qlinear_average_pool(node: Node, b: OpBuilder) -> list[Port]:
    """AvgPool of the dequantized input (channels last transposed to first and back)."""
    x = operand(b, node, 0)
    rank = input_rank(node)
    if node.channels_last:
        x = b.Transpose(x, to_channels_first(rank))
    y = b.AvgPool(x, **window(node), kernel=node.kernel, rounding_type="ceil_torch" if node.ceil_mode else "floor",
                  **{"exclude-pad": node.exclude_pad})
    if node.channels_last:
        y = b.Transpose(y, np.argsort(to_channels_first(rank)).astype(np.int64))
    return [quantized_result(b, node, y, 3, 0)]


@translator("onnx", "com.microsoft::QLinearConcat")
def qlinear_concat(node: Node, b: OpBuilder) -> list[Port]:
    """Concat along ``axis`` of the dequantized (tensor, scale, zero point) triples after Y_scale
    and Y_zero_point, quantized with those."""
    count = (len(node.in_ports()) - 2) // 3
    pieces = [operand(b, node, 2 + 3 * i) for i in range(count)]
    rank = input_rank(node, 2)
    y = b.Concat(*pieces, axis=norm_axis(int(OnnxExtractor.attr(node, "axis")), rank, node))
    return [quantized_result(b, node, y, 0, 2)]


@translator("onnx", "com.microsoft::QLinearSoftmax")
def qlinear_softmax(node: Node, b: OpBuilder) -> list[Port]:
    """Softmax of the dequantized input along ``axis`` (as Softmax of the ``opset`` it names),
    quantized with y_scale and y_zero_point."""
    opset = int(OnnxExtractor.attr(node, "opset", 13))
    y = along_axis_of_opset(node, b, operand(b, node, 0), opset, lambda x, axis: b.Softmax(x, axis=axis))
    return [quantized_result(b, node, y[0], 3, 0)]


@translator("onnx", "com.microsoft::QLinearWhere")
def qlinear_where(node: Node, b: OpBuilder) -> list[Port]:
    """Select(condition, X, Y) of the dequantized X and Y, quantized with z_scale / z_zero_point."""
    y = b.Select(node.in_port(0).get_source(), operand(b, node, 1), operand(b, node, 4))
    return [quantized_result(b, node, y, 7, 1)]


@translator("onnx", "com.microsoft::DynamicQuantizeMatMul")
def dynamic_quantize_matmul(node: Node, b: OpBuilder) -> list[Port]:
    """A @ dequantized B (+ bias). ONNX Runtime quantizes A on the fly to u8 over its own range;
    the IR multiplies A as it is (the CPU plugin quantizes the activations of a layer with integer
    weights itself), which differs from ORT by less than A's quantization step."""
    y = b.MatMul(node.in_port(0).get_source(), operand(b, node, 1))
    bias = optional_source(node, 4)
    return [y if bias is None else b.Add(y, bias)]


@translator("onnx", "com.microsoft::MatMulIntegerToFloat")
def matmul_integer_to_float(node: Node, b: OpBuilder) -> list[Port]:
    """Dequantized A (per-row parameters) @ dequantized B (per-column) (+ bias), in float."""
    src = lambda i: optional_source(node, i)  # noqa: E731
    a = dequantize(b, src(0), per_row(b, src(2)), per_row(b, src(4)))
    y = b.MatMul(a, dequantize(b, src(1), src(3), src(5)))
    return [y if src(6) is None else b.Add(y, src(6))]
