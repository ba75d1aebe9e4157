"""Extractor of ONNX Reshape."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.shape import Reshape


class ReshapeExtractor(OnnxExtractor):
    """Reshape: 0 copies the input dimension unless ``allowzero`` (opset 14) is set."""

    op_types = ("Reshape",)

    @classmethod
    def extract(cls, node):
        Reshape.update_node(node, {"special_zero": not bool(cls.attr(node, "allowzero", 0))})
