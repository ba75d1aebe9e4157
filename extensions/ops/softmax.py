"""Softmax-8, LogSoftmax-5 and the ONNX Softmax/LogSoftmax/Hardmax forms that need lowering."""
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


def hardmax(x: np.ndarray, axis: int) -> np.ndarray:
    """1 at the first maximum along ``axis``, 0 elsewhere."""
    first = np.expand_dims(np.argmax(x, axis=axis), axis)
    positions = np.arange(x.shape[axis]).reshape((-1,) + (1,) * (x.ndim - axis - 1))
    return (positions == first).astype(x.dtype)


class _AxisOp(Op):
    """An op along one ``axis`` (negative counts from the end); ``fn(x, axis)`` computes values."""

    abstract = True
    defaults = {"axis": 1}
    ir_attrs = ("axis",)
    fn = None

    @classmethod
    def evaluate(cls, node, x):
        return cls.fn(x, normalize_axis(node.axis, x.ndim))


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


_KINDS = {"Softmax": softmax, "LogSoftmax": log_softmax}


class OnnxSoftmax(Op):
    """ONNX Softmax/LogSoftmax/Hardmax (``variant``) along ``axis``; with ``flatten`` (opsets before
    13) the input is seen as 2-D [prod(dims[:axis]), prod(dims[axis:])]. Lowered in the middle phase
    (``extensions/middle/onnx_softmax.py``)."""

    op = "onnx::Softmax"
    type = None
    defaults = {"variant": "Softmax", "axis": -1, "flatten": False}

    @classmethod
    def evaluate(cls, node, x):
        axis = normalize_axis(node.axis, x.ndim)
        if node.flatten:
            flat = x.reshape(int(np.prod(x.shape[:axis])), -1)
            return cls._compute(node.variant, flat, 1).reshape(x.shape)
        return cls._compute(node.variant, x, axis)

    @staticmethod
    def _compute(kind, x, axis):
        if kind == "Hardmax":
            return hardmax(x, axis)
        return _KINDS[kind](x, axis)
