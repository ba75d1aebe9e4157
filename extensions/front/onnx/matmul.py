"""ONNX Gemm, Einsum, MatMulInteger and Det (MatMul maps to MatMul in ``elementwise.ONE_TO_ONE``)."""
from __future__ import annotations

import itertools

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.matmul import Einsum, parse_equation
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import i64, scalar_like, typed_const
from mo.graph.node import Node
from mo.graph.port import Port

MAX_DET_ORDER = 6   # 720 permutations


class EinsumExtractor(OnnxExtractor):
    """Einsum: the equation is written in explicit form without spaces."""

    op_types = ("Einsum",)

    @classmethod
    def extract(cls, node):
        inputs, out = parse_equation(cls.attr(node, "equation"), [None] * len(node.pb.input))
        Einsum.update_node(node, {"equation": ",".join(inputs) + "->" + out})


@translator("onnx", "Gemm")
def gemm(node: Node, b: OpBuilder) -> list[Port]:
    """alpha * A' B' + beta * C -> MatMul(A, B, transposes) [* alpha] [+ C [* beta]]."""
    alpha = float(OnnxExtractor.attr(node, "alpha", 1.0))
    beta = float(OnnxExtractor.attr(node, "beta", 1.0))
    a = node.in_port(0).get_source()
    y = b.MatMul(a, node.in_port(1).get_source(), transpose_a=bool(OnnxExtractor.attr(node, "transA", 0)),
                 transpose_b=bool(OnnxExtractor.attr(node, "transB", 0)))
    if alpha != 1:
        y = b.Multiply(y, scalar_like(b, alpha, a))
    if not node.is_in_port_connected(2) or beta == 0:
        return [y]
    c = node.in_port(2).get_source()
    if beta != 1:
        c = b.Multiply(c, scalar_like(b, beta, c))
    return [b.Add(y, c)]


@translator("onnx", "MatMulInteger")
def matmul_integer(node: Node, b: OpBuilder) -> list[Port]:
    """MatMul of the i32 inputs minus their zero points (a per-row zero point of A becomes a
    column)."""
    operands = []
    for data, zero in ((0, 2), (1, 3)):
        x = b.Convert(node.in_port(data).get_source(), destination_type="i32")
        if node.is_in_port_connected(zero):
            z = b.Convert(node.in_port(zero).get_source(), destination_type="i32")
            if data == 0:
                z = b.Unsqueeze(z, np.int64(-1))
            x = b.Subtract(x, z)
        operands.append(x)
    return [b.MatMul(*operands)]


def permutation_masks(n: int) -> tuple[np.ndarray, np.ndarray]:
    """One-hot masks [n!, n, n] of the permutations of n and their signs [n!]."""
    perms = list(itertools.permutations(range(n)))
    masks = np.zeros((len(perms), n, n))
    signs = np.empty(len(perms))
    for k, p in enumerate(perms):
        masks[k, np.arange(n), p] = 1
        inversions = sum(p[i] > p[j] for i in range(n) for j in range(i + 1, n))
        signs[k] = -1 if inversions % 2 else 1
    return masks, signs


@translator("onnx", "Det")
def det(node: Node, b: OpBuilder) -> list[Port]:
    """The Leibniz formula: det X = sum over permutations p of sign(p) * prod_i X[i, p(i)],
    computed for all permutations at once with constant one-hot masks."""
    x = node.in_port(0).get_source()
    shape = x.data.get_shape()
    n = None if shape is None else shape[-1]
    if n is None or n < 0 or n > MAX_DET_ORDER:
        raise ConversionError(f"Det needs a static matrix order of at most {MAX_DET_ORDER}, got shape {shape}.")
    dtype = x.data.get_dtype()
    masks, signs = permutation_masks(n)
    picked = b.Add(b.Multiply(b.Unsqueeze(x, np.int64(-3)), typed_const(b, masks, dtype)),
                   typed_const(b, 1 - masks, dtype))
    products = b.ReduceProd(picked, i64(-2, -1), keep_dims=False)
    return [b.ReduceSum(b.Multiply(products, typed_const(b, signs, dtype)), i64(-1), keep_dims=False)]
