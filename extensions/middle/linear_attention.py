"""Middle lowering of ONNX LinearAttention: the recurrence over the sequence is unrolled, so the
sequence length must be static (one step per position)."""
from __future__ import annotations

import numpy as np

from extensions.middle.attention import repeat_heads, split_heads
from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder
from mo.graph.port import Port


def steps(b: OpBuilder, x, count: int) -> list:
    """[B, H, T, d] -> T tensors [B, H, 1, d]."""
    parts = b.Split(x, np.int64(2), num_splits=count)
    return list(parts) if count > 1 else [parts]


def per_position(b: OpBuilder, x, heads: int) -> Port:
    """[B, T, heads * d] (d may be 1) in f32 -> [B, heads, T, d]."""
    return split_heads(b, b.Convert(x, destination_type="f32"), heads)


class LinearAttentionToOpset(MiddleReplaceOp):
    """For each position t, with state S [B, Hkv, dk, dv] (past_state or zeros) in f32:
    gated: S *= exp(decay_t); delta: v_t = beta_t * (v_t - k_t S); S += k_t^T v_t;
    o_t = scale * q_t S (S repeated over the query heads of each group)."""

    op = "onnx::LinearAttention"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        src = lambda i: node.in_port(i).get_source() if node.is_in_port_connected(i) else None  # noqa: E731
        length = src(0).data.get_shape()[1]
        if length < 0:
            raise ValueError(f"LinearAttention '{node.name}' needs a static sequence length")
        hq, hkv = node.q_num_heads, node.kv_num_heads
        queries = steps(b, per_position(b, src(0), hq), length)
        keys = steps(b, per_position(b, src(1), hkv), length)
        values = steps(b, per_position(b, src(2), hkv), length)
        key_size = keys[0].data.get_shape()[3]
        value_size = values[0].data.get_shape()[3]
        scale = node.scale or 1 / np.sqrt(key_size)
        gated, delta = node.update_rule in ("gated", "gated_delta"), node.update_rule in ("delta", "gated_delta")
        decays = self.factors(b, src(4), hkv, length, exp=True) if gated else None
        betas = self.factors(b, src(5), None, length) if delta else None
        if src(3) is not None:
            state = b.Convert(src(3), destination_type="f32")
        else:
            batch = b.Gather(b.ShapeOf(src(0)), np.array([0], np.int64), np.int64(0))
            shape = b.Concat(batch, np.array([hkv, key_size, value_size], np.int64), axis=0)
            state = b.Broadcast(np.float32(0), shape)
        outputs = []
        for t in range(length):
            if gated:
                state = b.Multiply(state, decays[t])
            value = values[t]
            if delta:
                value = b.Multiply(betas[t], b.Subtract(value, b.MatMul(keys[t], state)))
            state = b.Add(state, b.MatMul(keys[t], value, transpose_a=True))
            read = b.MatMul(queries[t], repeat_heads(b, state, hq // hkv))
            outputs.append(b.Multiply(read, np.float32(scale)))
        heads = b.Concat(*outputs, axis=2) if length > 1 else outputs[0]
        merged = b.Reshape(b.Transpose(heads, np.array([0, 2, 1, 3], np.int64)), np.array([0, 0, -1], np.int64),
                           special_zero=True)
        present_type = node.out_port(1).data.get_dtype()
        return [b.Convert(merged, destination_type=node.out_port(0).data.get_dtype(), name=node.name),
                b.Convert(state, destination_type=present_type)]

    @staticmethod
    def factors(b: OpBuilder, x, heads: int | None, length: int, exp: bool = False) -> list:
        """Per-position factors of decay ([B, T, Hkv * dk] or [B, T, Hkv], as exp(decay)
        [B, Hkv, dk or 1, 1] scaling the state's rows) or beta ([B, T, Hkv or 1], as
        [B, Hkv or 1, 1, 1] scaling the values)."""
        count = x.data.get_shape()[2]
        split = per_position(b, x, count if heads is None or count == heads else heads)
        if exp:
            split = b.Exp(split)
        return [b.Transpose(part, np.array([0, 1, 3, 2], np.int64)) for part in steps(b, split, length)]
