"""ONNX math operators lowered to opset ops in the front phase (``extensions/front/onnx/math_to_opset.py``)
or, when they need shapes, in the middle phase (``extensions/middle/onnx_det.py``)."""
from __future__ import annotations

import numpy as np

from mo.ops.internal import FrontOnlyOp
from mo.ops.op import Op


class OnnxGemm(FrontOnlyOp):
    """Gemm(A, B, optional C): ``alpha``, ``beta``, ``transpose_a``, ``transpose_b``."""

    op = "onnx::Gemm"


class OnnxMatMulInteger(FrontOnlyOp):
    """MatMulInteger(A, B, optional a_zero_point, b_zero_point) -> i32."""

    op = "onnx::MatMulInteger"


class OnnxDet(Op):
    """Det(X[..., n, n]) -> [...]; lowered in the middle phase, where n is known."""

    op = "onnx::Det"
    type = None

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        return [None if shape is None else tuple(shape[:-2])]

    @classmethod
    def evaluate(cls, node, x):
        return np.linalg.det(x)
