"""Middle lowering of ONNX Attention (opsets 23-25) to ScaledDotProductAttention, or to MatMul /
Softmax arithmetic when a soft cap, the qk_matmul_output output, a softmax precision or
FlexAttention's mod graphs need the intermediate scores.

    Q, K, V (3-D inputs split into heads)      past_key / past_value concatenated to K / V
    scores = (Q * sqrt(scale)) @ (K * sqrt(scale))^T, soft-capped: softcap * tanh(scores / softcap)
    bias   = attn_mask where every constraint allows the key, else -inf; the constraints are the
             boolean mask, causality (key <= query + offset), the sliding window and the
             nonpad_kv_seqlen padding; offset is the past length or nonpad_kv_seqlen - q_len
    Y      = softmax(scores + bias) @ V, rows whose bias is all -inf giving zeros
FlexAttention's score_mod / prob_mod graphs are inlined before / after the softmax.

K and V heads are repeated for grouped-query attention."""
from __future__ import annotations

import numpy as np

from extensions.middle.inline_body import inline_body
from extensions.middle.lowering import MiddleReplaceOp
from extensions.middle.nn_common import as_type, dim
from mo.graph.builder import OpBuilder
from mo.graph.building import typed_const
from mo.graph.port import Port

# Lowest finite value of each float type (bf16's rounded towards zero).
LOWEST = {"f16": float(np.finfo(np.float16).min), "bf16": -3.38e38, "f64": float(np.finfo(np.float64).min)}




def split_heads(b: OpBuilder, x, heads: int | None) -> Port:
    """[B, S, heads * size] -> [B, heads, S, size]; 4-D inputs are already in that form."""
    if x.data.get_rank() == 4:
        return x
    if not heads:
        raise ValueError("3-D Attention inputs need q_num_heads and kv_num_heads")
    split = b.Reshape(x, np.array([0, 0, heads, -1], np.int64), special_zero=True)
    return b.Transpose(split, np.array([0, 2, 1, 3], np.int64))


def repeat_heads(b: OpBuilder, x, repeats: int) -> Port:
    """[B, H, S, D] -> [B, H * repeats, S, D], each head repeated in place (h0, h0, h1, h1...)."""
    shape = x.data.get_shape()
    if repeats == 1:
        return x
    if shape is None or shape[1] < 0 or shape[3] < 0:
        raise ValueError("grouped-query Attention needs static head counts and sizes")
    tiled = b.Tile(b.Unsqueeze(x, np.array([2], np.int64)), np.array([1, 1, repeats, 1, 1], np.int64))
    return b.Reshape(tiled, np.array([0, shape[1] * repeats, -1, shape[3]], np.int64), special_zero=True)


def apply_mod(b: OpBuilder, node, name: str, tensor) -> Port:
    """``tensor`` passed through the node's graph attribute ``name`` (FlexAttention's score_mod
    and prob_mod), if it has one."""
    body = (node.get("bodies") or {}).get(name)
    return tensor if body is None else inline_body(b, node, body, [tensor])[0]


class AttentionToOpset(MiddleReplaceOp):
    op = "onnx::Attention"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        src = lambda i: node.in_port(i).get_source() if node.is_in_port_connected(i) else None  # noqa: E731
        rank = node.in_port(0).data.get_rank()
        q = split_heads(b, src(0), node.q_num_heads)
        k = split_heads(b, src(1), node.kv_num_heads)
        v = split_heads(b, src(2), node.kv_num_heads)
        dtype = q.data.get_dtype()
        const = lambda value: typed_const(b, value, dtype)  # noqa: E731
        present_k = k if src(4) is None else b.Concat(src(4), k, axis=2)
        present_v = v if src(5) is None else b.Concat(src(5), v, axis=2)

        q_heads, kv_heads = q.data.get_shape()[1], present_k.data.get_shape()[1]
        repeats = q_heads // kv_heads if q_heads > 0 and kv_heads > 0 and q_heads != kv_heads else 1
        bias = self.bias(b, node, q, present_k, src(3), src(4), src(6), const)
        guard = self.fully_masked_rows(b, bias, dtype) if bias is not None else None
        if self.plain(node, dtype):
            y = self.sdpa(b, node, q, repeat_heads(b, present_k, repeats), repeat_heads(b, present_v, repeats),
                          bias, src(3), src(4), src(6), const)
            if guard is not None:
                y = b.Select(guard, const(0), y)
            return [self.merge_heads(b, y, rank, node.name), present_k, present_v, None]

        root_scale = self.root_scale(b, node, q, const)
        keys = repeat_heads(b, b.Multiply(present_k, root_scale), repeats)
        scores = b.MatMul(b.Multiply(q, root_scale), keys, transpose_b=True)
        if node.softcap > 0:
            scores = b.Multiply(b.Tanh(b.Divide(scores, const(node.softcap))), const(node.softcap))
        capped = scores
        if bias is not None:
            scores = b.Add(scores, bias)
        biased = scores
        precision = node.softmax_precision
        if precision == "f32" and dtype in ("f16", "bf16"):
            scores = b.Convert(scores, destination_type=precision)
        probs = b.Softmax(apply_mod(b, node, "score_mod", scores), axis=-1)
        if guard is not None:
            probs = b.Select(guard, typed_const(b, 0, probs.data.get_dtype()), probs)
        probs = apply_mod(b, node, "prob_mod", probs)
        if probs.data.get_dtype() != dtype:
            probs = b.Convert(probs, destination_type=dtype)
        y = self.merge_heads(b, b.MatMul(probs, repeat_heads(b, present_v, repeats)), rank, node.name)
        qk_output = {0: capped, 1: capped, 2: biased, 3: probs}[node.qk_matmul_output_mode]
        return [y, present_k, present_v, qk_output]

    @staticmethod
    def plain(node, dtype: str) -> bool:
        """Whether ScaledDotProductAttention computes the node: no soft cap, no qk output, no
        mod graphs, the softmax in the input type."""
        return (node.softcap <= 0 and not node.out_port(3).is_connected() and not node.get("bodies")
                and not (node.softmax_precision == "f32" and dtype in ("f16", "bf16")))

    @staticmethod
    def sdpa(b: OpBuilder, node, q, k, v, bias, mask, past, nonpad, const):
        """ScaledDotProductAttention with the bias as its mask; a causal mask alone, aligned
        top-left without past or padding information, is the op's own ``causal``."""
        size = dim(b, q, 3)
        if node.scale is not None:
            scale = const(node.scale)
        elif isinstance(size, np.integer):
            scale = const(float(size) ** -0.5)
        else:
            scale = b.Power(as_type(b, size, q.data.get_dtype()), const(-0.5))
        windowed = node.left_window_size >= 0 or node.right_window_size >= 0
        if node.is_causal and mask is None and past is None and nonpad is None and not windowed:
            return b.ScaledDotProductAttention(q, k, v, const(0), scale, causal=True)
        return b.ScaledDotProductAttention(q, k, v, const(0) if bias is None else bias, scale, causal=False)

    @staticmethod
    def merge_heads(b: OpBuilder, y, rank: int, name: str):
        """[B, H, S, D] back to the input's layout: [B, S, H * D] for 3-D inputs."""
        if rank == 3:
            return b.Reshape(b.Transpose(y, np.array([0, 2, 1, 3], np.int64)), np.array([0, 0, -1], np.int64),
                             special_zero=True, name=name)
        y.node["name"] = name
        return y

    @staticmethod
    def fully_masked_rows(b: OpBuilder, bias, dtype: str):
        """[..., q, 1] True where the bias masks every key (the output row is then 0, not NaN);
        None when the bias is constant and masks no whole row."""
        value = bias.data.get_value()
        if value is not None and not np.isneginf(value).all(axis=-1).any():
            return None
        # The CPU's ReduceMax of an all -inf row may give the lowest finite number.
        row_max = b.ReduceMax(bias, np.array([-1], np.int64), keep_dims=True)
        return b.LessEqual(row_max, typed_const(b, LOWEST.get(dtype, float(np.finfo(np.float32).min)), dtype))

    @staticmethod
    def root_scale(b: OpBuilder, node, q, const):
        """sqrt(scale), by which both Q and K are multiplied; scale defaults to 1/sqrt(head size)."""
        if node.scale is not None:
            return const(np.sqrt(node.scale))
        size = dim(b, q, 3)
        if isinstance(size, np.integer):
            return const(float(size) ** -0.25)
        return b.Power(as_type(b, size, q.data.get_dtype()), const(-0.25))

    @staticmethod
    def bias(b: OpBuilder, node, q, keys, mask, past, nonpad, const):
        """Additive bias [.., q_len, kv_len]: the float mask (or 0) where every constraint allows
        the key, -inf elsewhere; None when nothing constrains the scores."""
        kv_len = dim(b, keys, 2)
        windowed = node.left_window_size >= 0 or node.right_window_size >= 0
        if mask is None and not node.is_causal and not windowed and nonpad is None:
            return None
        q_len = dim(b, q, 2)
        rows = b.Unsqueeze(b.Range(np.int64(0), q_len, np.int64(1), output_type="i64"), np.array([1], np.int64))
        cols = b.Range(np.int64(0), kv_len, np.int64(1), output_type="i64")
        if past is not None:
            offset = dim(b, past, 2)
        elif nonpad is not None:
            offset = b.Reshape(b.Subtract(nonpad, q_len), np.array([-1, 1, 1, 1], np.int64), special_zero=False)
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
            allowed.append(b.Less(cols, b.Reshape(nonpad, np.array([-1, 1, 1, 1], np.int64), special_zero=False)))
        values = const(0)
        if mask is not None:
            mask = AttentionToOpset.padded_mask(b, mask, kv_len)
            if mask.data.get_dtype() == "boolean":
                allowed.append(mask)
            else:
                values = as_type(b, mask, q.data.get_dtype())
        if not allowed:
            return values
        condition = allowed[0]
        for extra in allowed[1:]:
            condition = b.LogicalAnd(condition, extra)
        return b.Select(condition, values, const(-np.inf))

    @staticmethod
    def padded_mask(b: OpBuilder, mask, kv_len):
        """A mask shorter than the keys along its last axis, padded with False / -inf."""
        shape = mask.data.get_shape()
        if shape is not None and shape[-1] >= 0 and isinstance(kv_len, np.integer) and shape[-1] == kv_len:
            return mask
        rank = len(shape)
        missing = b.Subtract(kv_len, dim(b, mask, -1))
        pads_end = b.Concat(np.zeros(rank - 1, np.int64), b.Reshape(missing, np.array([1], np.int64),
                                                                    special_zero=False), axis=0)
        fill = np.array(False) if mask.data.get_dtype() == "boolean" else typed_const(b, -np.inf, mask.data.get_dtype())
        return b.Pad(mask, np.zeros(rank, np.int64), pads_end, fill, pad_mode="constant")
