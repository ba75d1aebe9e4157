"""Extractor of the custom ONNX op com.example::ScaledTanh."""
from extensions.load.onnx.attributes import OnnxExtractor
from mo.graph.node import Node


class ScaledTanhExtractor(OnnxExtractor):
    """Reads ``alpha`` and ``beta`` (default 1.0)."""

    op_types = ("com.example::ScaledTanh",)

    @classmethod
    def extract(cls, node: Node) -> None:
        registry = node.graph.graph["registry"]
        registry.op("example::ScaledTanh").update_node(
            node, {"alpha": float(cls.attr(node, "alpha", 1.0)), "beta": float(cls.attr(node, "beta", 1.0))})
