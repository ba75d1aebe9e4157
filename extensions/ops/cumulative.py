"""CumSum-3: cumulative sum along an axis, optionally exclusive and/or reversed."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import normalize_axis


def cumulative(x: np.ndarray, axis: int, exclusive: bool, reverse: bool, fn=np.cumsum, neutral=0) -> np.ndarray:
    """numpy ``fn`` (cumsum/cumprod) along ``axis`` with ONNX's exclusive and reverse flags."""
    if reverse:
        x = np.flip(x, axis)
    out = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        pad = np.full_like(np.take(out, [0], axis=axis), neutral)
        out = np.concatenate([pad, np.take(out, np.arange(x.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


class CumSum(Op):
    """Cumulative sum of input 0 along the axis in input 1 (default 0)."""

    op = "CumSum"
    input_ranks = {1: (0,)}
    input_types = {1: ("i32", "i64")}
    version = "opset3"
    defaults = {"exclusive": False, "reverse": False}
    ir_attrs = ("exclusive", "reverse")

    @classmethod
    def evaluate(cls, node, x, axis=None):
        axis = 0 if axis is None else normalize_axis(int(np.asarray(axis).reshape(())), x.ndim)
        return cumulative(x, axis, node.exclusive, node.reverse)
