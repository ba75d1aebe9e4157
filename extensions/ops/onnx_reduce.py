"""ONNX Reduce* operators, kept until the middle phase (where the input rank is known) lowers them
to opset reductions: ``extensions/middle/onnx_reduce.py``."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import normalize_axes

# ONNX reduction -> numpy function of (x, axes tuple, keepdims) and the value of an empty reduction.
_REDUCTIONS = {
    "ReduceSum": (lambda x, a, k: np.sum(x, axis=a, keepdims=k), 0),
    "ReduceMean": (lambda x, a, k: np.mean(x, axis=a, keepdims=k), np.nan),
    "ReduceMax": (lambda x, a, k: np.max(x, axis=a, keepdims=k), -np.inf),
    "ReduceMin": (lambda x, a, k: np.min(x, axis=a, keepdims=k), np.inf),
    "ReduceProd": (lambda x, a, k: np.prod(x, axis=a, keepdims=k), 1),
    "ReduceL1": (lambda x, a, k: np.sum(np.abs(x), axis=a, keepdims=k), 0),
    "ReduceL2": (lambda x, a, k: np.sqrt(np.sum(np.square(x), axis=a, keepdims=k)), 0),
    "ReduceLogSum": (lambda x, a, k: np.log(np.sum(x, axis=a, keepdims=k)), -np.inf),
    "ReduceLogSumExp": (lambda x, a, k: np.log(np.sum(np.exp(x), axis=a, keepdims=k)), -np.inf),
    "ReduceSumSquare": (lambda x, a, k: np.sum(np.square(x), axis=a, keepdims=k), 0),
}
ONNX_REDUCTIONS = tuple(_REDUCTIONS)


def reduce_axes(node, rank: int | None) -> list[int] | str | None:
    """The axes an ONNX reduction node reduces: a sorted list, ``"all"``, ``"none"`` (empty
    axes with ``noop_with_empty_axes``), or None when they are not known yet."""
    axes = node.get("axes")
    if axes is None and node.is_in_port_connected(1):
        value = node.in_value(1)
        if value is None and node.in_shape(1) != (0,):
            return None
        axes = [] if value is None else np.atleast_1d(value).tolist()
    if not axes:
        return "none" if node.get("noop_with_empty_axes") else "all"
    if rank is None:
        return None
    return sorted(set(normalize_axes(axes, rank)))


class OnnxReduce(Op):
    """An ONNX Reduce* node (``reduction`` is its op type): data, optional axes input (or the
    ``axes`` attribute of older opsets), ``keep_dims``, ``noop_with_empty_axes``."""

    op = "onnx::Reduce"
    type = None
    defaults = {"reduction": "ReduceSum", "axes": None, "keep_dims": True, "noop_with_empty_axes": False}

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(0))

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        rank = None if shape is None else len(shape)
        axes = reduce_axes(node, rank)
        if axes == "none":
            return [shape]
        if shape is None:
            return [None]
        if axes == "all":
            axes = list(range(rank))
        if axes is None:
            return [(-1,) * rank if node.keep_dims else None]
        if node.keep_dims:
            return [tuple(1 if i in axes else d for i, d in enumerate(shape))]
        return [tuple(d for i, d in enumerate(shape) if i not in axes)]

    @classmethod
    def evaluate(cls, node, x, axes_value=None):
        axes = reduce_axes(node, x.ndim)
        if axes == "none":
            return x
        axes = tuple(range(x.ndim)) if axes == "all" else tuple(axes)
        fn, empty = _REDUCTIONS[node.reduction]
        with np.errstate(all="ignore"):
            if x.size == 0:
                shape = [1 if i in axes else d for i, d in enumerate(x.shape)]
                result = np.full(shape, empty, dtype=np.float64)
                return result if node.keep_dims else result.reshape([d for i, d in enumerate(x.shape) if i not in axes])
            return fn(x, axes, bool(node.keep_dims))
