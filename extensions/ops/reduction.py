"""Reductions over the axes in input 1: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogicalAnd/LogicalOr."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import normalize_axes
from mo.utils.types import INT_TYPES, np_dtype


class Reduce(Op):
    abstract = True
    defaults = {"keep_dims": False}
    input_ranks = {1: (0, 1)}
    input_types = {1: INT_TYPES}
    ir_attrs = ("keep_dims",)
    fn = None

    @classmethod
    def _axes(cls, axes, rank):
        if axes is None:
            return None
        return sorted(set(normalize_axes(np.atleast_1d(axes).tolist(), rank)))

    @classmethod
    def evaluate(cls, node, x, axes):
        axes = tuple(cls._axes(axes, x.ndim))
        with np.errstate(all="ignore"):
            return cls.fn(x, axes, node.keep_dims).astype(x.dtype)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None]
        axes = cls._axes(node.in_value(1), len(shape))
        if axes is None:
            if node.keep_dims:
                return [(-1,) * len(shape)]
            return [None]
        if node.keep_dims:
            return [tuple(1 if i in axes else d for i, d in enumerate(shape))]
        return [tuple(d for i, d in enumerate(shape) if i not in axes)]


def _extreme(dtype: np.dtype, highest: bool):
    """The identity of max (``highest`` False) or min over ``dtype``: an infinity for floats, the
    bound of an integer type (OpenVINO leaves a reduction over no elements undefined; this is what
    ONNX and TensorFlow give, and a constant-folded one keeps it)."""
    if np.issubdtype(dtype, np.floating):
        return np.inf if highest else -np.inf
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
    return (info.max if highest else info.min) if info is not None else highest


def reduction_identity(op: str, element_type: str):
    """What reduction ``op`` gives over no elements of ``element_type``: its identity."""
    dtype = np.dtype(np_dtype(element_type))
    return {"ReduceSum": 0, "ReduceL1": 0, "ReduceL2": 0, "ReduceProd": 1,
            "ReduceMax": _extreme(dtype, False), "ReduceMin": _extreme(dtype, True),
            "ReduceLogicalAnd": True, "ReduceLogicalOr": False}[op]


def _make(name, fn, version="opset1", boolean=False):
    return type(name, (Reduce,), {"op": name, "version": version, "fn": staticmethod(fn)})


ReduceSum = _make("ReduceSum", lambda x, a, k: np.sum(x, axis=a, keepdims=k))
ReduceMean = _make("ReduceMean", lambda x, a, k: np.mean(x, axis=a, keepdims=k))
ReduceMax = _make("ReduceMax", lambda x, a, k: np.max(x, axis=a, keepdims=k, initial=_extreme(x.dtype, False)))
ReduceMin = _make("ReduceMin", lambda x, a, k: np.min(x, axis=a, keepdims=k, initial=_extreme(x.dtype, True)))
ReduceProd = _make("ReduceProd", lambda x, a, k: np.prod(x, axis=a, keepdims=k))
ReduceL1 = _make("ReduceL1", lambda x, a, k: np.sum(np.abs(x), axis=a, keepdims=k), "opset4")
ReduceL2 = _make("ReduceL2", lambda x, a, k: np.sqrt(np.sum(np.square(x), axis=a, keepdims=k)), "opset4")
ReduceLogicalAnd = _make("ReduceLogicalAnd", lambda x, a, k: np.all(x, axis=a, keepdims=k))
ReduceLogicalOr = _make("ReduceLogicalOr", lambda x, a, k: np.any(x, axis=a, keepdims=k))
