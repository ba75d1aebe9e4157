"""Fusions of normalization sub-graphs: layer normalization -> MVN (+ Multiply/Add of the
affine parameters, which stay as they are), L2 normalization -> NormalizeL2."""
from __future__ import annotations

import numpy as np

from extensions.middle.activation_fusions import _Fusion, close
from mo.pipeline.pattern import Match


def _axes(m: Match, rank: int | None) -> list[int] | None:
    if rank is None:
        return None
    axes = sorted({int(a) % rank for a in np.atleast_1d(m["axes"])})
    if "axes2" in m and sorted({int(a) % rank for a in np.atleast_1d(m["axes2"])}) != axes:
        return None
    return axes


def _keep_dims(m: Match) -> bool:
    return all(n.get("keep_dims") for n in m.nodes if n.op.startswith("Reduce"))


def _scalar(m: Match, name: str) -> float | None:
    value = np.asarray(m[name])
    if value.size != 1:
        return None
    return float(value.reshape(-1)[0])


class LayerNormToMVN(_Fusion):
    """(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) over the same axes -> MVN(x, axes, eps,
    inside_sqrt); the square may be Power(d, 2) or d * d, the division a Multiply by Reciprocal
    or by Power(., -0.5)."""

    def pattern(self, p):
        x = p.var("x")
        mean = p.ReduceMean(x, p.const("axes"))
        d = p.Subtract(x, mean)
        patterns = []
        for square in (p.Power(d, p.const("two")), p.Multiply(d, d)):
            var = p.ReduceMean(square, p.const("axes2"))
            std = p.Sqrt(p.Add(var, p.const("eps")))
            patterns.append(p.Divide(d, std))
            patterns.append(p.Multiply(d, p.Power(p.Add(var, p.const("eps")), p.const("minus_half"))))
        return patterns

    def condition(self, m):
        if "two" in m and not close(m["two"], 2.0):
            return False
        if "minus_half" in m and not close(m["minus_half"], -0.5):
            return False
        eps = _scalar(m, "eps")
        rank = m["x"].data.get_rank()
        return eps is not None and eps >= 0 and _keep_dims(m) and _axes(m, rank) is not None

    def replacement(self, b, m):
        axes = _axes(m, m["x"].data.get_rank())
        return b.MVN(m["x"], np.array(axes, np.int64), eps=_scalar(m, "eps"), normalize_variance=True,
                     eps_mode="inside_sqrt")


class L2NormToNormalizeL2(_Fusion):
    """x / sqrt(max(sum(x^2), eps)) -> NormalizeL2(eps, max); with Add: eps_mode add;
    x / max(sqrt(sum(x^2)) or ReduceL2(x), eps) -> NormalizeL2(eps^2, max)."""

    def pattern(self, p):
        x = p.var("x")
        patterns = []
        for square in (p.Power(x, p.const("two")), p.Multiply(x, x)):
            total = p.ReduceSum(square, p.const("axes"))
            patterns.append(p.Divide(x, p.Sqrt(p.Maximum(total, p.const("eps")))))
            patterns.append(p.Divide(x, p.Sqrt(p.Add(total, p.const("eps_add")))))
            patterns.append(p.Divide(x, p.Maximum(p.Sqrt(total), p.const("eps_outer"))))
        patterns.append(p.Divide(x, p.Maximum(p.ReduceL2(x, p.const("axes")), p.const("eps_outer"))))
        return patterns

    def condition(self, m):
        if "two" in m and not close(m["two"], 2.0):
            return False
        name = next(k for k in ("eps", "eps_add", "eps_outer") if k in m)
        eps = _scalar(m, name)
        return eps is not None and eps >= 0 and _keep_dims(m) and _axes(m, m["x"].data.get_rank()) is not None

    def replacement(self, b, m):
        axes = _axes(m, m["x"].data.get_rank())
        if "eps_add" in m:
            eps, mode = _scalar(m, "eps_add"), "add"
        elif "eps_outer" in m:
            eps, mode = _scalar(m, "eps_outer") ** 2, "max"
        else:
            eps, mode = _scalar(m, "eps"), "max"
        return b.NormalizeL2(m["x"], np.array(axes, np.int64), eps=eps, eps_mode=mode)
