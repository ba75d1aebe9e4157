"""TensorFlow math ops without an opset counterpart, built from opset ops; their constants take
the element type of the op's input."""
from __future__ import annotations

from functools import reduce

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import i64, input_rank, typed_const
from mo.utils.types import bit_width, is_int

SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805


def _inputs(node):
    return [node.in_port(i).get_source() for i in sorted(node.in_ports())]


def _const(b, value, like):
    """``value`` in the element type of the port ``like``."""
    return typed_const(b, value, like.data.get_dtype())


def _unless_zero(b, test, value):
    """0 where ``test`` is 0, else ``value``."""
    zero = _const(b, 0, test)
    return b.Select(b.Equal(test, zero), zero, value)


@translator("tf", "Rsqrt")
def rsqrt(node, b):
    x = node.in_port(0).get_source()
    return [b.Divide(_const(b, 1, x), b.Sqrt(x))]


@translator("tf", "Reciprocal", "Inv")
def reciprocal(node, b):
    x = node.in_port(0).get_source()
    return [b.Divide(_const(b, 1, x), x)]


@translator("tf", "Square")
def square(node, b):
    x = node.in_port(0).get_source()
    return [b.Multiply(x, x)]


@translator("tf", "Log1p")
def log1p(node, b):
    x = node.in_port(0).get_source()
    return [b.Log(b.Add(x, _const(b, 1, x)))]


@translator("tf", "Expm1")
def expm1(node, b):
    x = node.in_port(0).get_source()
    return [b.Subtract(b.Exp(x), _const(b, 1, x))]


@translator("tf", "Erfc")
def erfc(node, b):
    x = node.in_port(0).get_source()
    return [b.Subtract(_const(b, 1, x), b.Erf(x))]


@translator("tf", "Selu")
def selu(node, b):
    x = node.in_port(0).get_source()
    return [b.Selu(x, _const(b, SELU_ALPHA, x), _const(b, SELU_SCALE, x))]


@translator("tf", "LeakyRelu")
def leaky_relu(node, b):
    x = node.in_port(0).get_source()
    return [b.PRelu(x, _const(b, [TfExtractor.attr(node, "alpha", 0.2)], x))]


@translator("tf", "Relu6")
def relu6(node, b):
    return [b.Clamp(node.in_port(0).get_source(), min=0.0, max=6.0)]


@translator("tf", "Div", "TruncateDiv")
def div(node, b):
    """Integer division truncates; TruncateDiv of floats truncates the quotient toward zero."""
    x, y = _inputs(node)
    quotient = b.Divide(x, y, m_pythondiv=False)
    if node.fw_op == "TruncateDiv" and not is_int(x.data.get_dtype()):
        return [b.Multiply(b.Sign(quotient), b.Floor(b.Abs(quotient)))]
    return [quotient]


@translator("tf", "FloorDiv")
def floor_div(node, b):
    """Integers: (x - floormod(x, y)) / y, an exact division (the runtime's Python-style Divide
    rounds some negative quotients towards zero); floats: floor(x / y)."""
    x, y = _inputs(node)
    if is_int(x.data.get_dtype()):
        return [b.Divide(b.Subtract(x, b.FloorMod(x, y)), y)]
    return [b.Floor(b.Divide(x, y))]


# op type -> (the opset op of x and y, the input whose zeros make the result 0)
UNLESS_ZERO = {"DivNoNan": ("Divide", 1), "MulNoNan": ("Multiply", 1), "Xdivy": ("Divide", 0)}


@translator("tf", *UNLESS_ZERO)
def unless_zero(node, b):
    """x / y or x * y, and 0 where y (Xdivy: x) is 0."""
    op, test = UNLESS_ZERO[node.fw_op]
    inputs = _inputs(node)
    return [_unless_zero(b, inputs[test], b.op(op, *inputs))]


@translator("tf", "Xlogy")
def xlogy(node, b):
    x, y = _inputs(node)
    return [_unless_zero(b, x, b.Multiply(x, b.Log(y)))]


@translator("tf", "AddN")
def add_n(node, b):
    x = _inputs(node)
    return [reduce(lambda acc, t: b.Add(acc, t), x[1:], x[0])]


@translator("tf", "ClipByValue")
def clip_by_value(node, b):
    """max(min(x, high), low): where low > high, low, as TensorFlow computes it."""
    x, low, high = _inputs(node)
    return [b.Maximum(b.Minimum(x, high), low)]


@translator("tf", "ZerosLike")
def zeros_like(node, b):
    x = node.in_port(0).get_source()
    return [b.Broadcast(_const(b, 0, x), b.ShapeOf(x), mode="numpy")]


@translator("tf", "OnesLike")
def ones_like(node, b):
    x = node.in_port(0).get_source()
    return [b.Broadcast(_const(b, 1, x), b.ShapeOf(x), mode="numpy")]


@translator("tf", "Xlog1py")
def xlog1py(node, b):
    """x * log1p(y), 0 where x is 0."""
    x, y = _inputs(node)
    return [_unless_zero(b, x, b.Multiply(x, b.Log(b.Add(y, _const(b, 1, y)))))]


@translator("tf", "Atan2")
def atan2(node, b):
    """atan(y / x), moved by +-pi where x < 0 (+pi for y >= 0), and 0 where x and y are 0."""
    y, x = _inputs(node)
    zero = _const(b, 0, x)
    angle = b.Atan(b.Divide(y, x))
    half_turn = b.Select(b.GreaterEqual(y, zero), _const(b, np.pi, x), _const(b, -np.pi, x))
    angle = b.Select(b.Less(x, zero), b.Add(angle, half_turn), angle)
    return [b.Select(b.LogicalAnd(b.Equal(x, zero), b.Equal(y, zero)), zero, angle)]


@translator("tf", "ApproximateEqual")
def approximate_equal(node, b):
    """|x - y| < tolerance (the tolerance in the inputs' type)."""
    x, y = _inputs(node)
    return [b.Less(b.Abs(b.Subtract(x, y)), _const(b, TfExtractor.attr(node, "tolerance", 1e-5), x))]


@translator("tf", "LeftShift", "RightShift")
def shift(node, b):
    """Bitwise shifts by amounts clamped to [0, bit width - 1], as TensorFlow clamps them."""
    x, amount = _inputs(node)
    top = bit_width(amount.data.get_dtype()) - 1
    amount = b.Minimum(b.Maximum(amount, _const(b, 0, amount)), _const(b, top, amount))
    return [b.BitwiseLeftShift(x, amount) if node.fw_op == "LeftShift" else b.BitwiseRightShift(x, amount)]


@translator("tf", "L2Loss")
def l2_loss(node, b):
    """sum(t * t) / 2 over every element."""
    t = node.in_port(0).get_source()
    flat = b.Reshape(t, i64(-1), special_zero=False)
    return [b.Divide(b.ReduceSum(b.Multiply(flat, flat), i64(0), keep_dims=False), _const(b, 2, t))]


@translator("tf", "MatrixInverse", "BatchMatrixInverse")
def matrix_inverse(node, b):
    """Inverse of each matrix; ``adjoint``: of its (conjugate) transpose."""
    return [b.Inverse(node.in_port(0).get_source(), adjoint=bool(TfExtractor.attr(node, "adjoint", False)))]


@translator("tf", "ToBool")
def to_bool(node, b):
    """A scalar: whether it is non-zero; a tensor of rank 1 or more: whether it has elements."""
    x = node.in_port(0).get_source()
    if x.data.get_dtype() == "string":
        raise ConversionError("strings are not supported.")
    if input_rank(node) == 0:
        return [x if x.data.get_dtype() == "boolean" else b.NotEqual(x, _const(b, 0, x))]
    count = b.ReduceProd(b.ShapeOf(x, output_type="i64"), i64(0), keep_dims=False)
    return [b.Greater(count, np.int64(0))]

