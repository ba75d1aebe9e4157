"""ONNX operators kept as extracted until a front (or middle) transform lowers them to opset ops."""
from __future__ import annotations

from mo.ops.internal import FrontOnlyOp
from mo.ops.op import Op


class OnnxConv(FrontOnlyOp):
    """ONNX Conv: x, W, optional B; ``group``; window attrs as in Convolution."""

    op = "onnx::Conv"


class OnnxConvTranspose(FrontOnlyOp):
    op = "onnx::ConvTranspose"


class OnnxPool(Op):
    """ONNX MaxPool/AveragePool (lowered in front) and GlobalMaxPool/GlobalAveragePool
    (lowered in middle, where the input rank is known)."""

    op = "onnx::Pool"
    type = None

    @classmethod
    def infer_shapes(cls, node):
        x = node.in_shape(0)
        if not node.get("global_pool"):
            raise RuntimeError("onnx::Pool should have been replaced in the front phase")
        return [None if x is None else tuple(x[:2]) + (1,) * (len(x) - 2)]
