"""ONNX attention operators: Attention (opsets 23-25), ai.onnx.preview FlexAttention,
LinearAttention, RotaryEmbedding and SwiGLU.

Attention becomes ScaledDotProductAttention, or MatMul / Softmax arithmetic when a soft cap, the
qk_matmul_output output, a softmax precision or FlexAttention's mod graphs need the intermediate
scores:

    Q, K, V (3-D inputs split into heads)      past_key / past_value concatenated to K / V
    scores = (Q * sqrt(scale)) @ (K * sqrt(scale))^T, soft-capped: softcap * tanh(scores / softcap)
    bias   = attn_mask where every constraint allows the key, else -inf; the constraints are the
             boolean mask, causality (key <= query + offset), the sliding window and the
             nonpad_kv_seqlen padding; offset is the past length or nonpad_kv_seqlen - q_len
    Y      = softmax(scores + bias) @ V, rows whose bias is all -inf giving zeros
FlexAttention's score_mod / prob_mod graphs are inlined before / after the softmax. K and V heads
are repeated for grouped-query attention."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.inline_body import inline_body
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import ONNX_TO_ET
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, dim, i64, int_list_port, optional_source, scalar_like, typed_const
from mo.graph.node import Node
from mo.graph.port import Port

# Lowest finite value of each float type (bf16's rounded towards zero).
LOWEST = {"f16": float(np.finfo(np.float16).min), "bf16": -3.38e38, "f64": float(np.finfo(np.float64).min)}


def _precision(ext, node, default: str | None) -> str | None:
    """The element type of ``softmax_precision`` (``default`` when not given)."""
    precision = int(ext.attr(node, "softmax_precision", 0))
    return ONNX_TO_ET.get(precision) if precision else default


class AttentionExtractor(OnnxExtractor):
    op_types = ("Attention",)

    @classmethod
    def extract(cls, node):
        heads = {k: cls.attr(node, k) for k in ("q_num_heads", "kv_num_heads")}
        node.update({
            **{k: None if v is None else int(v) for k, v in heads.items()},
            "is_causal": bool(cls.attr(node, "is_causal", 0)),
            "scale": cls.attr(node, "scale"), "softcap": float(cls.attr(node, "softcap", 0.0)),
            "qk_matmul_output_mode": int(cls.attr(node, "qk_matmul_output_mode", 0)),
            "softmax_precision": _precision(cls, node, None),
            "left_window_size": int(cls.attr(node, "left_window_size", -1)),
            "right_window_size": int(cls.attr(node, "right_window_size", -1))})


class FlexAttentionExtractor(OnnxExtractor):
    """ai.onnx.preview FlexAttention is 4-D Attention whose score_mod / prob_mod graphs (the
    node's bodies) are inlined; its softmax runs in f32 for 16-bit inputs unless
    softmax_precision says otherwise."""

    op_types = ("ai.onnx.preview::FlexAttention",)

    @classmethod
    def extract(cls, node):
        node.update({
            "q_num_heads": None, "kv_num_heads": None, "is_causal": False, "scale": cls.attr(node, "scale"),
            "softcap": 0.0, "qk_matmul_output_mode": 0, "softmax_precision": _precision(cls, node, "f32"),
            "left_window_size": -1, "right_window_size": -1})


class LinearAttentionExtractor(OnnxExtractor):
    op_types = ("LinearAttention",)

    @classmethod
    def extract(cls, node):
        rule = cls.attr(node, "update_rule", "gated_delta")
        if rule not in ("linear", "gated", "delta", "gated_delta"):
            raise ValueError(f"unknown update_rule '{rule}'")
        node.update({"q_num_heads": int(cls.attr(node, "q_num_heads")),
                     "kv_num_heads": int(cls.attr(node, "kv_num_heads")),
                     "scale": float(cls.attr(node, "scale", 0.0)), "update_rule": rule})


def split_heads(b: OpBuilder, x: Port, heads: int | None) -> Port:
    """[B, S, heads * size] -> [B, heads, S, size]; 4-D inputs are already in that form."""
    if x.data.get_rank() == 4:
        return x
    if not heads:
        raise ConversionError("3-D Attention inputs need q_num_heads and kv_num_heads.")
    split = b.Reshape(x, i64(0, 0, heads, -1), special_zero=True)
    return b.Transpose(split, i64(0, 2, 1, 3))


def repeat_heads(b: OpBuilder, x: Port, repeats: int) -> Port:
    """[B, H, S, D] -> [B, H * repeats, S, D], each head repeated in place (h0, h0, h1, h1...)."""
    if repeats == 1:
        return x
    tiled = b.Tile(b.Unsqueeze(x, i64(2)), i64(1, 1, repeats, 1, 1))
    heads = b.Multiply(dim(b, x, 1), np.int64(repeats))
    return b.Reshape(tiled, int_list_port(b, [0, heads, -1, dim(b, x, 3)]), special_zero=True)


def head_scale(b: OpBuilder, scale: float | None, q: Port, power: float) -> Port:
    """``scale`` ** ``power`` in Q's element type; without ``scale``, (1 / sqrt(head size)) **
    ``power`` computed from Q's shape."""
    dtype = q.data.get_dtype()
    if scale is not None:
        return typed_const(b, float(scale) if power == 1 else np.sqrt(scale), dtype)
    return b.Power(convert(b, dim(b, q, 3), dtype), typed_const(b, -0.5 * power, dtype))


def _mod(b: OpBuilder, node: Node, name: str, tensor: Port) -> Port:
    """``tensor`` passed through the node's graph attribute ``name`` (FlexAttention's score_mod
    and prob_mod), if it has one."""
    body = (node.get("bodies") or {}).get(name)
    return tensor if body is None else inline_body(b, node, body, [tensor])[0]


@translator("onnx", "Attention", "ai.onnx.preview::FlexAttention")
def attention(node: Node, b: OpBuilder) -> list[Port | None]:
    """Q, K, V, optional attn_mask, past_key, past_value, nonpad_kv_seqlen -> Y, present_key,
    present_value, qk_matmul_output. 3-D inputs are [batch, seq, heads * head_size] with
    ``q_num_heads`` / ``kv_num_heads``."""
    declared = len(node.pb.input) if node.get("pb") is not None else 7   # later inputs feed the mod graphs
    src = [optional_source(node, i) if i < declared else None for i in range(7)]
    rank = node.in_port(0).data.get_rank()
    q = split_heads(b, src[0], node.q_num_heads)
    k = split_heads(b, src[1], node.kv_num_heads)
    v = split_heads(b, src[2], node.kv_num_heads)
    dtype = q.data.get_dtype()
    present_k = k if src[4] is None else b.Concat(src[4], k, axis=2)
    present_v = v if src[5] is None else b.Concat(src[5], v, axis=2)

    q_heads, kv_heads = q.data.get_shape()[1], present_k.data.get_shape()[1]
    repeats = q_heads // kv_heads if q_heads > 0 and kv_heads > 0 and q_heads != kv_heads else 1
    bias = _bias(b, node, q, present_k, src[3], src[4], src[6])
    guard = _fully_masked_rows(b, bias, dtype) if bias is not None else None
    zero = typed_const(b, 0, dtype)
    if _plain(node, dtype):
        keys, values = repeat_heads(b, present_k, repeats), repeat_heads(b, present_v, repeats)
        windowed = node.left_window_size >= 0 or node.right_window_size >= 0
        scale = head_scale(b, node.scale, q, 1)
        if node.is_causal and all(s is None for s in (src[3], src[4], src[6])) and not windowed:
            # a causal mask alone, aligned top-left without past or padding: the op's own ``causal``
            y = b.ScaledDotProductAttention(q, keys, values, zero, scale, causal=True)
        else:
            y = b.ScaledDotProductAttention(q, keys, values, zero if bias is None else bias, scale, causal=False)
        if guard is not None:
            y = b.Select(guard, zero, y)
        return [_merge_heads(b, y, rank, node.name), present_k, present_v, None]

    root_scale = head_scale(b, node.scale, q, 0.5)
    keys = repeat_heads(b, b.Multiply(present_k, root_scale), repeats)
    scores = b.MatMul(b.Multiply(q, root_scale), keys, transpose_b=True)
    if node.softcap > 0:
        softcap = typed_const(b, node.softcap, dtype)
        scores = b.Multiply(b.Tanh(b.Divide(scores, softcap)), softcap)
    capped = scores
    if bias is not None:
        scores = b.Add(scores, bias)
    biased = scores
    if node.softmax_precision == "f32" and dtype in ("f16", "bf16"):
        scores = b.Convert(scores, destination_type="f32")
    probs = b.Softmax(_mod(b, node, "score_mod", scores), axis=-1)
    if guard is not None:
        probs = b.Select(guard, scalar_like(b, 0, probs), probs)
    probs = convert(b, _mod(b, node, "prob_mod", probs), dtype)
    y = _merge_heads(b, b.MatMul(probs, repeat_heads(b, present_v, repeats)), rank, node.name)
    qk_output = {0: capped, 1: capped, 2: biased, 3: probs}[node.qk_matmul_output_mode]
    return [y, present_k, present_v, qk_output]


def _plain(node: Node, dtype: str) -> bool:
    """Whether ScaledDotProductAttention computes the node: no soft cap, no qk output, no mod
    graphs, the softmax in the input type."""
    return (node.softcap <= 0 and not node.out_port(3).is_connected() and not node.get("bodies")
            and not (node.softmax_precision == "f32" and dtype in ("f16", "bf16")))


def _merge_heads(b: OpBuilder, y: Port, rank: int, name: str) -> Port:
    """[B, H, S, D] back to the input's layout: [B, S, H * D] for 3-D inputs."""
    if rank == 3:
        return b.Reshape(b.Transpose(y, i64(0, 2, 1, 3)), i64(0, 0, -1), special_zero=True, name=name)
    y.node["name"] = name
    return y


def _fully_masked_rows(b: OpBuilder, bias: Port, dtype: str) -> Port | None:
    """[..., q, 1] True where the bias masks every key (the output row is then 0, not NaN);
    None when the bias is constant and masks no whole row."""
    value = bias.data.get_value()
    if value is not None and not np.isneginf(value).all(axis=-1).any():
        return None
    # The CPU's ReduceMax of an all -inf row may give the lowest finite number.
    row_max = b.ReduceMax(bias, i64(-1), keep_dims=True)
    return b.LessEqual(row_max, typed_const(b, LOWEST.get(dtype, float(np.finfo(np.float32).min)), dtype))


def _bias(b: OpBuilder, node: Node, q: Port, keys: Port, mask: Port | None, past: Port | None,
          nonpad: Port | None) -> Port | None:
    """Additive bias [.., q_len, kv_len]: the float mask (or 0) where every constraint allows
    the key, -inf elsewhere; None when nothing constrains the scores."""
    windowed = node.left_window_size >= 0 or node.right_window_size >= 0
    if mask is None and not node.is_causal and not windowed and nonpad is None:
        return None
    dtype = q.data.get_dtype()
    q_len = dim(b, q, 2)
    rows = b.Unsqueeze(b.Range(np.int64(0), q_len, np.int64(1), output_type="i64"), i64(1))
    cols = b.Range(np.int64(0), dim(b, keys, 2), np.int64(1), output_type="i64")
    if past is not None:
        offset = dim(b, past, 2)
    elif nonpad is not None:
        offset = b.Reshape(b.Subtract(nonpad, q_len), i64(-1, 1, 1, 1), special_zero=False)
    else:
        offset = np.int64(0)
    position = b.Add(rows, offset)          # absolute position of each query
    allowed = []
    if node.is_causal:
        allowed.append(b.LessEqual(cols, position))
    if node.left_window_size >= 0:
        allowed.append(b.LessEqual(b.Subtract(position, cols), np.int64(node.left_window_size)))
    if node.right_window_size >= 0:
        allowed.append(b.LessEqual(b.Subtract(cols, position), np.int64(node.right_window_size)))
    if nonpad is not None:
        allowed.append(b.Less(cols, b.Reshape(nonpad, i64(-1, 1, 1, 1), special_zero=False)))
    values = typed_const(b, 0, dtype)
    if mask is not None:
        mask = _padded_mask(b, mask, keys)
        if mask.data.get_dtype() == "boolean":
            allowed.append(mask)
        else:
            values = convert(b, mask, dtype)
    if not allowed:
        return values
    condition = allowed[0]
    for extra in allowed[1:]:
        condition = b.LogicalAnd(condition, extra)
    return b.Select(condition, values, typed_const(b, -np.inf, dtype))


def _padded_mask(b: OpBuilder, mask: Port, keys: Port) -> Port:
    """A mask shorter than the keys along its last axis, padded with False / -inf."""
    shape, kv_len = mask.data.get_shape(), keys.data.get_shape()[2]
    if shape[-1] >= 0 and shape[-1] == kv_len:
        return mask
    rank = len(shape)
    missing = b.Subtract(dim(b, keys, 2), dim(b, mask, -1))
    pads_end = b.Concat(np.zeros(rank - 1, np.int64), b.Reshape(missing, i64(1), special_zero=False), axis=0)
    fill = np.array(False) if mask.data.get_dtype() == "boolean" else typed_const(b, -np.inf, mask.data.get_dtype())
    return b.Pad(mask, np.zeros(rank, np.int64), pads_end, fill, pad_mode="constant")


# ---------------------------------------------------------------------------- LinearAttention


def _steps(b: OpBuilder, x: Port, count: int) -> list[Port]:
    """[B, H, T, d] -> T tensors [B, H, 1, d]."""
    parts = b.Split(x, np.int64(2), num_splits=count)
    return list(parts) if count > 1 else [parts]


def _per_position(b: OpBuilder, x: Port, heads: int | None) -> Port:
    """[B, T, heads * d] in f32 -> [B, heads, T, d]; ``heads`` None: [B, T, n] -> [B, n, T, 1]."""
    x = b.Convert(x, destination_type="f32")
    if heads is None:
        return b.Transpose(b.Reshape(x, i64(0, 0, -1, 1), special_zero=True), i64(0, 2, 1, 3))
    return split_heads(b, x, heads)


def _factors(b: OpBuilder, x: Port, heads: int | None, length: int, exp: bool = False) -> list[Port]:
    """Per-position factors of decay ([B, T, Hkv * dk] or [B, T, Hkv], as exp(decay)
    [B, Hkv, dk or 1, 1] scaling the state's rows) or beta ([B, T, Hkv or 1], as
    [B, Hkv or 1, 1, 1] scaling the values)."""
    count = x.data.get_shape()[2]
    split = _per_position(b, x, None if heads is None or count == heads else heads)
    if exp:
        split = b.Exp(split)
    return [b.Transpose(part, i64(0, 1, 3, 2)) for part in _steps(b, split, length)]


@translator("onnx", "LinearAttention")
def linear_attention(node: Node, b: OpBuilder) -> list[Port]:
    """The recurrence unrolled over the (static) sequence: for each position t, with state S
    [B, Hkv, dk, dv] (past_state or zeros) in f32: gated: S *= exp(decay_t); delta: v_t = beta_t *
    (v_t - k_t S); S += k_t^T v_t; o_t = scale * q_t S (S repeated over the query heads of each
    group). Output in the query's type, the state in past_state's type (else the query's)."""
    src = [optional_source(node, i) for i in range(6)]
    shape = src[0].data.get_shape()
    if shape is None or shape[1] < 0:
        raise ConversionError("LinearAttention needs a static sequence length (it is unrolled over the positions); "
                              "give the input shapes with --input.")
    length = shape[1]
    hq, hkv = node.q_num_heads, node.kv_num_heads
    queries = _steps(b, _per_position(b, src[0], hq), length)
    keys = _steps(b, _per_position(b, src[1], hkv), length)
    values = _steps(b, _per_position(b, src[2], hkv), length)
    key_size = dim(b, keys[0], 3)
    scale = np.float32(node.scale) if node.scale else head_scale(b, None, keys[0], 1)
    gated, delta = node.update_rule in ("gated", "gated_delta"), node.update_rule in ("delta", "gated_delta")
    decays = _factors(b, src[4], hkv, length, exp=True) if gated else None
    betas = _factors(b, src[5], None, length) if delta else None
    if src[3] is not None:
        state = b.Convert(src[3], destination_type="f32")
    else:
        state_shape = int_list_port(b, [dim(b, src[0], 0), hkv, key_size, dim(b, values[0], 3)])
        state = b.Broadcast(np.float32(0), state_shape)
    outputs = []
    for t in range(length):
        if gated:
            state = b.Multiply(state, decays[t])
        value = values[t]
        if delta:
            value = b.Multiply(betas[t], b.Subtract(value, b.MatMul(keys[t], state)))
        state = b.Add(state, b.MatMul(keys[t], value, transpose_a=True))
        read = b.MatMul(queries[t], repeat_heads(b, state, hq // hkv))
        outputs.append(b.Multiply(read, scale))
    heads = b.Concat(*outputs, axis=2) if length > 1 else outputs[0]
    merged = b.Reshape(b.Transpose(heads, i64(0, 2, 1, 3)), i64(0, 0, -1), special_zero=True)
    state_type = (src[3] if src[3] is not None else src[0]).data.get_dtype()
    return [b.Convert(merged, destination_type=src[0].data.get_dtype(), name=node.name),
            b.Convert(state, destination_type=state_type)]


# ---------------------------------------------------------------------------- RotaryEmbedding, SwiGLU


def _rotate(b: OpBuilder, x1: Port, x2: Port, cos: Port, sin: Port) -> tuple[Port, Port]:
    """(x1 * cos - x2 * sin, x1 * sin + x2 * cos)."""
    real = b.Subtract(b.Multiply(cos, x1), b.Multiply(sin, x2))
    imag = b.Add(b.Multiply(sin, x1), b.Multiply(cos, x2))
    return real, imag


@translator("onnx", "RotaryEmbedding")
def rotary_embedding(node: Node, b: OpBuilder) -> list[Port]:
    """The first ``rotary_embedding_dim`` features of each head (all by default) are rotated as
    pairs (halves, or neighbours when ``interleaved``) by the cos/sin of their position (the
    cache rows picked by position_ids, else the caches as given [B, S, dim/2]); the rest pass
    through. x is [B, H, S, D], or [B, S, H * D] with ``num_heads``."""
    interleaved = bool(OnnxExtractor.attr(node, "interleaved", 0))
    rotary_dim = int(OnnxExtractor.attr(node, "rotary_embedding_dim", 0))
    num_heads = int(OnnxExtractor.attr(node, "num_heads", 0))
    x = node.in_port(0).get_source()
    shape = x.data.get_shape()
    if shape is None or len(shape) not in (3, 4):
        raise ConversionError("RotaryEmbedding needs a 3-D or 4-D input.")
    if len(shape) == 3:       # [B, S, H * D] -> [B, S, H, D]: heads on axis 2
        if not num_heads:
            raise ConversionError("RotaryEmbedding with a 3-D input needs num_heads.")
        heads = b.Reshape(x, i64(0, 0, num_heads, -1), special_zero=True)
        head_axis = 2
    else:                     # [B, H, S, D]
        heads, head_axis = x, 1
    head_size = heads.data.get_shape()[3]
    if rotary_dim and head_size < 0:
        raise ConversionError("RotaryEmbedding with rotary_embedding_dim needs a static head size.")
    cos, sin = node.in_port(1).get_source(), node.in_port(2).get_source()
    ids = optional_source(node, 3)
    if ids is not None:
        cos, sin = (b.Gather(c, ids, np.int64(0)) for c in (cos, sin))
    cos, sin = (b.Unsqueeze(c, i64(head_axis)) for c in (cos, sin))
    last = np.int64(-1)
    rotated_part, passed = heads, None
    if 0 < rotary_dim < head_size:
        rotated_part, passed = b.VariadicSplit(heads, last, i64(rotary_dim, -1), num_outputs=2)
    if interleaved:
        pairs = b.Reshape(rotated_part, i64(0, 0, 0, -1, 2), special_zero=True)
        x1, x2 = b.Split(pairs, last, num_splits=2)
        cos, sin = (b.Unsqueeze(c, i64(-1)) for c in (cos, sin))
        real, imag = _rotate(b, x1, x2, cos, sin)
        rotated = b.Reshape(b.Concat(real, imag, axis=-1), i64(0, 0, 0, -1), special_zero=True)
    else:
        x1, x2 = b.Split(rotated_part, last, num_splits=2)
        rotated = b.Concat(*_rotate(b, x1, x2, cos, sin), axis=-1)
    if passed is not None:
        rotated = b.Concat(rotated, passed, axis=-1)
    if len(shape) == 3:
        return [b.Reshape(rotated, i64(0, 0, -1), special_zero=True)]
    return [rotated]


@translator("onnx", "SwiGLU")
def swiglu(node: Node, b: OpBuilder) -> list[Port]:
    """SwiGLU(a, b) = Swish(a, alpha) * b."""
    a = node.in_port(0).get_source()
    gate = b.Swish(a, scalar_like(b, float(OnnxExtractor.attr(node, "alpha", 1.0)), a))
    return [b.Multiply(gate, node.in_port(1).get_source())]
