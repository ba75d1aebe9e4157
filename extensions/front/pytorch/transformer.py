"""ATen attention: scaled_dot_product_attention, and the fused transformer operations that
torch.nn's inference fast path records when a MultiheadAttention or TransformerEncoderLayer is
traced, _native_multi_head_attention and _transformer_encoder_layer_fwd (batch-first [B, L, E]
tensors; boolean masks are True where attention is not allowed: mask_type 0 an [L, S] mask, 1 a
key-padding [B, S] mask, 2 a merged [B, H, L, S] mask). Their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, convert
from extensions.front.pytorch.normalization import normalized_last
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import i64


def _linear(b, x, weight, bias):
    return b.Add(b.MatMul(x, weight, transpose_b=True), bias)


def _heads(b, x, heads: int, depth: int):
    """[B, L, H * D] -> [B, H, L, D]."""
    split = b.Reshape(x, i64(0, 0, heads, depth), special_zero=True)
    return b.Transpose(split, i64(0, 2, 1, 3))


def _keep_mask(b, mask, mask_type: int | None, et: str):
    """The mask as SDPA takes it: boolean True where attention is allowed, or a float bias."""
    if mask is None:
        return None
    if mask_type == 1:        # [B, S] -> [B, 1, 1, S]
        mask = b.Reshape(mask, i64(0, 1, 1, -1), special_zero=True)
    if mask.data.get_dtype() == "boolean":
        return b.LogicalNot(mask)
    return convert(b, mask, et)


def _multi_head_attention(b, query, key, value, heads: int, qkv_w, qkv_b, proj_w, proj_b, mask, mask_type,
                         weights: str | None = None):
    """Attention of the fused ops; ``weights`` "average" / "heads" also returns the attention
    weights averaged over the heads or per head."""
    et = query.data.get_dtype()
    embed = qkv_w.data.get_shape()[1]
    depth = embed // heads
    axis = np.int64(0)
    wq, wk, wv = b.Split(convert(b, qkv_w, et), axis, num_splits=3)
    bq, bk, bv = b.Split(convert(b, qkv_b, et), axis, num_splits=3)
    q, k, v = (_heads(b, _linear(b, x, w, bias), heads, depth) for x, w, bias in
               ((query, wq, bq), (key, wk, bk), (value, wv, bv)))
    keep = _keep_mask(b, mask, mask_type, et)
    attended = b.ScaledDotProductAttention(*([q, k, v] + ([keep] if keep is not None else [])), causal=False)
    merged = b.Reshape(b.Transpose(attended, i64(0, 2, 1, 3)), i64(0, 0, embed), special_zero=True)
    out = _linear(b, merged, convert(b, proj_w, et), convert(b, proj_b, et))
    if weights is None:
        return out, None
    scores = b.Multiply(b.MatMul(q, k, transpose_b=True), const(b, 1 / np.sqrt(depth), et))
    if keep is not None:
        scores = b.Select(keep, scores, const(b, -np.inf, et)) if keep.data.get_dtype() == "boolean" else \
            b.Add(scores, keep)
    probabilities = b.Softmax(scores, axis=-1)
    if weights == "average":
        probabilities = b.ReduceMean(probabilities, i64(1), keep_dims=False)
    return out, probabilities


def _attention(a, b):
    """ScaledDotProductAttention-13 of the arguments query, key, value, attn_mask, is_causal and
    scale (a scale without a mask goes with a zero mask, as the op takes its optional inputs in
    order; a mask with is_causal is ignored, as PyTorch does). A query row the mask hides from
    every key is 0, as in PyTorch (the op gives NaN), through a Select marked
    ``hidden_rows_to_zero`` (a transformers decoder drops it: extensions/back/attention_forms.py)."""
    q, k, v = a.tensor(0), a.tensor(1), a.tensor(2)
    et = q.data.get_dtype()
    causal = bool(a.const("is_causal", False))
    scale = a.const("scale", None)
    mask = a.port("attn_mask")
    inputs = [q, convert(b, k, et), convert(b, v, et)]
    hidden = None
    if mask is not None and not causal:
        mask = mask if mask.data.get_dtype() == "boolean" else convert(b, mask, et)
        inputs.append(mask)
        if mask.data.get_rank() != 0:
            hidden = b.LogicalNot(mask) if mask.data.get_dtype() == "boolean" else \
                b.Equal(mask, const(b, -np.inf, et))
            hidden = b.ReduceLogicalAnd(hidden, i64(-1), keep_dims=True)
    if scale is not None:
        if len(inputs) == 3:
            inputs.append(const(b, 0, et))
        inputs.append(const(b, scale, et))
    attended = b.ScaledDotProductAttention(*inputs, causal=causal)
    if hidden is None:
        return attended
    zeroed = b.Select(hidden, const(b, 0, et), attended)
    zeroed.node["hidden_rows_to_zero"] = True
    return zeroed


@aten("aten::scaled_dot_product_attention")
def scaled_dot_product_attention(node, a, b):
    """scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa)."""
    if a.const("enable_gqa", False):
        raise ConversionError("scaled_dot_product_attention with enable_gqa=True is not supported.")
    return [_attention(a, b)]


@aten("aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_flash_attention_for_cpu")
def scaled_dot_product_flash_attention(node, a, b):
    """The flash-attention forms of scaled_dot_product_attention (q, k, v, dropout_p, is_causal,
    then attn_mask (CPU form) and scale): the output, then what training keeps (logsumexp,
    sequence offsets, random state...), unused in inference."""
    return [_attention(a, b)] + [None] * (len(node.out_ports()) - 1)


@aten("aten::_native_multi_head_attention")
def native_multi_head_attention(node, a, b):
    """_native_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
    proj_weight, proj_bias, mask, need_weights, average_attn_weights, mask_type): the output, and
    the attention weights when they are used."""
    want = node.out_port(1).is_connected() and bool(a.const("need_weights", True))
    weights = ("average" if a.const("average_attn_weights", True) else "heads") if want else None
    out, probabilities = _multi_head_attention(
        b, a.tensor("query"), a.tensor("key"), a.tensor("value"), int(a.const("num_head")),
        a.tensor("qkv_weight"), a.tensor("qkv_bias"), a.tensor("proj_weight"), a.tensor("proj_bias"),
        a.port("mask"), a.const("mask_type", None), weights)
    return [out, probabilities]


@aten("aten::_transformer_encoder_layer_fwd")
def transformer_encoder_layer(node, a, b):
    """_transformer_encoder_layer_fwd: self-attention and a two-layer feed-forward block, each with
    a residual connection and a layer norm (before the block with ``norm_first``, else after)."""
    x = a.tensor("src")
    if x.data.get_rank() != 3:
        raise ConversionError(f"A rank-{x.data.get_rank()} input is not supported (expected [batch, length, embed]).")
    eps = float(a.const("eps"))

    def norm(y, index):
        return normalized_last(b, y, 1, eps, a.tensor(f"norm_weight_{index}"), a.tensor(f"norm_bias_{index}"))

    def attention(y):
        return _multi_head_attention(b, y, y, y, int(a.const("num_heads")), a.tensor("qkv_weight"),
                                    a.tensor("qkv_bias"), a.tensor("proj_weight"), a.tensor("proj_bias"),
                                    a.port("mask"), a.const("mask_type", None))[0]

    def feed_forward(y):
        hidden = _linear(b, y, a.tensor("ffn_weight_1"), a.tensor("ffn_bias_1"))
        hidden = b.Gelu(hidden, approximation_mode="ERF") if a.const("use_gelu") else b.ReLU(hidden)
        return _linear(b, hidden, a.tensor("ffn_weight_2"), a.tensor("ffn_bias_2"))

    if a.const("norm_first"):
        x = b.Add(x, attention(norm(x, 1)))
        return [b.Add(x, feed_forward(norm(x, 2)))]
    x = norm(b.Add(x, attention(x)), 1)
    return [norm(b.Add(x, feed_forward(x)), 2)]
