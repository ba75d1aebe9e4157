"""Extractor of ONNX TensorScatter (opset 24)."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.onnx_cache_internal import OnnxTensorScatter


class TensorScatterExtractor(OnnxExtractor):
    op_types = ("TensorScatter",)

    @classmethod
    def extract(cls, node):
        mode = cls.attr(node, "mode", "linear")
        if mode not in ("linear", "circular"):
            raise ValueError(f"unknown TensorScatter mode '{mode}'")
        OnnxTensorScatter.update_node(node, {"axis": int(cls.attr(node, "axis", -2)), "mode": mode})
