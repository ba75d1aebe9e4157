"""ATen floating-point helpers and tests built from elementwise opset ops: hypot, copysign,
signbit, heaviside, ldexp, frexp, nextafter, nan_to_num, logit, isneginf / isposinf / isreal, isin: their
translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, convert, is_float_type, promoted
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import i64
from mo.utils.types import np_dtype


def _promoted_float(a, b):
    """Arguments 0 and 1 promoted, integers and booleans in f32, and a maker of constants."""
    et, (x, y) = promoted(a, (0, 1), b)
    if not is_float_type(et):
        x, y = convert(b, x, "f32"), convert(b, y, "f32")
    dtype = x.data.get_dtype()
    return x, y, (lambda v: const(b, v, dtype))


def sign_bit(b, x, c):
    """Whether the sign bit of floating-point ``x`` is set: x < 0, or x is -0.0 (1 / x < 0)."""
    return b.LogicalOr(b.Less(x, c(0)), b.LogicalAnd(b.Equal(x, c(0)), b.Less(b.Divide(c(1), x), c(0))))


@aten("aten::hypot")
def hypot(node, a, b):
    """sqrt(x^2 + y^2), scaled by the larger magnitude so that it neither overflows nor
    underflows; inf when either is infinite."""
    x, y, c = _promoted_float(a, b)
    u, v = b.Abs(x), b.Abs(y)
    high, low = b.Maximum(u, v), b.Minimum(u, v)
    ratio = b.Divide(low, b.Select(b.Equal(high, c(0)), c(1), high))
    value = b.Multiply(high, b.Sqrt(b.Add(c(1), b.Multiply(ratio, ratio))))
    value = b.Select(b.LogicalOr(b.IsNaN(x), b.IsNaN(y)), c(np.nan), value)
    return [b.Select(b.LogicalOr(b.IsInf(x), b.IsInf(y)), c(np.inf), value)]


@aten("aten::copysign")
def copysign(node, a, b):
    """|x| with the sign (bit) of y."""
    x, y, c = _promoted_float(a, b)
    magnitude = b.Abs(x)
    return [b.Select(sign_bit(b, y, c), b.Negative(magnitude), magnitude)]


@aten("aten::signbit")
def signbit(node, a, b):
    x = a.tensor(0)
    et = x.data.get_dtype()
    if et == "boolean":
        return [b.Broadcast(b.const(np.array(False)), b.ShapeOf(x))]
    if not is_float_type(et):
        return [b.Less(x, const(b, 0, et))]
    return [sign_bit(b, x, lambda v: const(b, v, et))]


@aten("aten::heaviside")
def heaviside(node, a, b):
    """``values`` where x == 0, else 1 where x > 0 and 0 otherwise (NaN too), in the promoted type."""
    et, (x, values) = promoted(a, (0, 1), b)
    zero, one = const(b, 0, et), const(b, 1, et)
    if et == "boolean":
        return [b.Select(x, one, values)]
    positive = b.Greater(x, zero)
    if is_float_type(et):       # (the CPU plugin's Greater is true for NaN)
        positive = b.LogicalAnd(positive, b.LogicalNot(b.IsNaN(x)))
    return [b.Select(b.Equal(x, zero), values, b.Select(positive, one, zero))]


@aten("aten::ldexp")
def ldexp(node, a, b):
    """x * 2^e (floating point)."""
    x, e, c = _promoted_float(a, b)
    return [b.Multiply(x, b.Power(c(2), e))]


@aten("aten::frexp")
def frexp(node, a, b):
    """(mantissa in [0.5, 1) with x's sign, i32 exponent) with x = m 2^e; 0 and non-finite x give
    (x, 0)."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    if not is_float_type(et):
        raise ConversionError(f"frexp takes floating point input (PyTorch refuses {et}).")
    mantissa, exponent = split_exponent(b, x, lambda v: const(b, v, et))
    return [mantissa, convert(b, exponent, "i32")]


def split_exponent(b, x, c):
    """(mantissa in [0.5, 1) with x's sign, exponent in x's type) with x = m 2^e, for
    floating-point ``x``; 0 and non-finite x give (x, 0)."""
    et = x.data.get_dtype()
    magnitude = b.Abs(x)
    special = b.LogicalOr(b.Equal(x, c(0)), b.LogicalNot(b.IsFinite(x)))
    safe = b.Select(special, c(1), magnitude)
    exponent = b.Add(b.Floor(b.Divide(b.Log(safe), c(np.log(2.0)))), c(1))
    mantissa = b.Divide(safe, b.Power(c(2), exponent))
    # the logarithm may be one off at powers of two: bring the mantissa into [0.5, 1)
    up = b.GreaterEqual(mantissa, c(1))
    down = b.Less(mantissa, c(0.5))
    exponent = b.Add(exponent, b.Subtract(convert(b, up, et), convert(b, down, et)))
    mantissa = b.Select(up, b.Multiply(mantissa, c(0.5)), b.Select(down, b.Multiply(mantissa, c(2)), mantissa))
    return b.Select(special, x, b.Multiply(mantissa, b.Sign(x))), b.Select(special, c(0), exponent)


@aten("aten::nextafter")
def nextafter(node, a, b):
    """The next representable value after x toward y: x moved by one unit in the last place (half
    of it when going down from a power of two), the smallest subnormal from 0, the largest finite
    value from an infinity; y when x == y, NaN when either is NaN."""
    et, (x, y) = promoted(a, (0, 1), b)
    if not is_float_type(et):
        raise ConversionError(f"nextafter is defined for floating point tensors only (PyTorch refuses {et}).")
    c = lambda v: const(b, v, et)  # noqa: E731
    info = np.finfo(np_dtype(et))
    mantissa, exponent = split_exponent(b, x, c)
    magnitude = b.Abs(x)
    unit = b.Maximum(b.Power(c(2), b.Subtract(exponent, c(info.nmant + 1))), c(info.smallest_subnormal))
    away = b.LogicalNot(b.LogicalXor(b.Greater(y, x), b.Greater(x, c(0))))      # moving away from zero
    halved = b.LogicalAnd(b.Equal(b.Abs(mantissa), c(0.5)), b.Greater(magnitude, c(info.smallest_normal)))
    step = b.Select(b.LogicalOr(away, b.LogicalNot(halved)), unit, b.Multiply(unit, c(0.5)))
    moved = b.Multiply(b.Sign(x), b.Select(away, b.Add(magnitude, step), b.Subtract(magnitude, step)))
    moved = b.Select(b.IsInf(x), b.Multiply(b.Sign(x), c(info.max)), moved)
    tiny = c(info.smallest_subnormal)
    moved = b.Select(b.Equal(x, c(0)), b.Select(b.Greater(y, x), tiny, b.Negative(tiny)), moved)
    moved = b.Select(b.Equal(x, y), y, moved)
    return [b.Select(b.LogicalOr(b.IsNaN(x), b.IsNaN(y)), c(np.nan), moved)]


@aten("aten::nan_to_num")
def nan_to_num(node, a, b):
    """NaN, +inf and -inf replaced by ``nan`` (0), ``posinf`` and ``neginf`` (the type's largest
    and lowest finite values by default); integers unchanged."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    if not is_float_type(et):
        return [x]
    info = np.finfo(np_dtype(et))

    def value(key, default):
        given = a.const(key, None) if a.has(key) else None
        return const(b, default if given is None else given, et)
    y = b.Select(b.IsNaN(x), value("nan", 0.0), x)
    y = b.Select(b.IsInf(x, detect_negative=False, detect_positive=True), value("posinf", float(info.max)), y)
    return [b.Select(b.IsInf(x, detect_negative=True, detect_positive=False), value("neginf", float(info.min)), y)]


@aten("aten::logit", "aten::special_logit")
def logit(node, a, b):
    """log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given."""
    x = a.tensor(0)
    if not is_float_type(x.data.get_dtype()):
        x = convert(b, x, "f32")
    et = x.data.get_dtype()
    c = lambda v: const(b, v, et)  # noqa: E731
    eps = a.const("eps", None) if a.has("eps") else None
    if eps is not None:      # NaN stays NaN
        x = b.Select(b.IsNaN(x), x, b.Minimum(b.Maximum(x, c(eps)), c(1 - eps)))
    return [b.Log(b.Divide(x, b.Subtract(c(1), x)))]


def _infinity_test(node, a, b, negative: bool):
    x = a.tensor(0)
    if not is_float_type(x.data.get_dtype()):
        return b.Broadcast(b.const(np.array(False)), b.ShapeOf(x))
    return b.IsInf(x, detect_negative=negative, detect_positive=not negative)


@aten("aten::isneginf")
def isneginf(node, a, b):
    return [_infinity_test(node, a, b, negative=True)]


@aten("aten::isposinf")
def isposinf(node, a, b):
    return [_infinity_test(node, a, b, negative=False)]


@aten("aten::isreal")
def isreal(node, a, b):
    """Real tensors are real everywhere (complex ones: see complex.py)."""
    return [b.Broadcast(b.const(np.array(True)), b.ShapeOf(a.tensor(0)))]


@aten("aten::isin")
def isin(node, a, b):
    """isin(elements, test_elements, assume_unique, invert): whether each element equals one of
    the test elements (compared in the promoted type)."""
    _, (x, tests) = promoted(a, (0, 1), b)
    flat = b.Reshape(tests, i64([-1]), special_zero=False)
    found = b.ReduceLogicalOr(b.Equal(b.Unsqueeze(x, i64([-1])), flat), i64([-1]), keep_dims=False)
    if a.has("invert") and a.const("invert", False):
        found = b.LogicalNot(found)
    return [found]


@aten("aten::isclose")
def isclose(node, a, b):
    """|x - y| <= atol + rtol |y|, or x == y (equal infinities); NaNs equal only with equal_nan
    (integers and booleans compared exactly when both tolerances are 0)."""
    et, (x, y) = promoted(a, (0, 1), b)
    rtol, atol = float(a.const("rtol", 1e-5)), float(a.const("atol", 1e-8))
    equal = b.Equal(x, y)
    if et == "boolean":
        return [equal]
    if not is_float_type(et):
        x, y = convert(b, x, "f32"), convert(b, y, "f32")
        et = "f32"
    c = lambda v: const(b, v, et)  # noqa: E731
    close = b.LessEqual(b.Abs(b.Subtract(x, y)), b.Add(c(atol), b.Multiply(c(rtol), b.Abs(y))))
    finite = b.LogicalAnd(b.IsFinite(x), b.IsFinite(y))
    result = b.LogicalOr(equal, b.LogicalAnd(finite, close))
    if a.const("equal_nan", False):
        result = b.LogicalOr(result, b.LogicalAnd(b.IsNaN(x), b.IsNaN(y)))
    return [result]
