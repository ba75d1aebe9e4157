"""Minimal classes of opset ops that belong to other op families (MatMul, Softmax, Gather, Slice,
ScatterElementsUpdate) and that the neural-network lowerings build.

The owners of those families write the full classes; the registry keeps the class found last
for an op name and this module sorts first among ``extensions.ops``, so theirs take over.
"""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import DYN, broadcast_shapes, normalize_axis


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


class Gather(Op):
    """data[..., indices, ...] along the axis of input 2, with ``batch_dims``."""

    op = "Gather"
    version = "opset8"
    defaults = {"batch_dims": 0}
    ir_attrs = ("batch_dims",)

    @classmethod
    def evaluate(cls, node, data, indices, axis):
        axis = normalize_axis(int(axis), data.ndim)
        indices = np.where(indices < 0, indices + data.shape[axis], indices)
        if node.batch_dims == 0:
            return np.take(data, indices, axis=axis)
        if node.batch_dims == 1 and axis == 1 and indices.ndim >= 1:
            return np.stack([np.take(data[i], indices[i], axis=0) for i in range(data.shape[0])])
        raise NotImplementedError("Gather folding with batch_dims")

    @classmethod
    def infer_shapes(cls, node):
        data, indices, axis = node.in_shape(0), node.in_shape(1), node.in_value(2)
        if data is None or indices is None or axis is None:
            return [None]
        axis = normalize_axis(int(axis), len(data))
        bd = node.batch_dims if node.batch_dims >= 0 else node.batch_dims + len(indices)
        return [tuple(data[:axis]) + tuple(indices[bd:]) + tuple(data[axis + 1:])]


class Slice(Op):
    """data[start:stop:step] on the listed axes (input 4, default 0..len(start)-1)."""

    op = "Slice"
    version = "opset8"

    @classmethod
    def _slices(cls, node, shape):
        start, stop, step = node.in_value(1), node.in_value(2), node.in_value(3)
        axes = node.in_value(4) if node.is_in_port_connected(4) else np.arange(np.size(start))
        if start is None or stop is None or step is None or axes is None:
            return None
        slices = [slice(None)] * len(shape)
        for a, b, e, s in zip(axes.reshape(-1), start.reshape(-1), stop.reshape(-1), step.reshape(-1)):
            a = normalize_axis(int(a), len(shape))
            slices[a] = slice(int(b), int(e), int(s))
        return slices

    @classmethod
    def evaluate(cls, node, data, *rest):
        return data[tuple(cls._slices(node, data.shape))]

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None]
        slices = cls._slices(node, shape)
        if slices is None:
            return [(DYN,) * len(shape)]
        out = []
        for d, s in zip(shape, slices):
            if s == slice(None):
                out.append(d)
            elif d < 0:
                out.append(DYN)
            else:
                out.append(len(range(*s.indices(d))))
        return [tuple(out)]


class ScatterElementsUpdate(Op):
    """Copy of data with ``updates`` written at ``indices`` along the axis of input 3."""

    op = "ScatterElementsUpdate"
    version = "opset12"
    defaults = {"reduction": "none", "use_init_val": True}
    ir_attrs = ("reduction", "use_init_val")

    @classmethod
    def evaluate(cls, node, data, indices, updates, axis):
        if node.reduction != "none":
            raise NotImplementedError("ScatterElementsUpdate folding with a reduction")
        out = data.copy()
        axis = normalize_axis(int(axis), data.ndim)
        indices = np.where(indices < 0, indices + data.shape[axis], indices)
        np.put_along_axis(out, indices, updates, axis=axis)
        return out
