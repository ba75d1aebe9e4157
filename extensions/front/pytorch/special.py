"""ATen special functions that OpenVINO has no operation for, built from elementwise opset ops
in the input's floating-point type: gamma family (lgamma, digamma, polygamma, mvlgamma, Hurwitz
zeta, the regularized incomplete gamma functions igamma / igammac), error-function family
(erfinv, erfcx, ndtr, ndtri, log_ndtr), Bessel functions (modified of the first kind i0, i0e, i1,
i1e; J0, J1, Y0, Y1; K0, K1, also scaled), the Airy function Ai, sinc, entr, xlogy / xlog1py,
spherical_bessel_j0, and the classical orthogonal polynomials (Chebyshev T U V W and their shifted
forms, Hermite H and He, Laguerre, Legendre) by their three-term recurrences in a Loop.

The series and expansions are the textbook ones (Stirling and Euler-Maclaurin sums after a shift
of the argument, reflection formulas for negative arguments, continued fractions, power series
below a threshold and asymptotic expansions above it), with enough terms for float32."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from extensions.front.common.linalg import column_loop
from extensions.front.pytorch.aten import const, convert, is_float_type, promoted
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import i64

SHIFT = 8           # the argument is moved up by this much before an asymptotic series
ZETA_START = 9.0    # the Hurwitz zeta's tail is taken from here on
SERIES_TERMS = 30   # terms of the Bessel power series (|x| <= BESSEL_SWITCH)
BESSEL_SWITCH = 15.0
ERFCX_SWITCH = 2.0  # erfcx by exp(x^2) erfc(x) below, by a continued fraction above
CF_DEPTH = 40


def _float_input(node, a, b, key=0):
    """Argument ``key`` as floating point (integers and booleans in f32) and a maker of constants."""
    x = a.tensor(key)
    if not is_float_type(x.data.get_dtype()):
        x = convert(b, x, "f32")
    et = x.data.get_dtype()
    return x, (lambda v: const(b, v, et))


def _bernoulli(count: int) -> list[Fraction]:
    """B_2, B_4, ..., B_2count (exact)."""
    values = [Fraction(0)] * (2 * count + 1)
    values[0] = Fraction(1)
    for m in range(1, 2 * count + 1):
        values[m] = -sum(math.comb(m + 1, k) * values[k] for k in range(m)) / (m + 1)
    return [values[2 * j] for j in range(1, count + 1)]


def _polynomial(b, t, coefficients, c):
    """sum coefficients[k] t^k (Horner)."""
    result = c(coefficients[-1])
    for coefficient in reversed(coefficients[:-1]):
        result = b.Add(b.Multiply(result, t), c(coefficient))
    return result


def _fraction_part_pi(b, x, c):
    """pi * (x - round(x)): the argument of a sin / tan of period 1 in x, reduced exactly."""
    return b.Multiply(c(math.pi), b.Subtract(x, b.Round(x, mode="half_to_even")))


# ---------------------------------------------------------------------------- gamma family


def log_gamma(b, x, c):
    """log |Gamma(x)|: for y >= 0.5 Stirling's series at y + SHIFT minus the logs of
    y, y + 1, ..., y + SHIFT - 1; below, the reflection log(pi / |sin(pi x)|) - lgamma(1 - x)."""
    reflect = b.Less(x, c(0.5))
    y = b.Select(reflect, b.Subtract(c(1), x), x)
    z = b.Add(y, c(SHIFT))
    inverse = b.Divide(c(1), z)
    inverse2 = b.Multiply(inverse, inverse)
    series = b.Multiply(inverse, _polynomial(b, inverse2, [1 / 12, -1 / 360, 1 / 1260, -1 / 1680], c))
    value = b.Add(b.Subtract(b.Multiply(b.Subtract(z, c(0.5)), b.Log(z)), z), c(0.5 * math.log(2 * math.pi)))
    value = b.Add(value, series)
    for k in range(SHIFT):
        value = b.Subtract(value, b.Log(b.Abs(b.Add(y, c(k)))))
    reflected = b.Subtract(b.Subtract(c(math.log(math.pi)), b.Log(b.Abs(b.Sin(_fraction_part_pi(b, x, c))))), value)
    return b.Select(reflect, reflected, value)


def digamma_of(b, x, c):
    """psi(x): for y >= 0.5 the asymptotic series at y + SHIFT minus sum 1 / (y + k); below, the
    reflection psi(1 - x) - pi / tan(pi x); -inf at 0, NaN at the negative integers."""
    reflect = b.Less(x, c(0.5))
    y = b.Select(reflect, b.Subtract(c(1), x), x)
    z = b.Add(y, c(SHIFT))
    inverse = b.Divide(c(1), z)
    inverse2 = b.Multiply(inverse, inverse)
    tail = b.Multiply(inverse2, _polynomial(b, inverse2, [-1 / 12, 1 / 120, -1 / 252, 1 / 240, -1 / 132], c))
    value = b.Add(b.Subtract(b.Log(z), b.Multiply(c(0.5), inverse)), tail)
    for k in range(SHIFT):
        value = b.Subtract(value, b.Divide(c(1), b.Add(y, c(k))))
    reflected = b.Subtract(value, b.Divide(c(math.pi), b.Tan(_fraction_part_pi(b, x, c))))
    result = b.Select(reflect, reflected, value)
    negative_integer = b.LogicalAnd(b.Less(x, c(0)), b.Equal(x, b.Floor(x)))
    result = b.Select(negative_integer, c(np.nan), result)
    return b.Select(b.Equal(x, c(0)), c(-np.inf), result)


def hurwitz_zeta(node, b, s, q, c):
    """zeta(s, q) = sum over k >= 0 of (q + k)^-s: the first T terms summed in a Loop, T the
    smallest count that brings every q + T to at least ZETA_START (at least SHIFT terms), the rest
    by the Euler-Maclaurin formula at z = q + T; inf at s == 1, NaN for s < 1."""
    dtype = q.data.get_dtype()
    lowest = b.ReduceMin(b.Reshape(q, i64([-1]), special_zero=False), i64(0), keep_dims=False)
    count = convert(b, b.Ceiling(b.Subtract(c(ZETA_START), b.Minimum(lowest, c(ZETA_START)))), "i64")
    count = b.Maximum(count, np.int64(SHIFT))
    s, q = b.Broadcast(s, b.ShapeOf(b.Add(s, q)), mode="numpy"), b.Broadcast(q, b.ShapeOf(b.Add(s, q)), mode="numpy")

    def term(bb, k, carried, invariant):
        (total,), (ss, qq) = carried, invariant
        shift = bb.Convert(k, destination_type=dtype)
        return [bb.Add(total, bb.Power(bb.Add(qq, shift), bb.Negative(ss)))]
    (total,) = column_loop(b, node, count, [b.Multiply(q, c(0))], [s, q], term, "zeta_terms")
    z = b.Add(q, convert(b, count, dtype))
    z_pow = b.Power(z, b.Negative(s))                               # z^-s
    total = b.Add(total, b.Divide(b.Multiply(z_pow, z), b.Subtract(s, c(1))))
    total = b.Add(total, b.Multiply(c(0.5), z_pow))
    rising = s                                                       # s (s + 1) ... (s + 2j - 2)
    z_term = b.Divide(z_pow, z)                                      # z^(-s - 2j + 1)
    inverse2 = b.Divide(c(1), b.Multiply(z, z))
    for j, bernoulli in enumerate(_bernoulli(6), start=1):
        total = b.Add(total, b.Multiply(c(float(bernoulli / math.factorial(2 * j))), b.Multiply(rising, z_term)))
        rising = b.Multiply(rising, b.Multiply(b.Add(s, c(2 * j - 1)), b.Add(s, c(2 * j))))
        z_term = b.Multiply(z_term, inverse2)
    total = b.Select(b.Equal(s, c(1)), c(np.inf), total)
    return b.Select(b.Less(s, c(1)), c(np.nan), total)


@aten("aten::lgamma")
def lgamma(node, a, b):
    x, c = _float_input(node, a, b)
    return [log_gamma(b, x, c)]


@aten("aten::digamma", "aten::special_digamma", "aten::special_psi")
def digamma(node, a, b):
    x, c = _float_input(node, a, b)
    return [digamma_of(b, x, c)]


@aten("aten::polygamma", "aten::special_polygamma")
def polygamma(node, a, b):
    """polygamma(n, x): digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x)."""
    n = int(a.const("n"))
    x, c = _float_input(node, a, b, 1)
    if n < 0:
        raise ConversionError(f"polygamma takes n >= 0, not {n}.")
    if n == 0:
        return [digamma_of(b, x, c)]
    factor = (-1) ** (n + 1) * math.factorial(n)
    return [b.Multiply(c(float(factor)), hurwitz_zeta(node, b, c(float(n + 1)), x, c))]


@aten("aten::mvlgamma", "aten::special_multigammaln")
def mvlgamma(node, a, b):
    """The multivariate log-gamma of dimension p: sum lgamma(x - j / 2) + p (p - 1) / 4 log(pi)."""
    x, c = _float_input(node, a, b)
    p = int(a.const("p"))
    total = c(p * (p - 1) / 4 * math.log(math.pi))
    for j in range(p):
        total = b.Add(total, log_gamma(b, b.Subtract(x, c(j / 2)), c))
    return [total]


GAMMA_TERMS = 160    # iterations of the incomplete gamma's series / continued fraction
TINY = 1e-30         # the continued fraction's guard against a zero denominator (modified Lentz)


def _away_from_zero(b, v, c):
    """``v`` with values nearer 0 than TINY replaced by TINY (the continued fraction's guard)."""
    return b.Select(b.Less(b.Abs(v), c(TINY)), c(TINY), v)


def regularized_gamma(node, b, s, x, c, upper: bool):
    """The regularized incomplete gamma P(s, x) = gamma(s, x) / Gamma(s) (``upper``: Q = 1 - P)
    with PyTorch's values at the edges. Where x < s + 1, P by its power series
    x^s e^-x / Gamma(s + 1) sum x^n / ((s + 1) ... (s + n)); elsewhere Q by the continued fraction
    x^s e^-x / Gamma(s) / (x + 1 - s - 1 (1 - s) / (x + 3 - s - 2 (2 - s) / ...)), evaluated by the
    modified Lentz method; both in one Loop of GAMMA_TERMS iterations."""
    shape = b.ShapeOf(b.Add(s, x))
    s, x = b.Broadcast(s, shape), b.Broadcast(x, shape)
    dtype = x.data.get_dtype()
    inside = b.LogicalAnd(b.LogicalAnd(b.Greater(s, c(0)), b.Greater(x, c(0))),
                          b.LogicalAnd(b.Less(s, c(np.inf)), b.Less(x, c(np.inf))))
    ss, xx = b.Select(inside, s, c(1)), b.Select(inside, x, c(1))     # finite, positive stand-ins
    prefix = b.Exp(b.Subtract(b.Subtract(b.Multiply(ss, b.Log(xx)), xx), log_gamma(b, ss, c)))
    one = b.Add(b.Multiply(xx, c(0)), c(1))
    denominator = b.Add(b.Subtract(xx, ss), c(1))                      # x + 1 - s
    d0 = b.Divide(c(1), _away_from_zero(b, denominator, c))

    def step(bb, k, carried, invariant):
        term, total, lentz_c, lentz_d, fraction = carried
        s_, x_ = invariant
        cc = lambda v: const(bb, v, dtype)  # noqa: E731
        n = bb.Add(bb.Convert(k, destination_type=dtype), cc(1))
        term = bb.Multiply(term, bb.Divide(x_, bb.Add(s_, n)))
        numerator = bb.Multiply(bb.Negative(n), bb.Subtract(n, s_))            # -n (n - s)
        base = bb.Add(bb.Add(bb.Subtract(x_, s_), cc(1)), bb.Multiply(cc(2), n))   # x + 2n + 1 - s
        lentz_d = bb.Divide(cc(1), _away_from_zero(bb, bb.Add(bb.Multiply(numerator, lentz_d), base), cc))
        lentz_c = _away_from_zero(bb, bb.Add(base, bb.Divide(numerator, lentz_c)), cc)
        return [term, bb.Add(total, term), lentz_c, lentz_d, bb.Multiply(fraction, bb.Multiply(lentz_c, lentz_d))]
    _, total, _, _, fraction = column_loop(b, node, b.const(np.int64(GAMMA_TERMS)),
                                           [one, one, b.Multiply(one, c(1 / TINY)), d0, d0], [ss, xx], step,
                                           "incomplete_gamma")
    lower = b.Divide(b.Multiply(prefix, total), ss)
    upper_fraction = b.Multiply(prefix, fraction)
    series = b.Less(xx, b.Add(ss, c(1)))
    p = b.Select(series, lower, b.Subtract(c(1), upper_fraction))
    q = b.Select(series, b.Subtract(c(1), lower), upper_fraction)
    value = q if upper else p
    # the edges, as PyTorch gives them: P(0, x > 0) = 1, P(s, 0) = 0, P(inf, x < inf) = 0,
    # P(s, inf) = 1; NaN for a negative argument, s = x = 0 and s = x = inf (Q: 1 - those)
    low, high = (c(1), c(0)) if upper else (c(0), c(1))
    value = b.Select(b.Equal(x, c(np.inf)), high, value)
    value = b.Select(b.Equal(s, c(np.inf)), low, value)
    value = b.Select(b.Equal(x, c(0)), low, value)
    value = b.Select(b.Equal(s, c(0)), high, value)
    invalid = b.LogicalOr(b.LogicalOr(b.Less(s, c(0)), b.Less(x, c(0))),
                          b.LogicalOr(b.LogicalAnd(b.Equal(s, c(0)), b.Equal(x, c(0))),
                                      b.LogicalAnd(b.Equal(s, c(np.inf)), b.Equal(x, c(np.inf)))))
    invalid = b.LogicalOr(invalid, b.LogicalOr(b.IsNaN(s), b.IsNaN(x)))
    return b.Select(invalid, c(np.nan), value)


@aten("aten::igamma", "aten::special_gammainc", "aten::igammac", "aten::special_gammaincc")
def igamma(node, a, b):
    """igamma(s, x) / special.gammainc: the regularized lower incomplete gamma function; igammac /
    gammaincc the upper one."""
    et, (s, x) = promoted(a, (0, 1), b)
    if not is_float_type(et):
        s, x = convert(b, s, "f32"), convert(b, x, "f32")
        et = "f32"
    upper = node.fw_op in ("aten::igammac", "aten::special_gammaincc")
    return [regularized_gamma(node, b, s, x, lambda v: const(b, v, et), upper)]


@aten("aten::special_zeta")
def zeta(node, a, b):
    """zeta(x, q): the Hurwitz zeta function (both arguments promoted to floating point)."""
    et, (s, q) = promoted(a, (0, 1), b)
    if not is_float_type(et):
        s, q = convert(b, s, "f32"), convert(b, q, "f32")
    dtype = s.data.get_dtype()
    return [hurwitz_zeta(node, b, s, q, lambda v: const(b, v, dtype))]


# ---------------------------------------------------------------------------- error function family


# Giles' single-precision approximation of erfinv in w = -log((1 - x)(1 + x)), two branches
_ERFINV_LOW = [1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087, -4.39150654e-06,
               -3.5233877e-06, 3.43273939e-07, 2.81022636e-08]
_ERFINV_HIGH = [2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773, -0.00367342844,
                0.00134934322, 0.000100950558, -0.000200214257]


def inverse_erf(b, y, c):
    """erfinv(y): Giles' approximation polished by one Newton step; +-inf at +-1, NaN beyond."""
    w = b.Negative(b.Log(b.Multiply(b.Subtract(c(1), y), b.Add(c(1), y))))
    low = _polynomial(b, b.Subtract(w, c(2.5)), _ERFINV_LOW, c)
    high = _polynomial(b, b.Subtract(b.Sqrt(w), c(3.0)), _ERFINV_HIGH, c)
    x = b.Multiply(b.Select(b.Less(w, c(5.0)), low, high), y)
    derivative = b.Multiply(c(2 / math.sqrt(math.pi)), b.Exp(b.Negative(b.Multiply(x, x))))
    x = b.Subtract(x, b.Divide(b.Subtract(b.Erf(x), y), derivative))
    magnitude = b.Abs(y)
    x = b.Select(b.Equal(magnitude, c(1)), b.Multiply(y, c(np.inf)), x)
    return b.Select(b.Greater(magnitude, c(1)), c(np.nan), x)


def scaled_erfc(b, x, c):
    """erfcx(x) = exp(x^2) erfc(x): exp(x^2)(1 - erf(x)) for 0 <= x < ERFCX_SWITCH, the continued
    fraction 1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))) above, and
    2 exp(x^2) - erfcx(-x) for negative x."""
    u = b.Abs(x)
    direct = b.Multiply(b.Exp(b.Multiply(u, u)), b.Subtract(c(1), b.Erf(u)))
    v = b.Maximum(u, c(ERFCX_SWITCH))
    t = v
    for k in range(CF_DEPTH, 0, -1):
        t = b.Add(v, b.Divide(c(k / 2), t))
    fraction = b.Divide(c(1 / math.sqrt(math.pi)), t)
    positive = b.Select(b.Less(u, c(ERFCX_SWITCH)), direct, fraction)
    return b.Select(b.Less(x, c(0)), b.Subtract(b.Multiply(c(2), b.Exp(b.Multiply(x, x))), positive), positive)


def _upper_tail(b, u, c):
    """0.5 erfc(u / sqrt(2)) for u >= 0 (the normal distribution's upper tail), without
    cancellation."""
    v = b.Multiply(u, c(1 / math.sqrt(2)))
    return b.Multiply(c(0.5), b.Multiply(scaled_erfc(b, v, c), b.Exp(b.Negative(b.Multiply(v, v)))))


@aten("aten::erfinv", "aten::special_erfinv")
def erfinv(node, a, b):
    x, c = _float_input(node, a, b)
    return [inverse_erf(b, x, c)]


@aten("aten::special_erfcx")
def erfcx(node, a, b):
    x, c = _float_input(node, a, b)
    return [scaled_erfc(b, x, c)]


@aten("aten::special_ndtr")
def ndtr(node, a, b):
    """The standard normal distribution function: the upper tail of -x, or 1 minus that of x."""
    x, c = _float_input(node, a, b)
    tail = _upper_tail(b, b.Abs(x), c)
    return [b.Select(b.Less(x, c(0)), tail, b.Subtract(c(1), tail))]


@aten("aten::special_ndtri")
def ndtri(node, a, b):
    """The inverse of ndtr: sqrt(2) erfinv(2p - 1)."""
    p, c = _float_input(node, a, b)
    return [b.Multiply(c(math.sqrt(2)), inverse_erf(b, b.Subtract(b.Multiply(c(2), p), c(1)), c))]


@aten("aten::special_log_ndtr")
def log_ndtr(node, a, b):
    """log ndtr(x): log(0.5 erfcx(-x / sqrt 2)) - x^2 / 2 for x < 0, log1p(-upper tail) above."""
    x, c = _float_input(node, a, b)
    v = b.Multiply(b.Negative(x), c(1 / math.sqrt(2)))
    below = b.Subtract(b.Log(b.Multiply(c(0.5), scaled_erfc(b, v, c))), b.Multiply(c(0.5), b.Multiply(x, x)))
    tail = _upper_tail(b, b.Maximum(x, c(0)), c)
    above = b.Log(b.Subtract(c(1), tail))
    return [b.Select(b.Less(x, c(0)), below, above)]


# ---------------------------------------------------------------------------- Bessel functions


def _asymptotic_coefficients(order: int, count: int) -> list[float]:
    """a_k of I_order(x) ~ e^x / sqrt(2 pi x) sum (-1)^k a_k / x^k: prod (4 order^2 - (2j - 1)^2)
    / (k! 8^k), with the (-1)^k folded in."""
    values, a = [1.0], 1.0
    for k in range(1, count):
        a *= (4 * order * order - (2 * k - 1) ** 2) / (k * 8)
        values.append((-1) ** k * a)
    return values


def bessel_i(node, b, x, c, order: int, scaled: bool):
    """I_order(x) (order 0 or 1; ``scaled``: times exp(-|x|)): the power series
    sum (x/2)^(2k + order) / (k! (k + order)!) up to |x| = BESSEL_SWITCH, the asymptotic
    expansion above; I_1 is odd."""
    u = b.Abs(x)
    small = b.Minimum(u, c(BESSEL_SWITCH))
    y = b.Multiply(c(0.25), b.Multiply(small, small))
    first = b.Add(b.Multiply(y, c(0)), c(1)) if order == 0 else b.Multiply(c(0.5), small)    # y^0 / 0! 0!
    dtype = y.data.get_dtype()

    def step(bb, k, carried, invariant):
        # in a Loop: as one long chain of elementwise ops the CPU plugin runs out of registers
        term, total = carried
        (yy,) = invariant
        kk = bb.Add(bb.Convert(k, destination_type=dtype), const(bb, 1, dtype))
        term = bb.Multiply(term, bb.Divide(yy, bb.Multiply(kk, bb.Add(kk, const(bb, order, dtype)))))
        return [term, bb.Add(total, term)]
    _, total = column_loop(b, node, b.const(np.int64(SERIES_TERMS - 1)), [first, first], [y], step, "series")
    if scaled:
        total = b.Multiply(total, b.Exp(b.Negative(small)))
    large = b.Maximum(u, c(BESSEL_SWITCH))
    expansion = _polynomial(b, b.Divide(c(1), large), _asymptotic_coefficients(order, 10), c)
    expansion = b.Divide(expansion, b.Sqrt(b.Multiply(c(2 * math.pi), large)))
    if not scaled:
        expansion = b.Multiply(expansion, b.Exp(large))
    result = b.Select(b.LessEqual(u, c(BESSEL_SWITCH)), total, expansion)
    return b.Multiply(result, b.Sign(x)) if order == 1 else result


@aten("aten::i0", "aten::special_i0", "aten::special_modified_bessel_i0")
def i0(node, a, b):
    x, c = _float_input(node, a, b)
    return [bessel_i(node, b, x, c, 0, scaled=False)]


@aten("aten::special_i0e")
def i0e(node, a, b):
    x, c = _float_input(node, a, b)
    return [bessel_i(node, b, x, c, 0, scaled=True)]


@aten("aten::special_i1", "aten::special_modified_bessel_i1")
def i1(node, a, b):
    x, c = _float_input(node, a, b)
    return [bessel_i(node, b, x, c, 1, scaled=False)]


@aten("aten::special_i1e")
def i1e(node, a, b):
    x, c = _float_input(node, a, b)
    return [bessel_i(node, b, x, c, 1, scaled=True)]


def _bessel_sums(node, b, y, c, order: int, alternating: bool):
    """(S1, S2) of the power series of the Bessel functions of integer ``order`` in y = x^2 / 4:
    S1 = sum s^k y^k / (k! (k + order)!), S2 = sum s^k (psi(k + 1) + psi(k + order + 1)) y^k /
    (k! (k + order)!) with s = -1 (J, Y) or 1 (I, K), summed in a Loop (see ``bessel_i``)."""
    dtype = y.data.get_dtype()
    euler = 0.5772156649015329
    first = b.Add(b.Multiply(y, c(0)), c(1.0 / math.factorial(order)))
    harmonic_order = sum(1.0 / j for j in range(1, order + 1))
    s2 = b.Multiply(first, c(-2 * euler + harmonic_order))

    def step(bb, k, carried, invariant):
        term, s1, s2, h, h_order = carried
        (yy,) = invariant
        cc = lambda v: const(bb, v, dtype)  # noqa: E731
        kk = bb.Add(bb.Convert(k, destination_type=dtype), cc(1))
        term = bb.Multiply(term, bb.Divide(yy, bb.Multiply(kk, bb.Add(kk, cc(order)))))
        if alternating:
            term = bb.Negative(term)
        h = bb.Add(h, bb.Divide(cc(1), kk))
        h_order = bb.Add(h_order, bb.Divide(cc(1), bb.Add(kk, cc(order))))
        weight = bb.Subtract(bb.Add(h, h_order), cc(2 * euler))
        return [term, bb.Add(s1, term), bb.Add(s2, bb.Multiply(weight, term)), h, h_order]
    zero = b.Multiply(y, c(0))
    _, s1, s2, _, _ = column_loop(b, node, b.const(np.int64(SERIES_TERMS - 1)),
                                  [first, first, s2, zero, b.Add(zero, c(harmonic_order))], [y], step, "series")
    return s1, s2


def _hankel(b, x, c, order: int, kind: str):
    """The asymptotic expansions for large x: J / Y by sqrt(2 / (pi x)) (P cos - Q sin) and
    (P sin + Q cos) of x - (order / 2 + 1/4) pi, K by sqrt(pi / (2x)) e^-x sum a_k / x^k."""
    mu = 4 * order * order
    a, coefficients = 1.0, [1.0]
    for k in range(1, 12):
        a *= (mu - (2 * k - 1) ** 2) / (k * 8)
        coefficients.append(a)
    inverse = b.Divide(c(1), x)
    if kind == "K":
        series = _polynomial(b, inverse, coefficients, c)
        return b.Multiply(b.Sqrt(b.Divide(c(math.pi / 2), x)), series)       # times e^-x by the caller
    p = _polynomial(b, inverse, [v * (-1) ** (k // 2) if k % 2 == 0 else 0.0 for k, v in enumerate(coefficients)], c)
    q = _polynomial(b, inverse, [v * (-1) ** (k // 2) if k % 2 else 0.0 for k, v in enumerate(coefficients)], c)
    chi = b.Subtract(x, c((order / 2 + 0.25) * math.pi))
    cos, sin = b.Cos(chi), b.Sin(chi)
    scale = b.Sqrt(b.Divide(c(2 / math.pi), x))
    if kind == "J":
        return b.Multiply(scale, b.Subtract(b.Multiply(p, cos), b.Multiply(q, sin)))
    return b.Multiply(scale, b.Add(b.Multiply(p, sin), b.Multiply(q, cos)))


BESSEL_JY_SWITCH = 10.0     # power series below, asymptotic expansion above (J, Y)
BESSEL_K_SWITCH = 5.0       # the same for K


def bessel_jy(node, b, x, c, order: int, kind: str):
    """J_order / Y_order (order 0 or 1) of x: J is even (order 0) or odd (order 1), Y is NaN for
    x < 0 and -inf at 0."""
    u = b.Abs(x) if kind == "J" else x
    small = b.Minimum(b.Maximum(u, c(0)), c(BESSEL_JY_SWITCH))
    half = b.Multiply(c(0.5), small)
    s1, s2 = _bessel_sums(node, b, b.Multiply(half, half), c, order, alternating=True)
    j = s1 if order == 0 else b.Multiply(half, s1)
    if kind == "J":
        series = j
    else:
        log_term = b.Multiply(c(2 / math.pi), b.Multiply(b.Log(half), j))
        if order == 0:
            series = b.Subtract(log_term, b.Multiply(c(1 / math.pi), s2))
        else:
            series = b.Subtract(b.Subtract(log_term, b.Divide(c(2 / math.pi), small)),
                                b.Multiply(b.Divide(half, c(math.pi)), s2))
    large = _hankel(b, b.Maximum(u, c(BESSEL_JY_SWITCH)), c, order, kind)
    result = b.Select(b.LessEqual(u, c(BESSEL_JY_SWITCH)), series, large)
    if kind == "J":
        return b.Multiply(result, b.Sign(x)) if order == 1 else result
    result = b.Select(b.Equal(x, c(0)), c(-np.inf), result)
    return b.Select(b.Less(x, c(0)), c(np.nan), result)


def bessel_k(node, b, x, c, order: int, scaled: bool):
    """K_order (order 0 or 1; ``scaled``: times e^x) of x: inf at 0, NaN for x < 0."""
    small = b.Minimum(b.Maximum(x, c(1e-30)), c(BESSEL_K_SWITCH))
    half = b.Multiply(c(0.5), small)
    s1, s2 = _bessel_sums(node, b, b.Multiply(half, half), c, order, alternating=False)
    if order == 0:
        series = b.Add(b.Negative(b.Multiply(b.Log(half), s1)), b.Multiply(c(0.5), s2))
    else:
        i1 = b.Multiply(half, s1)
        series = b.Subtract(b.Add(b.Divide(c(1), small), b.Multiply(b.Log(half), i1)),
                            b.Multiply(b.Multiply(c(0.5), half), s2))
    if scaled:
        series = b.Multiply(series, b.Exp(small))
    large_x = b.Maximum(x, c(BESSEL_K_SWITCH))
    large = _hankel(b, large_x, c, order, "K")
    if not scaled:
        large = b.Multiply(large, b.Exp(b.Negative(large_x)))
    result = b.Select(b.LessEqual(x, c(BESSEL_K_SWITCH)), series, large)
    result = b.Select(b.Equal(x, c(0)), c(np.inf), result)
    return b.Select(b.Less(x, c(0)), c(np.nan), result)


_BESSEL_JY = {"aten::special_bessel_j0": (0, "J"), "aten::special_bessel_j1": (1, "J"),
              "aten::special_bessel_y0": (0, "Y"), "aten::special_bessel_y1": (1, "Y")}
_BESSEL_K = {"aten::special_modified_bessel_k0": (0, False), "aten::special_modified_bessel_k1": (1, False),
             "aten::special_scaled_modified_bessel_k0": (0, True), "aten::special_scaled_modified_bessel_k1": (1, True)}


@aten(*_BESSEL_JY)
def bessel_j_y(node, a, b):
    x, c = _float_input(node, a, b)
    return [bessel_jy(node, b, x, c, *_BESSEL_JY[node.fw_op])]


@aten(*_BESSEL_K)
def modified_bessel_k(node, a, b):
    x, c = _float_input(node, a, b)
    order, scaled = _BESSEL_K[node.fw_op]
    return [bessel_k(node, b, x, c, order, scaled)]


AIRY_POSITIVE = 3.0      # Ai by its asymptotic expansion from here up, by its power series below
AIRY_NEGATIVE = -5.0     # and by the oscillating asymptotic expansion from here down
AIRY_ZERO = (0.355028053887817239, 0.258819403792806798)     # Ai(0), -Ai'(0)


def _airy_coefficients(count: int) -> list[float]:
    """u_0 .. u_count-1 of the Airy asymptotic expansions: u_k = u_k-1 (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k)."""
    values = [1.0]
    for k in range(1, count):
        values.append(values[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k))
    return values


def airy_ai(node, b, x, c):
    """Ai(x): the power series c1 f(x) - c2 g(x) (f = sum x^3k / ((2 3)(5 6) ... ((3k-1) 3k)),
    g = sum x^(3k+1) / ((3 4)(6 7) ... (3k (3k+1))), c1 = Ai(0), c2 = -Ai'(0); in a Loop) between
    AIRY_NEGATIVE and AIRY_POSITIVE; above, e^-z / (2 sqrt(pi) x^1/4) sum (-1)^k u_k z^-k with
    z = 2/3 x^3/2; below, (sin(z + pi/4) P - cos(z + pi/4) Q) / (sqrt(pi) |x|^1/4) with the even
    and odd terms of that sum in P and Q (z of |x|). NaN at infinities (as PyTorch gives) and NaN."""
    u = _airy_coefficients(16)
    dtype = x.data.get_dtype()
    # the power series
    middle = b.Minimum(b.Maximum(x, c(AIRY_NEGATIVE)), c(AIRY_POSITIVE))
    cube = b.Multiply(b.Multiply(middle, middle), middle)
    one = b.Add(b.Multiply(middle, c(0)), c(1))

    def step(bb, k, carried, invariant):
        f_term, f, g_term, g = carried
        (cube_,) = invariant
        cc = lambda v: const(bb, v, dtype)  # noqa: E731
        three_k = bb.Multiply(bb.Add(bb.Convert(k, destination_type=dtype), cc(1)), cc(3))
        f_term = bb.Multiply(f_term, bb.Divide(cube_, bb.Multiply(bb.Subtract(three_k, cc(1)), three_k)))
        g_term = bb.Multiply(g_term, bb.Divide(cube_, bb.Multiply(three_k, bb.Add(three_k, cc(1)))))
        return [f_term, bb.Add(f, f_term), g_term, bb.Add(g, g_term)]
    _, f, _, g = column_loop(b, node, b.const(np.int64(30)), [one, one, middle, middle], [cube], step, "airy_series")
    series = b.Subtract(b.Multiply(c(AIRY_ZERO[0]), f), b.Multiply(c(AIRY_ZERO[1]), g))
    # the decaying side
    high = b.Maximum(x, c(AIRY_POSITIVE))
    z = b.Multiply(c(2 / 3), b.Multiply(high, b.Sqrt(high)))
    total = _polynomial(b, b.Divide(c(1), z), [(-1) ** k * v for k, v in enumerate(u[:12])], c)
    decaying = b.Divide(b.Multiply(b.Exp(b.Negative(z)), total),
                        b.Multiply(c(2 * math.sqrt(math.pi)), b.Sqrt(b.Sqrt(high))))
    # the oscillating side
    low = b.Maximum(b.Negative(x), c(-AIRY_NEGATIVE))
    z = b.Multiply(c(2 / 3), b.Multiply(low, b.Sqrt(low)))
    inverse = b.Divide(c(1), z)
    inverse2 = b.Multiply(inverse, inverse)
    p = _polynomial(b, inverse2, [(-1) ** k * u[2 * k] for k in range(8)], c)
    q = b.Multiply(inverse, _polynomial(b, inverse2, [(-1) ** k * u[2 * k + 1] for k in range(7)], c))
    phase = b.Add(z, c(math.pi / 4))
    oscillating = b.Divide(b.Subtract(b.Multiply(b.Sin(phase), p), b.Multiply(b.Cos(phase), q)),
                           b.Multiply(c(math.sqrt(math.pi)), b.Sqrt(b.Sqrt(low))))
    result = b.Select(b.GreaterEqual(x, c(AIRY_POSITIVE)), decaying,
                      b.Select(b.LessEqual(x, c(AIRY_NEGATIVE)), oscillating, series))
    undefined = b.LogicalOr(b.IsInf(x), b.IsNaN(x))
    return b.Select(undefined, c(np.nan), result)


@aten("aten::special_airy_ai")
def special_airy_ai(node, a, b):
    x, c = _float_input(node, a, b)
    return [airy_ai(node, b, x, c)]


@aten("aten::special_spherical_bessel_j0")
def spherical_bessel_j0(node, a, b):
    """sin(x) / x, 1 at 0."""
    x, c = _float_input(node, a, b)
    return [b.Select(b.Equal(x, c(0)), c(1), b.Divide(b.Sin(x), x))]


# ---------------------------------------------------------------------------- other functions


@aten("aten::sinc", "aten::special_sinc")
def sinc(node, a, b):
    """sin(pi x) / (pi x), 1 at 0."""
    x, c = _float_input(node, a, b)
    pi_x = b.Multiply(x, c(math.pi))
    return [b.Select(b.Equal(x, c(0)), c(1), b.Divide(b.Sin(pi_x), pi_x))]


@aten("aten::special_entr")
def entr(node, a, b):
    """-x log x for x > 0, 0 at 0, -inf for x < 0 (NaN stays)."""
    x, c = _float_input(node, a, b)
    value = b.Negative(b.Multiply(x, b.Log(x)))
    value = b.Select(b.Equal(x, c(0)), c(0), value)
    return [b.Select(b.Less(x, c(0)), c(-np.inf), value)]


def _x_log(node, a, b, log1p: bool):
    """x * log(y) (log1p(y)), 0 where x is 0 unless y is NaN."""
    et, (x, y) = promoted(a, (0, 1), b)
    if not is_float_type(et):
        x, y = convert(b, x, "f32"), convert(b, y, "f32")
    dtype = x.data.get_dtype()
    c = lambda v: const(b, v, dtype)  # noqa: E731
    log = b.Log(b.Add(y, c(1))) if log1p else b.Log(y)
    value = b.Select(b.Equal(x, c(0)), c(0), b.Multiply(x, log))
    return b.Select(b.IsNaN(y), y, value)


@aten("aten::xlogy", "aten::special_xlogy")
def xlogy(node, a, b):
    return [_x_log(node, a, b, log1p=False)]


@aten("aten::special_xlog1py")
def xlog1py(node, a, b):
    return [_x_log(node, a, b, log1p=True)]


# ---------------------------------------------------------------------------- orthogonal polynomials


def _two_x(b, x, c):
    return b.Multiply(c(2), x)


def _shifted(b, x, c):
    return b.Subtract(b.Multiply(c(2), x), c(1))


# op -> (argument map, p1(t), next(t, k, p_k, p_k-1)) with t the mapped argument
_CHEBYSHEV_NEXT = (lambda b, t, k, p, q, c: b.Subtract(b.Multiply(_two_x(b, t, c), p), q))
POLYNOMIALS = {
    "chebyshev_polynomial_t": (None, lambda b, t, c: t, _CHEBYSHEV_NEXT),
    "chebyshev_polynomial_u": (None, _two_x, _CHEBYSHEV_NEXT),
    "chebyshev_polynomial_v": (None, lambda b, t, c: b.Subtract(_two_x(b, t, c), c(1)), _CHEBYSHEV_NEXT),
    "chebyshev_polynomial_w": (None, lambda b, t, c: b.Add(_two_x(b, t, c), c(1)), _CHEBYSHEV_NEXT),
    "hermite_polynomial_h": (None, _two_x, lambda b, t, k, p, q, c: b.Subtract(
        b.Multiply(_two_x(b, t, c), p), b.Multiply(b.Multiply(c(2), k), q))),
    "hermite_polynomial_he": (None, lambda b, t, c: t, lambda b, t, k, p, q, c: b.Subtract(
        b.Multiply(t, p), b.Multiply(k, q))),
    "laguerre_polynomial_l": (None, lambda b, t, c: b.Subtract(c(1), t), lambda b, t, k, p, q, c: b.Divide(
        b.Subtract(b.Multiply(b.Subtract(b.Add(b.Multiply(c(2), k), c(1)), t), p), b.Multiply(k, q)),
        b.Add(k, c(1)))),
    "legendre_polynomial_p": (None, lambda b, t, c: t, lambda b, t, k, p, q, c: b.Divide(
        b.Subtract(b.Multiply(b.Multiply(b.Add(b.Multiply(c(2), k), c(1)), t), p), b.Multiply(k, q)),
        b.Add(k, c(1)))),
}
for _name in ("t", "u", "v", "w"):
    _, _first, _next = POLYNOMIALS[f"chebyshev_polynomial_{_name}"]
    POLYNOMIALS[f"shifted_chebyshev_polynomial_{_name}"] = (_shifted, _first, _next)


@aten(*[f"aten::special_{name}" for name in POLYNOMIALS])
def orthogonal_polynomial(node, a, b):
    """p_n(x) of the classical orthogonal polynomials for integer n (truncated; 0 for n < 0):
    p_0 = 1 and p_1 by formula, p_(k+1) from p_k and p_(k-1) in a Loop of max(n) - 1 steps that
    keeps each element's p_n."""
    mapping, first, step = POLYNOMIALS[node.fw_op[len("aten::special_"):]]
    et, (x, n) = promoted(a, (0, 1), b)
    if not is_float_type(et):
        x = convert(b, x, "f32")
    dtype = x.data.get_dtype()
    c = lambda v: const(b, v, dtype)  # noqa: E731
    degree = convert(b, n, "i64")
    shape = b.ShapeOf(b.Add(x, convert(b, degree, dtype)))
    x, degree = b.Broadcast(x, shape, mode="numpy"), b.Broadcast(degree, shape, mode="numpy")
    t = mapping(b, x, c) if mapping else x
    p0, p1 = b.Broadcast(c(1), shape, mode="numpy"), first(b, t, c)
    result = b.Select(b.Equal(degree, np.int64(0)), p0, b.Select(b.Equal(degree, np.int64(1)), p1, c(0)))
    top = b.ReduceMax(b.Reshape(degree, i64([-1]), special_zero=False), i64(0), keep_dims=False)
    trip = b.Maximum(b.Subtract(b.Maximum(top, np.int64(1)), np.int64(1)), np.int64(0))

    def iteration(bb, i, carried, invariant):
        prev, cur, res = carried
        tt, deg = invariant
        cc = lambda v: const(bb, v, dtype)  # noqa: E731
        k = bb.Add(bb.Convert(i, destination_type=dtype), cc(1))        # degree of cur
        nxt = step(bb, tt, k, cur, prev, cc)
        res = bb.Select(bb.Equal(deg, bb.Add(i, np.int64(2))), nxt, res)
        return [cur, nxt, res]
    _, _, result = column_loop(b, node, trip, [p0, p1, result], [t, degree], iteration, "recurrence")
    return [result]
