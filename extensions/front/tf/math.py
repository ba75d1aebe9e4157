"""TensorFlow elementwise ops without an opset counterpart, built from opset ops; their
constants take the element type of the op's input."""
from __future__ import annotations

from functools import reduce

from extensions.load.tf.attributes import TfExtractor
from mo.front.translator import translator
from mo.graph.building import typed_const
from mo.utils.types import is_int

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
