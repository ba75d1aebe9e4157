"""TensorFlow MatMul, BatchMatMul(V2/V3) and Einsum: extractors that set the opset op."""
from __future__ import annotations

from extensions.load.tf.attributes import TfExtractor


class MatMulExtractor(TfExtractor):
    op_types = ("MatMul",)

    @classmethod
    def extract(cls, node):
        node.graph.registry.op("MatMul").update_node(node, {
            "transpose_a": bool(cls.attr(node, "transpose_a", False)),
            "transpose_b": bool(cls.attr(node, "transpose_b", False))})


class BatchMatMulExtractor(TfExtractor):
    """BatchMatMul*: adj_x / adj_y transpose the last two dims (real types, so no conjugate)."""

    op_types = ("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")

    @classmethod
    def extract(cls, node):
        node.graph.registry.op("MatMul").update_node(node, {
            "transpose_a": bool(cls.attr(node, "adj_x", False)), "transpose_b": bool(cls.attr(node, "adj_y", False))})


class EinsumExtractor(TfExtractor):
    op_types = ("Einsum",)

    @classmethod
    def extract(cls, node):
        node.graph.registry.op("Einsum").update_node(node, {"equation": cls.attr(node, "equation")})
