"""Fusions of activation sub-graphs into single opset ops: GELU (erf and tanh forms), Swish/SiLU,
HSwish, HSigmoid, Mish, SoftPlus."""
from __future__ import annotations

import math

import numpy as np

from extensions.middle.constant_folding import ConstantFolding
from mo.pipeline.pattern import PatternRewrite
from mo.utils.types import np_dtype


def close(value, expected: float, rtol: float = 1e-3) -> bool:
    """A constant (of any shape with one distinct value) equal to ``expected`` within rtol."""
    v = np.asarray(value, dtype=np.float64)
    return v.size >= 1 and bool(np.allclose(v, expected, rtol=rtol, atol=1e-6))


class _Fusion(PatternRewrite):
    abstract = True

    def run_after(self):
        return [ConstantFolding]


def _scale_variants(p, x, name: str):
    """x * c or x / c (which constant is meant is checked in the condition)."""
    return [p.Multiply(x, p.const(name)), p.Divide(x, p.const(name))]


def scale_value(m, name: str) -> float | None:
    """The factor a matched Multiply/Divide-by-constant applies."""
    value = np.asarray(m[name], np.float64)
    if value.size == 0 or not np.all(value == value.reshape(-1)[0]):
        return None
    factor = float(value.reshape(-1)[0])
    divides = any(n.op == "Divide" and n.in_port(1).get_source() == m.ports[name] for n in m.nodes)
    if divides:
        return None if factor == 0 else 1.0 / factor
    return factor


class SoftPlusFusion(_Fusion):
    """log(exp(x) + 1) -> SoftPlus(x)."""

    def pattern(self, p):
        x = p.var("x")
        return p.Log(p.Add(p.Exp(x), p.const("one")))

    def condition(self, m):
        return close(m["one"], 1.0)

    def replacement(self, b, m):
        return b.SoftPlus(m["x"])


class MishFusion(_Fusion):
    """x * tanh(softplus(x)) -> Mish(x)."""

    def run_after(self):
        return [SoftPlusFusion]

    def pattern(self, p):
        x = p.var("x")
        return p.Multiply(x, p.Tanh(p.SoftPlus(x)))

    def replacement(self, b, m):
        return b.Mish(m["x"])


class SwishFusion(_Fusion):
    """x * sigmoid(x) -> Swish(x) (SiLU); x * sigmoid(beta * x) -> Swish(x, beta)."""

    def pattern(self, p):
        x = p.var("x")
        return [p.Multiply(x, p.Sigmoid(x)), p.Multiply(x, p.Sigmoid(p.Multiply(x, p.const("beta"))))]

    def condition(self, m):
        return "beta" not in m or np.asarray(m["beta"]).size == 1

    def replacement(self, b, m):
        if "beta" in m:
            beta = np.asarray(m["beta"]).reshape(())
            return b.Swish(m["x"], b.const(beta.astype(np_dtype(m["x"].data.get_dtype() or "f32"))))
        return b.Swish(m["x"])


def _relu6_variants(p, y):
    """min(max(y, 0), 6) in its usual spellings."""
    return [p.Clamp(y), p.Minimum(p.ReLU(y), p.const("six")), p.Minimum(p.Maximum(y, p.const("zero")), p.const("six"))]


def _relu6_ok(m) -> bool:
    clamp = [n for n in m.nodes if n.op == "Clamp"]
    if clamp and (clamp[0].min != 0 or clamp[0].max != 6):
        return False
    return ("six" not in m or close(m["six"], 6.0)) and ("zero" not in m or close(m["zero"], 0.0))


class HSigmoidFusion(_Fusion):
    """relu6(x + 3) / 6 -> HSigmoid(x)."""

    def pattern(self, p):
        x = p.var("x")
        patterns = []
        for r6 in _relu6_variants(p, p.Add(x, p.const("three"))):
            patterns += _scale_variants(p, r6, "sixth")
        return patterns

    def condition(self, m):
        return close(m["three"], 3.0) and _relu6_ok(m) and _factor_ok(m, "sixth", 1 / 6)

    def replacement(self, b, m):
        return b.HSigmoid(m["x"])


def _factor_ok(m, name: str, expected: float) -> bool:
    factor = scale_value(m, name)
    return factor is not None and math.isclose(factor, expected, rel_tol=1e-3)


class HSwishFusion(_Fusion):
    """x * relu6(x + 3) / 6 (any grouping) -> HSwish(x); x * HSigmoid(x) -> HSwish(x)."""

    def run_after(self):
        return [HSigmoidFusion]

    def pattern(self, p):
        x = p.var("x")
        patterns = [p.Multiply(x, p.HSigmoid(x))]
        for r6 in _relu6_variants(p, p.Add(x, p.const("three"))):
            patterns += _scale_variants(p, p.Multiply(x, r6), "sixth")
        return patterns

    def condition(self, m):
        if any(n.op == "HSigmoid" for n in m.nodes):
            return True
        return close(m["three"], 3.0) and _relu6_ok(m) and _factor_ok(m, "sixth", 1 / 6)

    def replacement(self, b, m):
        return b.HSwish(m["x"])


class GeluErfFusion(_Fusion):
    """0.5 * x * (1 + erf(x / sqrt(2))) in its usual groupings -> Gelu(x, ERF)."""

    def pattern(self, p):
        x = p.var("x")
        patterns = []
        for scaled in _scale_variants(p, x, "inv_sqrt2"):
            one_plus = p.Add(p.Erf(scaled), p.const("one"))
            patterns += [
                p.Multiply(p.Multiply(x, p.const("half")), one_plus),
                p.Multiply(p.Multiply(x, one_plus), p.const("half")),
                p.Multiply(x, p.Multiply(one_plus, p.const("half"))),
            ]
            patterns += [p.Divide(p.Multiply(x, one_plus), p.const("two"))]
        return patterns

    def condition(self, m):
        if not (close(m["one"], 1.0) and _factor_ok(m, "inv_sqrt2", 1 / math.sqrt(2))):
            return False
        return close(m["half"], 0.5) if "half" in m else close(m["two"], 2.0)

    def replacement(self, b, m):
        return b.Gelu(m["x"], approximation_mode="ERF")


class GeluTanhFusion(_Fusion):
    """0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) -> Gelu(x, TANH)."""

    def pattern(self, p):
        x = p.var("x")
        patterns = []
        for cube in (p.Power(x, p.const("three")), p.Multiply(x, p.Multiply(x, x)),
                     p.Multiply(p.Multiply(x, x), x)):
            inner = p.Add(x, p.Multiply(cube, p.const("coeff")))
            one_plus = p.Add(p.Tanh(p.Multiply(inner, p.const("sqrt_2_pi"))), p.const("one"))
            patterns += [
                p.Multiply(p.Multiply(x, p.const("half")), one_plus),
                p.Multiply(p.Multiply(x, one_plus), p.const("half")),
                p.Multiply(x, p.Multiply(one_plus, p.const("half"))),
            ]
        return patterns

    def condition(self, m):
        return (close(m["one"], 1.0) and close(m["half"], 0.5) and close(m["coeff"], 0.044715)
                and close(m["sqrt_2_pi"], math.sqrt(2 / math.pi)) and ("three" not in m or close(m["three"], 3.0)))

    def replacement(self, b, m):
        return b.Gelu(m["x"], approximation_mode="TANH")
