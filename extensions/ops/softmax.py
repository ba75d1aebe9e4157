"""Softmax-8 and LogSoftmax-5."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import normalize_axis


def softmax(x: np.ndarray, axis: int | tuple) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x: np.ndarray, axis: int | tuple) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


class _AxisOp(Op):
    """An op along one ``axis`` (negative counts from the end); ``fn(x, axis)`` computes values."""

    abstract = True
    defaults = {"axis": 1}
    ir_attrs = ("axis",)
    fn = None

    @classmethod
    def evaluate(cls, node, x):
        return cls.fn(x, normalize_axis(node.axis, x.ndim))

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is not None:
            normalize_axis(node.axis, len(shape))
        return [shape]


class Softmax(_AxisOp):
    """exp(x) / sum(exp(x)) along ``axis``."""

    op = "Softmax"
    version = "opset8"
    fn = staticmethod(softmax)


class LogSoftmax(_AxisOp):
    """x - log(sum(exp(x))) along ``axis``."""

    op = "LogSoftmax"
    version = "opset5"
    fn = staticmethod(log_softmax)
