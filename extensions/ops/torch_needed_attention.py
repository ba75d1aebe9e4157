"""ScaledDotProductAttention-13, which the PyTorch frontend emits for
torch.nn.functional.scaled_dot_product_attention (not among the existing op families yet)."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import broadcast_shapes


class ScaledDotProductAttention(Op):
    """softmax(query key^T * scale + bias) value. Inputs: query [N..., L, E], key [N..., S, E],
    value [N..., S, Ev], optional attention_mask (boolean: True takes part; float: added) and
    scale (default 1 / sqrt(E)); ``causal`` masks keys after each query's position instead."""

    op = "ScaledDotProductAttention"
    version = "opset13"
    defaults = {"causal": False}
    ir_attrs = ("causal",)

    @classmethod
    def infer_shapes(cls, node):
        q, k, v = (node.in_shape(i) for i in range(3))
        if q is None or v is None:
            return [None]
        batch = broadcast_shapes(tuple(q[:-2]), tuple(k[:-2]) if k is not None else tuple(q[:-2]), tuple(v[:-2]))
        return [tuple(batch) + (q[-2], v[-1])]

    @classmethod
    def evaluate(cls, node, q, k, v, mask=None, scale=None):
        scale = 1.0 / np.sqrt(q.shape[-1]) if scale is None else float(np.asarray(scale).reshape(()))
        scores = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
        if node.causal:
            length, source = scores.shape[-2], scores.shape[-1]
            scores = np.where(np.tril(np.ones((length, source), bool)), scores, -np.inf)
        elif mask is not None:
            scores = np.where(mask, scores, -np.inf) if mask.dtype == np.bool_ else scores + mask
        scores = scores - scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        return np.matmul(weights, v).astype(q.dtype)
