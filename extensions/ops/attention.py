"""ScaledDotProductAttention: softmax(Q K^T * scale + mask) V."""
from __future__ import annotations

from mo.ops.op import Op
from mo.utils.shape import broadcast_shapes


class ScaledDotProductAttention(Op):
    """Q [..., L, E], K [..., S, E], V [..., S, Ev], optional attn_mask (boolean: True attends;
    float: added) and scale (default 1/sqrt(E)) -> [..., L, Ev]; ``causal`` masks the keys after
    each query (top-left aligned)."""

    op = "ScaledDotProductAttention"
    version = "opset13"
    defaults = {"causal": False}
    ir_attrs = ("causal",)

    @classmethod
    def infer_shapes(cls, node):
        q, k, v = node.in_shape(0), node.in_shape(1), node.in_shape(2)
        if q is None or k is None or v is None:
            return [None]
        batch = broadcast_shapes(tuple(q[:-2]), tuple(k[:-2]), tuple(v[:-2]))
        return [tuple(batch) + (q[-2], v[-1])]
