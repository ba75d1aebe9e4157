"""ScaledDotProductAttention: softmax(Q K^T * scale + mask) V."""
from __future__ import annotations

import numpy as np

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

    @classmethod
    def evaluate(cls, node, q, k, v, mask=None, scale=None):
        """Softmax over the keys of Q K^T * scale plus the mask (a boolean mask leaves -inf where
        it is false); ``causal`` masks the keys after each query and ignores ``mask``."""
        dtype = q.dtype
        q, k, v = (t.astype(np.float64) for t in (q, k, v))
        scale = 1 / np.sqrt(q.shape[-1]) if scale is None else float(np.asarray(scale).reshape(-1)[0])
        scores = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
        if node.causal:
            mask = np.tril(np.ones(scores.shape[-2:], bool))
        if mask is not None:
            scores = np.where(mask, scores, -np.inf) if mask.dtype == np.bool_ else scores + mask
        with np.errstate(invalid="ignore"):
            weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
            weights /= weights.sum(axis=-1, keepdims=True)
        return np.matmul(weights, v).astype(dtype)
