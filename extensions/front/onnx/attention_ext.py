"""Extractors of the ONNX attention operators."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import ONNX_TO_ET
from extensions.ops.onnx_nn_internal import OnnxAttention


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
