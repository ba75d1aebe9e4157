"""Lowering of the ATen elementwise operations: arithmetic with PyTorch's type promotion,
comparisons, logical and bitwise ops, unary math, where / masked_fill / clamp."""
from __future__ import annotations

import math

import numpy as np

from extensions.front.pytorch.aten import AtenOp, const, convert, is_float_type, promoted, result_type
from mo.errors import ConversionError

# binary ops computed in the promoted type
ARITHMETIC = {
    "aten::add": "Add", "aten::sub": "Subtract", "aten::mul": "Multiply", "aten::multiply": "Multiply",
    "aten::maximum": "Maximum", "aten::minimum": "Minimum", "aten::max": "Maximum", "aten::min": "Minimum",
    "aten::fmax": "Maximum", "aten::fmin": "Minimum", "aten::fmod": "Mod", "aten::remainder": "FloorMod",
    "aten::pow": "Power", "aten::float_power": "Power", "aten::rsub": "Subtract", "aten::subtract": "Subtract",
    "prim::min": "Minimum", "prim::max": "Maximum",
}
TERNARY = ("aten::addcmul", "aten::addcdiv", "aten::lerp")
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
DIVISIONS = ("aten::div", "aten::divide", "aten::true_divide", "aten::floor_divide", "aten::floordiv")

# unary ops: ATen -> (opset op, computed in floating point)
UNARY = {
    "aten::abs": ("Abs", False), "aten::neg": ("Negative", False), "aten::negative": ("Negative", False),
    "aten::sign": ("Sign", False), "aten::exp": ("Exp", True), "aten::log": ("Log", True),
    "aten::sqrt": ("Sqrt", True), "aten::sin": ("Sin", True), "aten::cos": ("Cos", True), "aten::tan": ("Tan", True),
    "aten::asin": ("Asin", True), "aten::acos": ("Acos", True), "aten::atan": ("Atan", True),
    "aten::sinh": ("Sinh", True), "aten::cosh": ("Cosh", True), "aten::tanh": ("Tanh", True),
    "aten::asinh": ("Asinh", True), "aten::acosh": ("Acosh", True), "aten::atanh": ("Atanh", True),
    "aten::arcsin": ("Asin", True), "aten::arccos": ("Acos", True), "aten::arctan": ("Atan", True),
    "aten::erf": ("Erf", True), "aten::sigmoid": ("Sigmoid", True), "aten::floor": ("Floor", False),
    "aten::ceil": ("Ceiling", False), "aten::relu": ("ReLU", False),
}
# unary ops composed of a few opset ops: ATen -> function(b, x) on a floating-point x
_LN2, _LN10 = math.log(2.0), math.log(10.0)
COMPOSED = {
    "aten::rsqrt": lambda b, x, c: b.Divide(c(1), b.Sqrt(x)),
    "aten::reciprocal": lambda b, x, c: b.Divide(c(1), x),
    "aten::log2": lambda b, x, c: b.Divide(b.Log(x), c(_LN2)),
    "aten::log10": lambda b, x, c: b.Divide(b.Log(x), c(_LN10)),
    "aten::log1p": lambda b, x, c: b.Log(b.Add(x, c(1))),
    "aten::expm1": lambda b, x, c: b.Subtract(b.Exp(x), c(1)),
    "aten::exp2": lambda b, x, c: b.Power(c(2), x),
    "aten::erfc": lambda b, x, c: b.Subtract(c(1), b.Erf(x)),
    "aten::square": lambda b, x, c: b.Multiply(x, x),
    "aten::trunc": lambda b, x, c: b.Select(b.Less(x, c(0)), b.Ceiling(x), b.Floor(x)),
    "aten::fix": lambda b, x, c: b.Select(b.Less(x, c(0)), b.Ceiling(x), b.Floor(x)),
    "aten::frac": lambda b, x, c: b.Subtract(x, b.Select(b.Less(x, c(0)), b.Ceiling(x), b.Floor(x))),
    "aten::sgn": lambda b, x, c: b.Sign(x),
}
PREDICATES = {"aten::isnan": "IsNaN", "aten::isinf": "IsInf", "aten::isfinite": "IsFinite"}


class AtenBinary(AtenOp):
    """Arithmetic on two operands (``alpha`` scales the second of add/sub, rsub swaps them)."""

    op = "pytorch::Binary"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        et, (x, y) = promoted(a, (0, 1), b)
        if kind == "aten::rsub":
            x, y = y, x
        alpha = a.const("alpha", 1) if a.has("alpha") else 1
        if alpha != 1:
            y = b.Multiply(y, const(b, alpha, et))
        if kind == "aten::pow" and not is_float_type(et) and et != "boolean":
            exponent = a.value(1)
            if exponent is not None and np.any(np.asarray(exponent) < 0):
                raise ConversionError("Integers to negative integer powers are not allowed in PyTorch.")
        if et == "boolean":   # computed on 0/1 and read back as booleans (True + True is True)
            return [convert(b, b.op(ARITHMETIC[kind], convert(b, x, "u8"), convert(b, y, "u8")), "boolean")]
        return [b.op(ARITHMETIC[kind], x, y)]


class AtenTernary(AtenOp):
    """addcmul / addcdiv: self + value * (t1 * t2 or t1 / t2); lerp: self + weight * (end - self)."""

    op = "pytorch::Ternary"

    @classmethod
    def build(cls, node, a, b):
        et, (x, y, z) = promoted(a, (0, 1, 2), b)
        if node.fw_op == "aten::lerp":
            return [b.Add(x, b.Multiply(z, b.Subtract(y, x)))]
        if node.fw_op == "aten::addcdiv" and not is_float_type(et):
            raise ConversionError("addcdiv of integer tensors is not allowed in PyTorch.")
        product = b.Multiply(y, z) if node.fw_op == "aten::addcmul" else b.Divide(y, z)
        value = a.const("value", 1)
        return [b.Add(x, product if value == 1 else b.Multiply(product, const(b, value, et)))]


class AtenDivide(AtenOp):
    """True division (integers give f32), or with ``rounding_mode`` trunc / floor."""

    op = "pytorch::Divide"

    @classmethod
    def build(cls, node, a, b):
        mode = a.const("rounding_mode", None) if a.has("rounding_mode") else None
        if node.fw_op in ("aten::floor_divide", "aten::floordiv"):
            mode = "floor"
        et, (x, y) = promoted(a, (0, 1), b)
        if mode is None:
            if not is_float_type(et):
                et = "f32"
                x, y = convert(b, x, et), convert(b, y, et)
            return [b.Divide(x, y)]
        if not is_float_type(et):
            if mode == "floor":   # exact division of x minus its floor remainder
                return [b.Divide(b.Subtract(x, b.FloorMod(x, y)), y)]
            return [b.Divide(x, y)]
        q = b.Divide(x, y)
        if mode == "floor":
            return [b.Floor(q)]
        return [b.Select(b.Less(q, const(b, 0, et)), b.Ceiling(q), b.Floor(q))]


class AtenCompare(AtenOp):
    """Comparisons in the promoted type; boolean result."""

    op = "pytorch::Compare"

    @classmethod
    def build(cls, node, a, b):
        _, (x, y) = promoted(a, (0, 1), b)
        return [b.op(COMPARISONS[node.fw_op], x, y)]


class AtenLogical(AtenOp):
    """Logical and/or/xor/not of the operands taken as booleans; bitwise ops on integers."""

    op = "pytorch::Logical"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        if kind in ("aten::logical_not", "aten::bitwise_not", "aten::__not__"):
            x = a.tensor(0)
            if x.data.get_dtype() == "boolean" or kind != "aten::bitwise_not":
                return [b.LogicalNot(convert(b, x, "boolean"))]
            return [b.BitwiseNot(x)]
        if kind in LOGICAL:
            return [b.op(LOGICAL[kind], convert(b, a.tensor(0), "boolean"), convert(b, a.tensor(1), "boolean"))]
        et, (x, y) = promoted(a, (0, 1), b)
        bitwise, logical = BITWISE[kind]
        return [b.op(logical if et == "boolean" else bitwise, x, y)]


class AtenUnary(AtenOp):
    """Unary math; integer inputs of floating-point functions are computed in f32."""

    op = "pytorch::Unary"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        et = x.data.get_dtype()
        if kind in PREDICATES:
            if not is_float_type(et):
                return [b.Broadcast(b.const(np.array(kind == "aten::isfinite")), b.ShapeOf(x))]
            return [b.op(PREDICATES[kind], x)]
        if kind in ("aten::round",):
            decimals = a.const("decimals", 0) if a.has("decimals") else 0
            if not is_float_type(et):
                return [x]
            if decimals:
                scale = const(b, 10.0 ** decimals, et)
                return [b.Divide(b.Round(b.Multiply(x, scale), mode="half_to_even"), scale)]
            return [b.Round(x, mode="half_to_even")]
        if kind in UNARY:
            op, floating = UNARY[kind]
            if not is_float_type(et):
                if op in ("Floor", "Ceiling"):
                    return [x]
                if floating:
                    x, et = convert(b, x, "f32"), "f32"
            if op == "Abs" and et == "boolean":
                return [x]
            return [b.op(op, x)]
        if not is_float_type(et):
            if kind in ("aten::trunc", "aten::fix"):
                return [x]
            x, et = convert(b, x, "f32"), "f32"
        return [COMPOSED[kind](b, x, lambda v: const(b, v, et))]


class AtenWhere(AtenOp):
    """where(condition, self, other) with the values promoted; masked_fill(self, mask, value)."""

    op = "pytorch::Where"

    @classmethod
    def build(cls, node, a, b):
        if node.fw_op == "aten::masked_fill":
            x = a.tensor(0)
            value = convert(b, a.tensor(2), x.data.get_dtype())
            return [b.Select(convert(b, a.tensor(1), "boolean"), value, x)]
        if len(a) == 1:
            raise ConversionError("torch.where(condition) with one argument is not supported; use nonzero.")
        _, (x, y) = promoted(a, (1, 2), b)
        return [b.Select(convert(b, a.tensor(0), "boolean"), x, y)]


class AtenClamp(AtenOp):
    """clamp / clip / clamp_min / clamp_max by numbers or tensors (either bound may be None)."""

    op = "pytorch::Clamp"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        keys = [0]
        if kind in ("aten::clamp", "aten::clip"):
            lo, hi = (1 if not a.is_none(1) else None), (2 if not a.is_none(2) else None)
        elif kind == "aten::clamp_min":
            lo, hi = 1, None
        else:
            lo, hi = None, 1
        keys += [k for k in (lo, hi) if k is not None]
        et = result_type([(a.tensor(k), a.is_weak(k)) for k in keys])
        y = convert(b, a.tensor(0), et)
        if lo is not None:
            y = b.Maximum(y, convert(b, a.tensor(lo), et))
        if hi is not None:
            y = b.Minimum(y, convert(b, a.tensor(hi), et))
        return [y]
