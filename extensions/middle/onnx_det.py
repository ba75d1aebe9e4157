"""Lowering of ONNX Det by the Leibniz formula: det X = sum over permutations p of
sign(p) * prod_i X[i, p(i)], computed for all permutations at once with constant one-hot masks."""
from __future__ import annotations

import itertools

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder
from mo.graph.building import typed_const

MAX_ORDER = 6   # 720 permutations


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


class DetToLeibniz(MiddleReplaceOp):
    op = "onnx::Det"

    def replace_op(self, graph, node):
        x = node.in_port(0).get_source()
        shape = x.data.get_shape()
        n = None if shape is None else shape[-1]
        if n is None or n < 0 or n > MAX_ORDER:
            raise ValueError(f"Det '{node.name}' needs a static matrix order of at most {MAX_ORDER}, got "
                             f"shape {shape}")
        dtype = x.data.get_dtype()
        masks, signs = permutation_masks(n)
        b = OpBuilder(graph, node.name)
        picked = b.Add(b.Multiply(b.Unsqueeze(x, np.int64(-3)), typed_const(b, masks, dtype)),
                       typed_const(b, 1 - masks, dtype))
        products = b.ReduceProd(picked, np.array([-2, -1], np.int64), keep_dims=False)
        return [b.ReduceSum(b.Multiply(products, typed_const(b, signs, dtype)), np.array([-1], np.int64),
                            keep_dims=False, name=node.name)]
