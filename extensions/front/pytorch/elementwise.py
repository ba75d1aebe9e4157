"""ATen elementwise operations: arithmetic with PyTorch's type promotion, comparisons (and
torch.equal), logical and bitwise ops and shifts, unary math, outer, where / masked_fill /
clamp: their translators."""
from __future__ import annotations

import math

import numpy as np

from extensions.front.pytorch.aten import category, const, is_float_type, promoted, result_type
from extensions.load.pytorch.arguments import aten
from extensions.ops.control_flow import new_body, port_entry
from mo.errors import ConversionError
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, i64

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
    "aten::sigmoid": "Sigmoid", "aten::special_expit": "Sigmoid",
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
    """self ** exponent in the promoted type (float_power: in f64); integers to negative constant
    powers are refused as PyTorch does."""
    if node.fw_op == "aten::float_power":
        return [b.Power(convert(b, a.tensor(0), "f64"), convert(b, a.tensor(1), "f64"))]
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


@aten("aten::equal")
def equal(node, a, b):
    """torch.equal: the same shape and the same values (a 0-d boolean)."""
    _, (x, y) = promoted(a, (0, 1), b)
    rank_x, rank_y = x.data.get_rank(), y.data.get_rank()
    shape_x, shape_y = x.data.get_shape(), y.data.get_shape()
    if rank_x is None or rank_y is None:
        raise ConversionError("torch.equal needs inputs of known rank; give input shapes with --input.")
    if rank_x != rank_y or any(p >= 0 and q >= 0 and p != q for p, q in zip(shape_x, shape_y)):
        return [b.const(np.array(False))]
    if rank_x == 0:
        return [b.Equal(x, y)]
    first = np.array([0], np.int64)
    same_shape = b.ReduceLogicalAnd(b.Equal(b.ShapeOf(x), b.ShapeOf(y)), first, keep_dims=False)
    if all(d >= 0 for d in shape_x + shape_y):
        return [b.ReduceLogicalAnd(b.Equal(x, y), np.arange(rank_x, dtype=np.int64), keep_dims=False)]
    # shapes known only at run time: the values compared element by element over x's count (y's
    # positions clamped into range, so tensors of other shapes never fail to broadcast)
    flat_x, flat_y = (b.Reshape(t, np.array([-1], np.int64), special_zero=False) for t in (x, y))
    zero, one = b.const(np.int64(0)), b.const(np.int64(1))
    count_x, count_y = (b.ReduceProd(b.ShapeOf(t), first, keep_dims=False) for t in (x, y))
    positions = b.Minimum(b.Range(zero, count_x, one, output_type="i64"), b.Maximum(b.Subtract(count_y, one), zero))
    same_values = b.ReduceLogicalAnd(b.Equal(flat_x, b.Gather(flat_y, positions, zero)), first, keep_dims=False)
    return [b.LogicalAnd(same_shape, same_values)]


@aten("aten::outer", "aten::ger")
def outer(node, a, b):
    """The outer product of two vectors (promoted types)."""
    et, (x, y) = promoted(a, (0, 1), b)
    return [binary_op(b, "Multiply", b.Unsqueeze(x, np.array([1], np.int64)), y, et)]


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


SHIFTS = {"aten::__lshift__": "BitwiseLeftShift", "aten::bitwise_left_shift": "BitwiseLeftShift",
          "aten::__rshift__": "BitwiseRightShift", "aten::bitwise_right_shift": "BitwiseRightShift"}


@aten(*SHIFTS)
def shift(node, a, b):
    """x << y / x >> y (arithmetic for signed types) in the promoted integer type."""
    et, (x, y) = promoted(a, (0, 1), b)
    if category(et) != 1:
        raise ConversionError(f"Bit shifts of {et} values are not allowed in PyTorch.")
    return [b.op(SHIFTS[node.fw_op], x, y)]


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
    """abs, neg, sign / sgn (of real tensors), relu in the input's type (the sign of a boolean is
    itself)."""
    x = a.tensor(0)
    if x.data.get_dtype() == "boolean" and SAME_TYPE[node.fw_op] == "Sign":
        return [x]
    return [b.op(SAME_TYPE[node.fw_op], x)]


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
        return nonzero_coordinates(node, b, a.tensor(0))
    _, (x, y) = promoted(a, (1, 2), b)
    return [b.Select(convert(b, a.tensor(0), "boolean"), x, y)]


def nonzero_coordinates(node, b, condition) -> list:
    """where(condition): one 1-D tensor of coordinates per dim of the condition (its nonzero
    elements, row-major order)."""
    coords = b.NonZero(condition, output_type="i64")        # [rank, count]
    rank = max(condition.data.get_rank() or 0, 1)
    if node.num_outputs != rank:
        raise ConversionError(f"torch.where(condition) of a rank-{rank} condition gives {rank} tensors, but the "
                              f"model uses {node.num_outputs}.")
    if rank == 1:
        return [b.Squeeze(coords, np.array([0], np.int64))]
    parts = b.Split(coords, b.const(np.int64(0)), num_splits=rank)
    return [b.Squeeze(p, np.array([0], np.int64)) for p in parts]


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
        y = binary_op(b, "Maximum", y, convert(b, a.tensor(lo), et), et)
    if hi is not None:
        y = binary_op(b, "Minimum", y, convert(b, a.tensor(hi), et), et)
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


# ---------------------------------------------------------------------------- two-argument math


def _promoted_floating(a, b):
    """Arguments 0 and 1 in their promoted type, integers and booleans in f32, and a maker of
    constants of that type."""
    et, (x, y) = promoted(a, (0, 1), b)
    if not is_float_type(et):
        x, y = convert(b, x, "f32"), convert(b, y, "f32")
    et = x.data.get_dtype()
    return x, y, (lambda v: const(b, v, et))


@aten("aten::atan2", "aten::arctan2")
def atan2(node, a, b):
    """atan(y / x) moved by pi into the left half-plane (by -pi below the x axis); 0 at the origin,
    and the diagonal directions where both are infinite."""
    y, x, c = _promoted_floating(a, b)
    infinite = b.LogicalAnd(b.IsInf(y), b.IsInf(x))
    y, x = (b.Select(infinite, b.Sign(t), t) for t in (y, x))
    ratio = b.Atan(b.Divide(y, x))
    turn = b.Select(b.GreaterEqual(y, c(0)), c(math.pi), c(-math.pi))
    angle = b.Select(b.Less(x, c(0)), b.Add(ratio, turn), ratio)
    origin = b.LogicalAnd(b.Equal(x, c(0)), b.Equal(y, c(0)))
    return [b.Select(origin, c(0), angle)]


def _log_add(a, b, base: float):
    """log_base(base^x + base^y) as max + log_base(1 + base^-|x - y|); equal arguments (also equal
    infinities) give x + log_base(2)."""
    x, y = promoted(a, (0, 1), b)[1]
    if not is_float_type(x.data.get_dtype()):
        raise ConversionError(f"{a.node.fw_op.split('::')[-1]} is defined for floating point tensors only "
                              f"(PyTorch refuses {x.data.get_dtype()}).")
    c = lambda v: const(b, v, x.data.get_dtype())  # noqa: E731
    rest = b.Power(c(base), b.Negative(b.Abs(b.Subtract(x, y))))
    log = b.Divide(b.Log(b.Add(c(1), rest)), c(math.log(base)))
    return b.Select(b.Equal(x, y), b.Add(x, c(math.log(2.0) / math.log(base))), b.Add(b.Maximum(x, y), log))


@aten("aten::logaddexp")
def logaddexp(node, a, b):
    """log(exp(x) + exp(y))."""
    return [_log_add(a, b, math.e)]


@aten("aten::logaddexp2")
def logaddexp2(node, a, b):
    """log2(2^x + 2^y)."""
    return [_log_add(a, b, 2.0)]


@aten("aten::rad2deg", "aten::deg2rad")
def angle_units(node, a, b):
    """x * 180 / pi or x * pi / 180 (integers in f32)."""
    x, c = _floating(b, a.tensor(0))
    factor = 180 / math.pi if node.fw_op == "aten::rad2deg" else math.pi / 180
    return [b.Multiply(x, c(factor))]


def _integers(a, b):
    """Arguments 0 and 1 promoted to their integer type (floating point and booleans refused)."""
    et, (x, y) = promoted(a, (0, 1), b)
    if is_float_type(et) or et == "boolean":
        raise ConversionError(f"{a.node.fw_op} is defined for integer tensors only (PyTorch refuses {et}).")
    return et, x, y


@aten("aten::gcd")
def gcd(node, a, b):
    et, x, y = _integers(a, b)
    return [_gcd(node, b, x, y, et)]


@aten("aten::lcm")
def lcm(node, a, b):
    """|x / gcd * y|, 0 where the gcd is 0."""
    et, x, y = _integers(a, b)
    divisor = _gcd(node, b, x, y, et)
    zero = b.Equal(divisor, const(b, 0, et))
    multiple = b.Abs(b.Multiply(b.Divide(x, b.Select(zero, const(b, 1, et), divisor)), y))
    return [b.Select(zero, const(b, 0, et), multiple)]


def _gcd(node, b, x, y, et: str):
    """Euclid's algorithm on |x| and |y| in a Loop that runs while some divisor is not zero."""
    shape = b.ShapeOf(b.Add(x, y))
    x, y = (b.Broadcast(b.Abs(t), shape) for t in (x, y))
    body = new_body(b.graph)
    bb = OpBuilder(body, f"{node.name}/step")
    px, py = (bb.node("Parameter", name=f"{node.name}/{n}", shape=x.data.get_shape(), element_type=et)
              for n in ("x", "y"))
    nonzero = bb.NotEqual(py.out_port(0), const(bb, 0, et))
    divisor = bb.Select(nonzero, py.out_port(0), const(bb, 1, et))
    rest = bb.Select(nonzero, bb.FloorMod(px.out_port(0), divisor), const(bb, 0, et))
    results = [bb.node("Result", bb.Select(nonzero, py.out_port(0), px.out_port(0)), name=f"{node.name}/x_out"),
               bb.node("Result", rest, name=f"{node.name}/y_out")]
    going = bb.node("Result", _any_nonzero(bb, rest, et), name=f"{node.name}/continue")
    loop = b.node("Loop", b.const(np.int64(-1)), _any_nonzero(b, y, et), x, y, name=f"{node.name}/loop",
                  bodies={"body": body},
                  input_port_map=[port_entry(2, px), port_entry(3, py)],
                  output_port_map=[port_entry(-1, going, purpose="execution_condition"),
                                   port_entry(0, results[0]), port_entry(1, results[1])],
                  back_edges=[{"from": r.id, "to": p.id} for r, p in zip(results, (px, py))], num_outputs=2)
    return loop.out_port(0)


def _any_nonzero(b, x, et):
    """Whether some element of ``x`` is not zero (a 0-d boolean)."""
    flat = b.Reshape(b.NotEqual(x, const(b, 0, et)), i64(-1), special_zero=False)
    return b.ReduceLogicalOr(flat, i64(0), keep_dims=False)
