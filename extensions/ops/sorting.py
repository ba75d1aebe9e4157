"""Sorting and searching: TopK-11, Unique-10, NonZero-3, Bucketize-3, SearchSorted-15."""
from __future__ import annotations

import numpy as np

from extensions.ops.shape import OutputTypedOp
from mo.ops.op import Op
from mo.utils.shape import DYN, normalize_axis
from mo.utils.types import INT_TYPES, np_dtype


class TopK(Op):
    """The ``k`` (input 1, scalar) largest (``mode`` max) or smallest values along ``axis`` and
    their indices; ``stable`` keeps equal values in index order."""

    op = "TopK"
    input_ranks = {1: (0,)}
    input_types = {1: INT_TYPES}
    version = "opset11"
    num_outputs = 2
    defaults = {"axis": -1, "mode": "max", "sort": "value", "index_element_type": "i32", "stable": False}
    ir_attrs = ("axis", "mode", "sort", "index_element_type", "stable")

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(0))
        node.out_port(1).data.set_dtype(node.index_element_type)

    @classmethod
    def evaluate(cls, node, x, k):
        axis = normalize_axis(node.axis, x.ndim)
        k = int(np.asarray(k).reshape(()))
        key = -x if node.mode == "max" else x
        if x.dtype.kind in "ub" and node.mode == "max":
            key = -x.astype(np.int64)
        order = np.argsort(key, axis=axis, kind="stable")
        idx = np.take(order, np.arange(min(k, x.shape[axis])), axis=axis)
        if node.sort == "index":
            idx = np.sort(idx, axis=axis)
        return np.take_along_axis(x, idx, axis=axis), idx.astype(np_dtype(node.index_element_type))

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None, None]
        axis = normalize_axis(node.axis, len(shape))
        k = node.in_value(1)
        if k is None:
            dim = DYN
        else:
            k = int(np.asarray(k).reshape(()))
            dim = k if shape[axis] < 0 else min(k, shape[axis])
        out = tuple(dim if i == axis else d for i, d in enumerate(shape))
        return [out, out]


def unique(x: np.ndarray, axis: int | None, sorted_: bool) -> tuple[np.ndarray, ...]:
    """(unique values, first-occurrence indices, inverse indices, counts) of ``x`` as numpy
    computes them, reordered by first occurrence when not ``sorted_``."""
    values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                               return_counts=True, axis=axis)
    inverse = inverse.reshape(-1)
    if not sorted_:
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        values = np.take(values, order, axis=0 if axis is None else axis)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    return values, first, inverse, counts


class Unique(Op):
    """Unique elements of the flattened input, or unique slices along ``axis`` (input 1), with
    the index of each one's first occurrence, each input element's position in the output and
    the counts."""

    op = "Unique"
    version = "opset10"
    num_outputs = 4
    defaults = {"sorted": True, "index_element_type": "i64", "count_element_type": "i64"}
    ir_attrs = ("sorted", "index_element_type", "count_element_type")

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(0))
        node.out_port(1).data.set_dtype(node.index_element_type)
        node.out_port(2).data.set_dtype(node.index_element_type)
        node.out_port(3).data.set_dtype(node.count_element_type)

    @classmethod
    def evaluate(cls, node, x, axis=None):
        if axis is not None:
            axis = normalize_axis(int(np.asarray(axis).reshape(())), x.ndim)
        return unique(x if axis is not None else x.reshape(-1), axis, node.sorted)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if not node.is_in_port_connected(1):
            total = (DYN,) if shape is None or any(d < 0 for d in shape) else (int(np.prod(shape)),)
            return [(DYN,), (DYN,), total, (DYN,)]
        axis = node.in_value(1)
        if shape is None or axis is None:
            return [None, (DYN,), (DYN,), (DYN,)]
        axis = normalize_axis(int(np.asarray(axis).reshape(())), len(shape))
        out = tuple(DYN if i == axis else d for i, d in enumerate(shape))
        return [out, (DYN,), (shape[axis],), (DYN,)]


class NonZero(OutputTypedOp):
    """Indices of the non-zero elements, one row per input dimension: [rank, count]."""

    op = "NonZero"
    version = "opset3"

    @classmethod
    def evaluate(cls, node, x):
        return np.array(np.nonzero(np.atleast_1d(x))).reshape(max(x.ndim, 1), -1)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        return [None if shape is None else (max(len(shape), 1), DYN)]


class Bucketize(OutputTypedOp):
    """The bucket of each element among sorted boundaries (input 1): the number of boundaries
    below it (``with_right_bound``: a boundary equal to it counts as above), of ``output_type``.
    The boundaries decide the result exactly, so they are never compressed to f16."""

    op = "Bucketize"
    version = "opset3"
    defaults = {"output_type": "i64", "with_right_bound": True}
    ir_attrs = ("output_type", "with_right_bound")
    precision_sensitive_inputs = (1,)

    @classmethod
    def evaluate(cls, node, x, buckets):
        side = "left" if node.with_right_bound else "right"
        return np.searchsorted(np.asarray(buckets).reshape(-1), x, side=side)


class SearchSorted(Op):
    """For each of ``values`` (input 1), the index in the innermost dim of ``sorted_sequence``
    (input 0; the leading dims as the values', or 1-D for any values) where it goes to keep the
    order: the first such index, the last with ``right_mode``; i64. The sequence decides the
    result exactly, so it is never compressed to f16."""

    op = "SearchSorted"
    version = "opset15"
    defaults = {"right_mode": False}
    ir_attrs = ("right_mode",)
    precision_sensitive_inputs = (0,)

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype("i64")

    @classmethod
    def evaluate(cls, node, sequence, values):
        side = "right" if node.right_mode else "left"
        if sequence.ndim == 1:
            return np.searchsorted(sequence, values, side=side)
        rows = [np.searchsorted(s, v, side=side) for s, v in zip(sequence.reshape(-1, sequence.shape[-1]),
                                                                  values.reshape(-1, values.shape[-1]))]
        return np.array(rows, np.int64).reshape(values.shape)

    @classmethod
    def infer_shapes(cls, node):
        return [node.in_shape(1)]
