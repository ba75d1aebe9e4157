"""Lowering of the ATen matrix products: linear, addmm, matmul / mm / bmm / mv / dot, baddbmm,
einsum, and scaled_dot_product_attention."""
from __future__ import annotations

from extensions.front.pytorch.aten import AtenOp, const, convert, promoted, rank_of
from mo.errors import ConversionError

PRODUCTS = ("aten::matmul", "aten::mm", "aten::bmm", "aten::mv", "aten::dot", "aten::inner")


def _scaled(b, x, factor, et):
    return x if factor == 1 else b.Multiply(x, const(b, factor, et))


class AtenLinear(AtenOp):
    """linear(x, W, b) = x W^T + b; addmm / baddbmm: beta * self + alpha * (m1 m2); the plain
    products are one MatMul."""

    op = "pytorch::Linear"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        if kind == "aten::linear":
            et, ports = promoted(a, [k for k in ("input", "weight", "bias") if not a.is_none(k)], b)
            y = b.MatMul(ports[0], ports[1], transpose_b=rank_of(ports[1], node) > 1)
            return [b.Add(y, ports[2]) if len(ports) == 3 else y]
        if kind in PRODUCTS:
            _, (x, y) = promoted(a, (0, 1), b)
            return [b.MatMul(x, y)]
        # addmm(self, mat1, mat2, beta, alpha) and baddbmm(self, batch1, batch2, beta, alpha)
        et, (bias, m1, m2) = promoted(a, (0, 1, 2), b)
        beta, alpha = a.const("beta", 1), a.const("alpha", 1)
        product = _scaled(b, b.MatMul(m1, m2), alpha, et)
        if beta == 0:
            return [product]
        return [b.Add(_scaled(b, bias, beta, et), product)]


def explicit_equation(equation: str) -> str:
    """An einsum equation with its output given: implicit outputs are the labels that occur once,
    in alphabetical order, after the ellipsis dims."""
    equation = equation.replace(" ", "")
    if "->" in equation:
        return equation
    labels = equation.replace(",", "").replace("...", "")
    once = sorted(c for c in set(labels) if labels.count(c) == 1)
    return equation + "->" + ("..." if "..." in equation else "") + "".join(once)


class AtenEinsum(AtenOp):
    """einsum(equation, tensors) -> Einsum with the explicit equation."""

    op = "pytorch::Einsum"

    @classmethod
    def build(cls, node, a, b):
        tensors = a.tensors("tensors")
        et = tensors[0].data.get_dtype()
        return [b.Einsum(*[convert(b, t, et) for t in tensors], equation=explicit_equation(a.const("equation")))]


class AtenAttention(AtenOp):
    """scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale) as
    ScaledDotProductAttention-13 (a scale without a mask goes with a zero mask, as the op
    takes its optional inputs in order)."""

    op = "pytorch::Attention"

    @classmethod
    def build(cls, node, a, b):
        q, k, v = a.tensor(0), a.tensor(1), a.tensor(2)
        et = q.data.get_dtype()
        if a.has("enable_gqa") and a.const("enable_gqa", False):
            raise ConversionError("scaled_dot_product_attention with enable_gqa=True is not supported.")
        k, v = convert(b, k, et), convert(b, v, et)
        causal = bool(a.const("is_causal", False))
        scale = a.const("scale", None) if a.has("scale") else None
        mask = a.port(3)
        inputs = [q, k, v]
        if mask is not None and not causal:
            inputs.append(mask if mask.data.get_dtype() == "boolean" else convert(b, mask, et))
        if scale is not None:
            if len(inputs) == 3:
                inputs.append(const(b, 0, et))
            inputs.append(const(b, scale, et))
        return [b.ScaledDotProductAttention(*inputs, causal=causal)]
