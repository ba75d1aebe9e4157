"""Extractors of the ONNX attention operators."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import ONNX_TO_ET
from extensions.ops.onnx_attention_internal import OnnxAttention, OnnxLinearAttention, OnnxRotaryEmbedding, OnnxSwiGLU


class AttentionExtractor(OnnxExtractor):
    op_types = ("Attention",)

    @classmethod
    def extract(cls, node):
        precision = int(cls.attr(node, "softmax_precision", 0))
        heads = {k: cls.attr(node, k) for k in ("q_num_heads", "kv_num_heads")}
        OnnxAttention.update_node(node, {
            **{k: None if v is None else int(v) for k, v in heads.items()},
            "is_causal": bool(cls.attr(node, "is_causal", 0)),
            "scale": cls.attr(node, "scale"), "softcap": float(cls.attr(node, "softcap", 0.0)),
            "qk_matmul_output_mode": int(cls.attr(node, "qk_matmul_output_mode", 0)),
            "softmax_precision": ONNX_TO_ET.get(precision) if precision else None,
            "left_window_size": int(cls.attr(node, "left_window_size", -1)),
            "right_window_size": int(cls.attr(node, "right_window_size", -1)),
            "num_outputs": 4})


class RotaryEmbeddingExtractor(OnnxExtractor):
    op_types = ("RotaryEmbedding",)

    @classmethod
    def extract(cls, node):
        OnnxRotaryEmbedding.update_node(node, {"interleaved": bool(cls.attr(node, "interleaved", 0)),
                                               "rotary_embedding_dim": int(cls.attr(node, "rotary_embedding_dim", 0)),
                                               "num_heads": int(cls.attr(node, "num_heads", 0))})


class SwiGLUExtractor(OnnxExtractor):
    op_types = ("SwiGLU",)

    @classmethod
    def extract(cls, node):
        OnnxSwiGLU.update_node(node, {"alpha": float(cls.attr(node, "alpha", 1.0))})


class FlexAttentionExtractor(OnnxExtractor):
    """ai.onnx.preview FlexAttention is 4-D Attention whose score_mod / prob_mod graphs (the
    node's bodies) are inlined by the lowering; its softmax runs in f32 for 16-bit inputs unless
    softmax_precision says otherwise."""

    op_types = ("ai.onnx.preview::FlexAttention",)

    @classmethod
    def extract(cls, node):
        precision = int(cls.attr(node, "softmax_precision", 0))
        OnnxAttention.update_node(node, {
            "q_num_heads": None, "kv_num_heads": None, "is_causal": False, "scale": cls.attr(node, "scale"),
            "softcap": 0.0, "qk_matmul_output_mode": 0,
            "softmax_precision": ONNX_TO_ET.get(precision) if precision else "f32",
            "left_window_size": -1, "right_window_size": -1, "num_outputs": 4})


class LinearAttentionExtractor(OnnxExtractor):
    op_types = ("LinearAttention",)

    @classmethod
    def extract(cls, node):
        rule = cls.attr(node, "update_rule", "gated_delta")
        if rule not in ("linear", "gated", "delta", "gated_delta"):
            raise ValueError(f"unknown update_rule '{rule}'")
        OnnxLinearAttention.update_node(node, {
            "q_num_heads": int(cls.attr(node, "q_num_heads")), "kv_num_heads": int(cls.attr(node, "kv_num_heads")),
            "scale": float(cls.attr(node, "scale", 0.0)), "update_rule": rule, "num_outputs": 2})
