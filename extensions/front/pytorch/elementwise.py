"""ATen elementwise operations: arithmetic with PyTorch's type promotion, comparisons, logical
and bitwise ops, unary math, where / masked_fill / clamp: their translators."""
from __future__ import annotations

import math

import numpy as np

from extensions.front.pytorch.aten import const, is_float_type, promoted, result_type
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import convert

# binary ops computed by one opset op in the promoted type (aten::max / min: see reductions.py)
ARITHMETIC = {
    "aten::mul": "Multiply", "aten::multiply": "Multiply", "aten::maximum": "Maximum", "aten::minimum": "Minimum",
    "aten::fmax": "Maximum", "aten::fmin": "Minimum", "aten::fmod": "Mod", "aten::remainder": "FloorMod",
    "prim::min": "Minimum", "prim::max": "Maximum",
}
COMPARISONS = {
    "aten::eq": "Equal", "aten::ne": "NotEqual", "aten::lt": "Less", "aten::le": "LessEqual", "aten::gt": "Greater",
    "aten::ge": "GreaterEqual", "aten::__eq__": "Equal", "aten::__ne__": "NotEqual", "aten::greater": "Greater",
    "aten::less": "Less", "aten::greater_equal": "GreaterEqual", "aten::less_equal": "LessEqual",
    "aten::not_equal": "NotEqual", "aten::__lt__": "Less", "aten::__gt__": "Greater", "aten::__le__": "LessEqual",
    "aten::__ge__": "GreaterEqual",
}
LOGICAL = {"aten::logical_and": "LogicalAnd", "aten::logical_or": "LogicalOr", "aten::logical_xor": "LogicalXor"}
BITWISE = {"aten::bitwise_and": ("BitwiseAnd", "LogicalAnd"), "aten::__and__": ("BitwiseAnd", "LogicalAnd"),
           "aten::bitwise_or": ("BitwiseOr", "LogicalOr"), "aten::__or__": ("BitwiseOr", "LogicalOr"),
           "aten::bitwise_xor": ("BitwiseXor", "LogicalXor"), "aten::__xor__": ("BitwiseXor", "LogicalXor")}
# unary functions computed in floating point (integer inputs in f32): ATen -> opset op
FLOATING = {
    "aten::exp": "Exp", "aten::log": "Log", "aten::sqrt": "Sqrt", "aten::sin": "Sin", "aten::cos": "Cos",
    "aten::tan": "Tan", "aten::asin": "Asin", "aten::acos": "Acos", "aten::atan": "Atan", "aten::sinh": "Sinh",
    "aten::cosh": "Cosh", "aten::tanh": "Tanh", "aten::asinh": "Asinh", "aten::acosh": "Acosh", "aten::atanh": "Atanh",
    "aten::arcsin": "Asin", "aten::arccos": "Acos", "aten::arctan": "Atan", "aten::erf": "Erf",
    "aten::sigmoid": "Sigmoid",
}
# unary ops computed in the input's type: ATen -> opset op
SAME_TYPE = {"aten::abs": "Abs", "aten::neg": "Negative", "aten::negative": "Negative", "aten::sign": "Sign",
             "aten::sgn": "Sign", "aten::relu": "ReLU"}
# rounding to an integral value: the identity on integers
ROUNDING = {"aten::floor": "Floor", "aten::ceil": "Ceiling"}
PREDICATES = {"aten::isnan": "IsNaN", "aten::isinf": "IsInf", "aten::isfinite": "IsFinite"}


# ---------------------------------------------------------------------------- arithmetic


def binary_op(b, op: str, x, y, et: str):
    """``op`` on operands of type ``et``; booleans are computed on 0/1 and read back as booleans
    (True + True is True)."""
    if et == "boolean":
        return convert(b, b.op(op, convert(b, x, "u8"), convert(b, y, "u8")), "boolean")
    return b.op(op, x, y)


def _with_alpha(a, b, op: str, swapped: bool = False):
    """``self op alpha * other`` (``other op alpha * self`` when ``swapped``) in the promoted type."""
    et, (x, y) = promoted(a, (0, 1), b)
    if swapped:
        x, y = y, x
    alpha_port = a.port("alpha") if a.has("alpha") and a.value("alpha") is None else None
    if alpha_port is not None:      # computed by the model (a size, in scripted code)
        return binary_op(b, op, x, b.Multiply(y, convert(b, alpha_port, et)), et)
    alpha = a.const("alpha", 1) if a.has("alpha") else 1
    return binary_op(b, op, x, y if alpha == 1 else b.Multiply(y, const(b, alpha, et)), et)


@aten(*ARITHMETIC)
def arithmetic(node, a, b):
    """mul, maximum / minimum, fmod, remainder: one opset op in the promoted type."""
    et, (x, y) = promoted(a, (0, 1), b)
    return [binary_op(b, ARITHMETIC[node.fw_op], x, y, et)]


@aten("aten::add")
def add(node, a, b):
    """self + alpha * other."""
    return [_with_alpha(a, b, "Add")]


@aten("aten::sub", "aten::subtract")
def sub(node, a, b):
    """self - alpha * other."""
    return [_with_alpha(a, b, "Subtract")]


@aten("aten::rsub")
def rsub(node, a, b):
    """other - alpha * self."""
    return [_with_alpha(a, b, "Subtract", swapped=True)]


@aten("aten::pow", "aten::float_power")
def power(node, a, b):
    """self ** exponent in the promoted type; integers to negative constant powers are refused as
    PyTorch does."""
    et, (x, y) = promoted(a, (0, 1), b)
    if not is_float_type(et) and et != "boolean":
        exponent = a.value(1)
        if exponent is not None and np.any(np.asarray(exponent) < 0):
            raise ConversionError("Integers to negative integer powers are not allowed in PyTorch.")
    return [binary_op(b, "Power", x, y, et)]


def _divide(a, b, mode: str | None):
    """True division (integers give f32), or rounded by ``mode`` "trunc" / "floor"."""
    et, (x, y) = promoted(a, (0, 1), b)
    if mode is None:
        if not is_float_type(et):
            x, y = convert(b, x, "f32"), convert(b, y, "f32")
        return b.Divide(x, y)
    if not is_float_type(et):
        if mode == "floor":   # exact division of x minus its floor remainder
            return b.Divide(b.Subtract(x, b.FloorMod(x, y)), y)
        return b.Divide(x, y)
    q = b.Divide(x, y)
    if mode == "floor":
        return b.Floor(q)
    return b.Select(b.Less(q, const(b, 0, et)), b.Ceiling(q), b.Floor(q))


@aten("aten::div", "aten::divide", "aten::true_divide")
def div(node, a, b):
    """div(self, other[, rounding_mode])."""
    return [_divide(a, b, a.const("rounding_mode", None) if a.has("rounding_mode") else None)]


@aten("aten::floor_divide", "aten::floordiv")
def floor_divide(node, a, b):
    return [_divide(a, b, "floor")]


@aten("aten::addcmul")
def addcmul(node, a, b):
    """self + value * tensor1 * tensor2."""
    et, (x, y, z) = promoted(a, (0, 1, 2), b)
    return [b.Add(x, _times_value(a, b, b.Multiply(y, z), et))]


@aten("aten::addcdiv")
def addcdiv(node, a, b):
    """self + value * tensor1 / tensor2 (floating point only, as in PyTorch)."""
    et, (x, y, z) = promoted(a, (0, 1, 2), b)
    if not is_float_type(et):
        raise ConversionError("addcdiv of integer tensors is not allowed in PyTorch.")
    return [b.Add(x, _times_value(a, b, b.Divide(y, z), et))]


def _times_value(a, b, product, et: str):
    value = a.const("value", 1)
    return product if value == 1 else b.Multiply(product, const(b, value, et))


@aten("aten::lerp")
def lerp(node, a, b):
    """self + weight * (end - self)."""
    _, (x, y, z) = promoted(a, (0, 1, 2), b)
    return [b.Add(x, b.Multiply(z, b.Subtract(y, x)))]


# ---------------------------------------------------------------------------- comparisons, logic


@aten(*COMPARISONS)
def compare(node, a, b):
    """Comparisons in the promoted type; boolean result."""
    _, (x, y) = promoted(a, (0, 1), b)
    return [b.op(COMPARISONS[node.fw_op], x, y)]


@aten(*LOGICAL)
def logical(node, a, b):
    """logical_and / or / xor of the operands taken as booleans."""
    x, y = (convert(b, a.tensor(i), "boolean") for i in (0, 1))
    return [b.op(LOGICAL[node.fw_op], x, y)]


@aten("aten::logical_not", "aten::__not__")
def logical_not(node, a, b):
    return [b.LogicalNot(convert(b, a.tensor(0), "boolean"))]


@aten(*BITWISE)
def bitwise(node, a, b):
    """Bitwise and / or / xor in the promoted type (logical ops on booleans)."""
    et, (x, y) = promoted(a, (0, 1), b)
    bitwise_op, logical_op = BITWISE[node.fw_op]
    return [b.op(logical_op if et == "boolean" else bitwise_op, x, y)]


@aten("aten::bitwise_not")
def bitwise_not(node, a, b):
    """~x: LogicalNot of booleans, BitwiseNot of integers."""
    x = a.tensor(0)
    return [b.LogicalNot(x) if x.data.get_dtype() == "boolean" else b.BitwiseNot(x)]


# ---------------------------------------------------------------------------- unary math


def _floating(b, x):
    """``x`` as floating point (integers and booleans in f32), with a maker of constants of its type."""
    if not is_float_type(x.data.get_dtype()):
        x = convert(b, x, "f32")
    et = x.data.get_dtype()
    return x, (lambda v: const(b, v, et))


@aten(*FLOATING)
def floating_function(node, a, b):
    """exp, log, sqrt, trigonometric and hyperbolic functions, erf, sigmoid."""
    x, _ = _floating(b, a.tensor(0))
    return [b.op(FLOATING[node.fw_op], x)]


@aten(*SAME_TYPE)
def same_type_function(node, a, b):
    """abs, neg, sign / sgn (of real tensors), relu in the input's type."""
    return [b.op(SAME_TYPE[node.fw_op], a.tensor(0))]


@aten(*ROUNDING)
def rounding(node, a, b):
    """floor / ceil (integers are their own floor and ceiling)."""
    x = a.tensor(0)
    return [b.op(ROUNDING[node.fw_op], x) if is_float_type(x.data.get_dtype()) else x]


def _truncated(b, x, c):
    return b.Select(b.Less(x, c(0)), b.Ceiling(x), b.Floor(x))


@aten("aten::trunc", "aten::fix")
def trunc(node, a, b):
    """Rounding towards zero (integers are unchanged)."""
    x = a.tensor(0)
    if not is_float_type(x.data.get_dtype()):
        return [x]
    return [_truncated(b, *_floating(b, x))]


@aten("aten::frac")
def frac(node, a, b):
    """x - trunc(x)."""
    x, c = _floating(b, a.tensor(0))
    return [b.Subtract(x, _truncated(b, x, c))]


@aten("aten::round")
def round_(node, a, b):
    """Round half to even, to ``decimals`` places (integers are unchanged)."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    if not is_float_type(et):
        return [x]
    decimals = a.const("decimals", 0) if a.has("decimals") else 0
    if not decimals:
        return [b.Round(x, mode="half_to_even")]
    scale = const(b, 10.0 ** decimals, et)
    return [b.Divide(b.Round(b.Multiply(x, scale), mode="half_to_even"), scale)]


@aten("aten::rsqrt")
def rsqrt(node, a, b):
    x, c = _floating(b, a.tensor(0))
    return [b.Divide(c(1), b.Sqrt(x))]


@aten("aten::reciprocal")
def reciprocal(node, a, b):
    x, c = _floating(b, a.tensor(0))
    return [b.Divide(c(1), x)]


@aten("aten::log2")
def log2(node, a, b):
    x, c = _floating(b, a.tensor(0))
    return [b.Divide(b.Log(x), c(math.log(2.0)))]


@aten("aten::log10")
def log10(node, a, b):
    x, c = _floating(b, a.tensor(0))
    return [b.Divide(b.Log(x), c(math.log(10.0)))]


@aten("aten::log1p")
def log1p(node, a, b):
    x, c = _floating(b, a.tensor(0))
    return [b.Log(b.Add(x, c(1)))]


@aten("aten::expm1")
def expm1(node, a, b):
    x, c = _floating(b, a.tensor(0))
    return [b.Subtract(b.Exp(x), c(1))]


@aten("aten::exp2")
def exp2(node, a, b):
    x, c = _floating(b, a.tensor(0))
    return [b.Power(c(2), x)]


@aten("aten::erfc")
def erfc(node, a, b):
    x, c = _floating(b, a.tensor(0))
    return [b.Subtract(c(1), b.Erf(x))]


@aten("aten::square")
def square(node, a, b):
    """x * x in x's type (booleans in i64, as in PyTorch)."""
    x = a.tensor(0)
    if x.data.get_dtype() == "boolean":
        x = convert(b, x, "i64")
    return [b.Multiply(x, x)]


@aten(*PREDICATES)
def predicate(node, a, b):
    """isnan / isinf / isfinite (integers are finite)."""
    x = a.tensor(0)
    if not is_float_type(x.data.get_dtype()):
        return [b.Broadcast(b.const(np.array(node.fw_op == "aten::isfinite")), b.ShapeOf(x))]
    return [b.op(PREDICATES[node.fw_op], x)]


# ---------------------------------------------------------------------------- selection


@aten("aten::where")
def where(node, a, b):
    """where(condition, self, other) with self and other promoted."""
    if len(a) == 1:
        raise ConversionError("torch.where(condition) with one argument is not supported; use nonzero.")
    _, (x, y) = promoted(a, (1, 2), b)
    return [b.Select(convert(b, a.tensor(0), "boolean"), x, y)]


@aten("aten::masked_fill")
def masked_fill(node, a, b):
    """masked_fill(self, mask, value): value (in self's type) where mask is set."""
    x = a.tensor(0)
    value = convert(b, a.tensor(2), x.data.get_dtype())
    return [b.Select(convert(b, a.tensor(1), "boolean"), value, x)]


def _clamp(a, b, lo: int | None, hi: int | None):
    """self bounded below by argument ``lo`` and above by argument ``hi`` (numbers or tensors,
    None for no bound), in the type promoted over the three."""
    bounds = [k for k in (lo, hi) if k is not None]
    et = result_type([(a.tensor(k), a.is_weak(k)) for k in [0, *bounds]])
    y = convert(b, a.tensor(0), et)
    if lo is not None:
        y = b.Maximum(y, convert(b, a.tensor(lo), et))
    if hi is not None:
        y = b.Minimum(y, convert(b, a.tensor(hi), et))
    return y


@aten("aten::clamp", "aten::clip")
def clamp(node, a, b):
    """clamp(self, min, max); either bound may be None."""
    return [_clamp(a, b, None if a.is_none(1) else 1, None if a.is_none(2) else 2)]


@aten("aten::clamp_min")
def clamp_min(node, a, b):
    return [_clamp(a, b, 1, None)]


@aten("aten::clamp_max")
def clamp_max(node, a, b):
    return [_clamp(a, b, None, 1)]
