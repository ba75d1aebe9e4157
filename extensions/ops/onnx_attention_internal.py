"""ONNX attention operators kept as extracted until a middle (or front) transform lowers them."""
from __future__ import annotations

from extensions.ops.onnx_nn_internal import OnnxMiddleOp
from mo.ops.internal import FrontOnlyOp
from mo.utils.shape import DYN


def _add_dims(a: int, b: int) -> int:
    return DYN if a < 0 or b < 0 else a + b


def _heads_view(shape: tuple | None, heads: int | None) -> tuple | None:
    """[B, S, hidden] -> [B, heads, S, hidden / heads]; 4-D shapes are returned as they are."""
    if shape is None or len(shape) == 4:
        return shape
    size = DYN if shape[2] < 0 or not heads else shape[2] // heads
    return (shape[0], heads or DYN, shape[1], size)


class OnnxAttention(OnnxMiddleOp):
    """Attention (opset 23+): Q, K, V, optional attn_mask, past_key, past_value,
    nonpad_kv_seqlen -> Y, present_key, present_value, qk_matmul_output. 3-D inputs are
    [batch, seq, heads * head_size] with ``q_num_heads`` / ``kv_num_heads``."""

    op = "onnx::Attention"
    num_outputs = 4

    @classmethod
    def infer_shapes(cls, node):
        q3 = node.in_shape(0)
        q = _heads_view(q3, node.get("q_num_heads"))
        k = _heads_view(node.in_shape(1), node.get("kv_num_heads"))
        v = _heads_view(node.in_shape(2), node.get("kv_num_heads"))
        if q is None or k is None or v is None:
            return [None] * 4
        past = node.in_shape(4) if node.is_in_port_connected(4) else None
        total = k[2] if past is None else _add_dims(past[2], k[2])
        y = (q[0], q[1], q[2], v[3])
        if len(q3) == 3:
            y = (q[0], q[2], DYN if q[1] < 0 or v[3] < 0 else q[1] * v[3])
        return [y, (k[0], k[1], total, k[3]), (v[0], v[1], total, v[3]), (q[0], q[1], q[2], total)]


class OnnxRotaryEmbedding(OnnxMiddleOp):
    """RotaryEmbedding: x ([B, H, S, D], or [B, S, H * D] with ``num_heads``), cos_cache,
    sin_cache, optional position_ids; ``interleaved``, ``rotary_embedding_dim``."""

    op = "onnx::RotaryEmbedding"


class OnnxSwiGLU(FrontOnlyOp):
    """SwiGLU: a * sigmoid(``alpha`` * a) * b."""

    op = "onnx::SwiGLU"


class OnnxLinearAttention(OnnxMiddleOp):
    """LinearAttention: query [B, T, Hq * dk], key [B, T, Hkv * dk], value [B, T, Hkv * dv],
    optional past_state [B, Hkv, dk, dv], decay, beta -> output [B, T, Hq * dv], present_state;
    ``q_num_heads``, ``kv_num_heads``, ``scale``, ``update_rule``."""

    op = "onnx::LinearAttention"
    num_outputs = 2

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(0))
        state = node.in_dtype(3) if node.is_in_port_connected(3) else node.in_dtype(0)
        node.out_port(1).data.set_dtype(state)

    @classmethod
    def infer_shapes(cls, node):
        q, k, v = node.in_shape(0), node.in_shape(1), node.in_shape(2)
        if q is None or k is None or v is None:
            return [None, None]
        hq, hkv = node.q_num_heads, node.kv_num_heads
        dk = DYN if k[2] < 0 else k[2] // hkv
        dv = DYN if v[2] < 0 else v[2] // hkv
        return [(q[0], q[1], DYN if dv < 0 else hq * dv), (q[0], hkv, dk, dv)]
