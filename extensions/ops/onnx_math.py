"""ONNX math operators lowered to opset ops in the front phase (``extensions/front/onnx/math_to_opset.py``)
or, when they need shapes, in the middle phase (``extensions/middle/onnx_det.py``)."""
from __future__ import annotations

import numpy as np

from extensions.ops.softmax import log_softmax
from mo.ops.internal import FrontOnlyOp
from mo.ops.op import Op
from mo.utils.types import np_dtype


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


class OnnxElementwise(FrontOnlyOp):
    """An ONNX elementwise operator (``variant`` is its op type, its float attributes are node
    attributes) that is lowered to a few opset ops: ``extensions/front/onnx/elementwise_to_opset.py``."""

    op = "onnx::Elementwise"


class OnnxLoss(Op):
    """ONNX NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss (``variant`` "NLL" / "SCE"):
    (input [N, C, d...], target [N, d...], optional weight [C]); ``reduction`` none/sum/mean,
    ``ignore_index`` (None: none). SCE has the log-probabilities as optional output 1.
    Lowered in the middle phase (``extensions/middle/onnx_loss.py``)."""

    op = "onnx::Loss"
    type = None
    defaults = {"variant": "NLL", "reduction": "mean", "ignore_index": None}

    @classmethod
    def infer_shapes(cls, node):
        loss = node.in_shape(1) if node.reduction == "none" else ()
        return [loss, node.in_shape(0)][:cls.outputs_count(node)]

    @classmethod
    def evaluate(cls, node, x, target, weight=None):
        log_prob = log_softmax(x, 1) if node.variant == "SCE" else x
        along_classes = (-1,) + (1,) * (x.ndim - 2)
        picks = np.expand_dims(target, 1) == np.arange(x.shape[1]).reshape(along_classes)
        if weight is None:
            w = picks.any(axis=1).astype(x.dtype)
        else:
            w = np.where(picks, weight.reshape(along_classes), 0).sum(axis=1)
        if node.ignore_index is not None:
            w = np.where(target == node.ignore_index, 0, w)
        loss = -np.where(picks, log_prob, 0).sum(axis=1) * w
        if node.reduction != "none":
            loss = loss.sum() / (w.sum() if node.reduction == "mean" else 1)
        return [loss, log_prob][:cls.outputs_count(node)]


class OnnxBitCast(Op):
    """BitCast(x, to): the bits of x read as ``destination_type`` (same width, same shape).
    Lowered in the middle phase (``extensions/middle/onnx_bitcast.py``)."""

    op = "onnx::BitCast"
    type = None
    defaults = {"destination_type": "f32"}

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.destination_type)

    @classmethod
    def evaluate(cls, node, x):
        return x.view(np_dtype(node.destination_type))
