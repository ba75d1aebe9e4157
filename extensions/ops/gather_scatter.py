"""Indexed reads and writes: Gather-8, GatherElements-6, GatherND-8, ScatterUpdate-3,
ScatterElementsUpdate-12, ScatterNDUpdate-15. Negative indices count from the end; scatters keep
the shape of their data input (the default ``infer_shapes``)."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import normalize_axis
from mo.utils.types import INT_TYPES


def _positive(indices: np.ndarray, dim) -> np.ndarray:
    indices = np.asarray(indices).astype(np.int64)
    return np.where(indices < 0, indices + np.asarray(dim, dtype=np.int64), indices)


def _merge(a: int, b: int) -> int:
    return b if a < 0 else a


class Gather(Op):
    """data[..., indices, ...] along ``axis`` (input 2); the first ``batch_dims`` dims of data and
    indices are batch dims they share."""

    op = "Gather"
    string_inputs = True        # moves string tensors too (OpenVINO string support)
    input_ranks = {2: (0, 1)}
    input_types = {1: INT_TYPES, 2: INT_TYPES}
    version = "opset8"
    defaults = {"batch_dims": 0}
    ir_attrs = ("batch_dims",)

    @classmethod
    def _dims(cls, node, data_rank: int, idx_rank: int, axis) -> tuple[int, int]:
        bd = node.batch_dims
        bd = bd + idx_rank if bd < 0 else bd
        axis = normalize_axis(int(np.asarray(axis).reshape(())), data_rank)
        if bd > axis:
            raise ValueError(f"batch_dims {bd} is greater than axis {axis}")
        return axis, bd

    @classmethod
    def evaluate(cls, node, data, indices, axis):
        axis, bd = cls._dims(node, data.ndim, indices.ndim, axis)
        indices = _positive(indices, data.shape[axis])
        if bd == 0:
            return np.take(data, indices, axis=axis)
        batch = data.shape[:bd]
        out = [np.take(data[b], indices[b], axis=axis - bd) for b in np.ndindex(*batch)]
        return np.stack(out).reshape(batch + out[0].shape) if out else np.zeros(
            batch + data.shape[bd:axis] + indices.shape[bd:] + data.shape[axis + 1:], data.dtype)

    @classmethod
    def infer_shapes(cls, node):
        data, idx, axis = node.in_shape(0), node.in_shape(1), node.in_value(2)
        if data is None or idx is None or axis is None:
            return [None]
        axis, bd = cls._dims(node, len(data), len(idx), axis)
        head = tuple(_merge(d, i) for d, i in zip(data[:bd], idx[:bd])) + tuple(data[bd:axis])
        return [head + tuple(idx[bd:]) + tuple(data[axis + 1:])]


class GatherElements(Op):
    """out[i][j][k] = data[i][indices[i][j][k]][k] (for axis 1); output has the indices' shape."""

    op = "GatherElements"
    version = "opset6"
    defaults = {"axis": 0}
    ir_attrs = ("axis",)

    @classmethod
    def evaluate(cls, node, data, indices):
        axis = normalize_axis(node.axis, data.ndim)
        return np.take_along_axis(data, _positive(indices, data.shape[axis]), axis=axis)

    @classmethod
    def infer_shapes(cls, node):
        return [node.in_shape(1)]


def _gather_nd(data, indices, bd: int):
    if bd:
        batch = data.shape[:bd]
        parts = [_gather_nd(data[b], indices[b], 0) for b in np.ndindex(*batch)]
        return np.stack(parts).reshape(batch + parts[0].shape)
    k = indices.shape[-1]
    flat = indices.reshape(-1, k)
    flat = _positive(flat, np.array(data.shape[:k]))
    out = np.stack([data[tuple(i)] for i in flat]) if len(flat) else np.zeros((0,) + data.shape[k:], data.dtype)
    return out.reshape(indices.shape[:-1] + data.shape[k:])


class GatherND(Op):
    """Slices of data addressed by the last dim of indices, after ``batch_dims`` shared dims."""

    op = "GatherND"
    version = "opset8"
    defaults = {"batch_dims": 0}
    ir_attrs = ("batch_dims",)

    @classmethod
    def evaluate(cls, node, data, indices):
        return _gather_nd(data, indices.astype(np.int64), node.batch_dims)

    @classmethod
    def infer_shapes(cls, node):
        data, idx = node.in_shape(0), node.in_shape(1)
        if data is None or idx is None or idx[-1] < 0:
            return [None]
        bd = node.batch_dims
        head = tuple(_merge(d, i) for d, i in zip(data[:bd], idx[:bd]))
        return [head + tuple(idx[bd:-1]) + tuple(data[bd + idx[-1]:])]


class ScatterUpdate(Op):
    """data with the slices at ``indices`` along ``axis`` (input 3) replaced by updates."""

    op = "ScatterUpdate"
    version = "opset3"

    @classmethod
    def evaluate(cls, node, data, indices, updates, axis):
        axis = normalize_axis(int(np.asarray(axis).reshape(())), data.ndim)
        out = data.copy()
        idx = _positive(indices, data.shape[axis]).reshape(-1)
        upd = updates.reshape(data.shape[:axis] + (idx.size,) + data.shape[axis + 1:])
        for j, i in enumerate(idx):
            out[(slice(None),) * axis + (i,)] = upd[(slice(None),) * axis + (j,)]
        return out


_REDUCE = {
    "sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum, "sub": np.subtract,
}


def _combine(reduction: str, old, new):
    if reduction == "none":
        return new
    return _REDUCE[reduction](old, new)


class ScatterElementsUpdate(Op):
    """out[..., indices[i,j,k], ...] (along ``axis``, input 3) = reduction(data, updates[i,j,k])."""

    op = "ScatterElementsUpdate"
    version = "opset12"
    defaults = {"reduction": "none", "use_init_val": True}
    ir_attrs = ("reduction", "use_init_val")

    @classmethod
    def evaluate(cls, node, data, indices, updates, axis):
        axis = normalize_axis(int(np.asarray(axis).reshape(())), data.ndim)
        idx = _positive(indices, data.shape[axis])
        out = data.copy()
        reduction = node.reduction
        touched: dict[tuple, list] = {}
        for pos in np.ndindex(*idx.shape):
            target = pos[:axis] + (int(idx[pos]),) + pos[axis + 1:]
            touched.setdefault(target, []).append(updates[pos])
        for target, values in touched.items():
            if reduction == "none":
                out[target] = values[-1]
                continue
            acc = list(values) if not node.use_init_val else [data[target]] + list(values)
            if reduction == "mean":
                mean = np.mean(np.asarray(acc, dtype=np.float64))
                out[target] = np.floor(mean) if np.issubdtype(data.dtype, np.integer) else mean
                continue
            result = acc[0]
            for v in acc[1:]:
                result = _REDUCE[reduction](result, v)
            out[target] = result
        return out


class ScatterNDUpdate(Op):
    """data with the elements or slices addressed by indices (last dim) combined with updates."""

    op = "ScatterNDUpdate"
    version = "opset15"
    defaults = {"reduction": "none"}
    ir_attrs = ("reduction",)

    @classmethod
    def evaluate(cls, node, data, indices, updates):
        out = data.copy()
        k = indices.shape[-1]
        flat = _positive(indices.reshape(-1, k), np.array(data.shape[:k]))
        upd = updates.reshape((len(flat),) + data.shape[k:])
        for i, target in enumerate(flat):
            target = tuple(int(t) for t in target)
            out[target] = _combine(node.reduction, out[target], upd[i])
        return out
