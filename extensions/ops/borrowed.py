"""Minimal classes of opset ops that belong to other op families (MatMul, Softmax) and that the
neural-network lowerings build (Gather, Slice and ScatterElementsUpdate are in gather_scatter.py and
slicing.py now).

The owners of those families write the full classes; the registry keeps the class found last
for an op name and this module sorts first among ``extensions.ops``, so theirs take over.
"""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import broadcast_shapes, normalize_axis


class MatMul(Op):
    """Matrix product with numpy broadcasting of the batch dims; 1-D operands as in numpy."""

    op = "MatMul"
    defaults = {"transpose_a": False, "transpose_b": False}
    ir_attrs = ("transpose_a", "transpose_b")

    @classmethod
    def evaluate(cls, node, a, b):
        if node.transpose_a and a.ndim > 1:
            a = np.swapaxes(a, -1, -2)
        if node.transpose_b and b.ndim > 1:
            b = np.swapaxes(b, -1, -2)
        return np.matmul(a, b)

    @classmethod
    def infer_shapes(cls, node):
        a, b = node.in_shape(0), node.in_shape(1)
        if a is None or b is None:
            return [None]
        a, b = list(a), list(b)
        if node.transpose_a and len(a) > 1:
            a[-1], a[-2] = a[-2], a[-1]
        if node.transpose_b and len(b) > 1:
            b[-1], b[-2] = b[-2], b[-1]
        squeeze_a, squeeze_b = len(a) == 1, len(b) == 1
        if squeeze_a:
            a = [1] + a
        if squeeze_b:
            b = b + [1]
        if a[-1] >= 0 and b[-2] >= 0 and a[-1] != b[-2]:
            raise ValueError(f"inner dimensions {a[-1]} and {b[-2]} differ")
        out = list(broadcast_shapes(tuple(a[:-2]), tuple(b[:-2]))) + [a[-2], b[-1]]
        if squeeze_a:
            out.pop(-2)
        if squeeze_b:
            out.pop(-1)
        return [tuple(out)]


class Softmax(Op):
    """exp(x) / sum(exp(x)) along ``axis``."""

    op = "Softmax"
    version = "opset8"
    defaults = {"axis": 1}
    ir_attrs = ("axis",)

    @classmethod
    def evaluate(cls, node, x):
        axis = normalize_axis(node.axis, x.ndim)
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return e / np.sum(e, axis=axis, keepdims=True)
