"""Attention written out as matrix products fused into ScaledDotProductAttention.

transformers' eager attention (the only one some architectures have, such as Gemma2):
``softmax(q @ k.transpose(-2, -1) * scale + mask, dim=-1) @ v`` becomes
``ScaledDotProductAttention(q, k, v, mask, scale)``, the op the runtime runs as one kernel with
the key/value cache it keeps (CPU) or as paged attention (OpenVINO GenAI's continuous batching).
Attention that adds anything else between the product and the softmax (Gemma2's logit soft-capping
``tanh(s / c) * c``) is left as it is: the op has no such step.

Applied to transformers decoders converted with their cache (``graph.graph["transformers_decoder"]``),
whose masks are additive float masks (or none).
"""
from __future__ import annotations

import numpy as np

from extensions.middle.activation_fusions import scale_value
from extensions.middle.constant_folding import ConstantFolding
from mo.graph.building import typed_const
from mo.pipeline.pattern import PatternRewrite


class EagerAttentionToSDPA(PatternRewrite):
    """MatMul(Softmax([Add]([Multiply|Divide](MatMul(q, kᵀ), scale), mask)), v) ->
    ScaledDotProductAttention(q, k, v, mask or 0, scale or 1); kᵀ is a Transpose of k's last two
    dims or the first MatMul's transpose_b."""

    def run_after(self):
        return [ConstantFolding]

    def graph_condition(self, graph) -> bool:
        return bool(graph.graph.get("transformers_decoder"))

    def pattern(self, p):
        q, k, v = p.var("q"), p.var("k"), p.var("v")
        patterns = []
        for scores in (p.MatMul(q, p.Transpose(k, p.const("order")), transpose_a=False, transpose_b=False),
                       p.MatMul(q, k, transpose_a=False, transpose_b=True)):
            for scaled in (scores, p.Multiply(scores, p.const("scale")), p.Divide(scores, p.const("scale"))):
                for masked in (scaled, p.Add(scaled, p.var("mask"))):
                    patterns.append(p.MatMul(p.Softmax(masked), v, transpose_a=False, transpose_b=False))
        return patterns

    def condition(self, m) -> bool:
        q, k, v = (m[name].data for name in ("q", "k", "v"))
        rank = q.get_rank()
        if rank is None or rank < 3 or k.get_rank() != rank or v.get_rank() != rank:
            return False
        if q.get_dtype() not in ("f32", "f16", "bf16") or len({q.get_dtype(), k.get_dtype(), v.get_dtype()}) != 1:
            return False
        softmax = next(n for n in m.nodes if n.op == "Softmax")
        if softmax.axis not in (-1, rank - 1):
            return False
        if "order" in m:
            order = np.asarray(m["order"]).reshape(-1).tolist()
            if order != list(range(rank - 2)) + [rank - 1, rank - 2]:
                return False
        if "scale" in m and (np.asarray(m["scale"]).size != 1 or scale_value(m, "scale") is None):
            return False
        return "mask" not in m or m["mask"].data.get_dtype() == q.get_dtype()

    def replacement(self, b, m):
        et = m["q"].data.get_dtype()
        scale = scale_value(m, "scale") if "scale" in m else 1.0
        mask = m["mask"] if "mask" in m else typed_const(b, 0, et)
        return b.ScaledDotProductAttention(m["q"], m["k"], m["v"], mask, typed_const(b, scale, et), causal=False)
