"""Extractors of ONNX Gemm and Einsum (MatMul, MatMulInteger and Det are in ``elementwise_ext.ONE_TO_ONE``)."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.matmul import Einsum, parse_equation
from extensions.ops.onnx_math import OnnxGemm


class GemmExtractor(OnnxExtractor):
    """Gemm: alpha * A' B' + beta * C."""

    op_types = ("Gemm",)

    @classmethod
    def extract(cls, node):
        OnnxGemm.update_node(node, {
            "alpha": float(cls.attr(node, "alpha", 1.0)), "beta": float(cls.attr(node, "beta", 1.0)),
            "transpose_a": bool(cls.attr(node, "transA", 0)), "transpose_b": bool(cls.attr(node, "transB", 0))})


class EinsumExtractor(OnnxExtractor):
    """Einsum: the equation is written in explicit form without spaces."""

    op_types = ("Einsum",)

    @classmethod
    def extract(cls, node):
        inputs, out = parse_equation(cls.attr(node, "equation"), [None] * len(node.pb.input))
        Einsum.update_node(node, {"equation": ",".join(inputs) + "->" + out})
