"""Lowering of ONNX Gemm and MatMulInteger to MatMul."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.building import scalar_like
from mo.pipeline.transform import ReplaceOp


class GemmToMatMul(ReplaceOp):
    """Gemm -> MatMul(A, B, transposes) [* alpha] [+ C [* beta]]."""

    op = "onnx::Gemm"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        a = node.in_port(0).get_source()
        has_c = node.is_in_port_connected(2) and node.beta != 0
        y = b.MatMul(a, node.in_port(1).get_source(), transpose_a=node.transpose_a, transpose_b=node.transpose_b,
                     name=node.name if node.alpha == 1 and not has_c else None)
        if node.alpha != 1:
            y = b.Multiply(y, scalar_like(b, node.alpha, a), name=None if has_c else node.name)
        if not has_c:
            return [y]
        c = node.in_port(2).get_source()
        if node.beta != 1:
            c = b.Multiply(c, scalar_like(b, node.beta, c))
        return [b.Add(y, c, name=node.name)]


class MatMulIntegerToMatMul(ReplaceOp):
    """MatMulInteger -> MatMul of the i32 inputs minus their zero points (a per-row zero point
    of A becomes a column)."""

    op = "onnx::MatMulInteger"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        operands = []
        for data, zero in ((0, 2), (1, 3)):
            x = b.Convert(node.in_port(data).get_source(), destination_type="i32")
            if node.is_in_port_connected(zero):
                z = b.Convert(node.in_port(zero).get_source(), destination_type="i32")
                if data == 0:
                    z = b.Unsqueeze(z, np.int64(-1))
                x = b.Subtract(x, z)
            operands.append(x)
        return [b.MatMul(*operands, name=node.name)]
