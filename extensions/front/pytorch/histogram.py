"""ATen counting operations: bincount, histogram and histogramdd: their translators.

The counts are a ScatterElementsUpdate (sum) of ones or weights at each element's bin into zeros.
A bin is found as PyTorch finds it: the bin edges are linspace(leftmost, rightmost, bins + 1) in the
input's type (leftmost and rightmost from ``range`` or the input's min and max, half a unit apart
when they are equal), or the given edges; the bin of a value is the number of edges at or below it,
minus one (Bucketize), the rightmost edge belonging to the last bin; values outside the edges are
not counted. bincount's length, max(input) + 1 or minlength, is computed at run time.
"""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, convert, dim_size, rank_of
from extensions.front.pytorch.creation import linspace_points
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import i64


def _flat(b, x):
    return b.Reshape(x, i64([-1]), special_zero=False)


@aten("aten::bincount")
def bincount(node, a, b):
    """bincount(self, weights=None, minlength=0): how often each value 0..max(self) occurs (the
    sum of its weights), at least minlength long; i64 counts, f32 sums of f32 weights, else f64."""
    x = convert(b, a.tensor(0), "i64")
    if rank_of(x, node) != 1:
        raise ConversionError("bincount takes a 1-D tensor of non-negative integers.")
    weights = None if a.is_none("weights") else a.tensor("weights")
    et = "i64" if weights is None else ("f32" if weights.data.get_dtype() == "f32" else "f64")
    updates = b.Broadcast(const(b, 1, et), b.ShapeOf(x)) if weights is None else convert(b, weights, et)
    # max(x) + 1, computed over x and -1 so that an empty input gives 0
    largest = b.ReduceMax(b.Concat(x, i64([-1]), axis=0), i64([0]), keep_dims=True)
    length = b.Maximum(b.Add(largest, i64([1])), i64([int(a.const("minlength", 0))]))
    zeros = b.Broadcast(const(b, 0, et), length)
    return [b.ScatterElementsUpdate(zeros, x, updates, np.int64(0), reduction="sum")]


def _outer_edges(b, column, bounds):
    """(leftmost, rightmost) 0-d edges: ``bounds`` (two numbers) or the column's min and max (0 for
    an empty column); half a unit apart each way when equal."""
    et = column.data.get_dtype()
    if bounds is not None:
        low, high = (const(b, float(v), et) for v in bounds)
    else:       # reduced with +-inf appended, so that an empty column reduces too
        low, high = (reduce(b.Concat(column, const(b, [pad], et), axis=0), i64([0]), keep_dims=False)
                     for reduce, pad in ((b.ReduceMin, np.inf), (b.ReduceMax, -np.inf)))
        empty = b.Equal(dim_size(b, column, 0), np.int64(0))
        low, high = (b.Select(empty, const(b, 0.0, et), v) for v in (low, high))
    same = b.Equal(low, high)
    half = const(b, 0.5, et)
    return b.Select(same, b.Subtract(low, half), low), b.Select(same, b.Add(high, half), high)


def _edges(b, column, bins, bounds):
    """The bin edges of a column: the given edges (a tensor) or ``bins`` + 1 evenly spaced ones."""
    et = column.data.get_dtype()
    if not isinstance(bins, int):
        return convert(b, bins, et)
    if bins <= 0:
        raise ConversionError(f"histogram needs a positive number of bins, not {bins}.")
    low, high = _outer_edges(b, column, bounds)
    return linspace_points(b, low, high, b.const(np.int64(bins + 1)), et)


def _bins_of(b, column, edges):
    """(bin index, inside): each value's bin among the edges (the last edge in the last bin) and
    whether it lies within the edges."""
    count = b.Subtract(dim_size(b, edges, 0), np.int64(1))          # number of bins
    above = b.Bucketize(column, edges, output_type="i64", with_right_bound=False)
    index = b.Minimum(b.Subtract(above, np.int64(1)), b.Subtract(count, np.int64(1)))
    first = b.Gather(edges, np.int64(0), np.int64(0))
    last = b.Gather(edges, b.Subtract(dim_size(b, edges, 0), np.int64(1)), np.int64(0))
    inside = b.LogicalAnd(b.GreaterEqual(column, first), b.LessEqual(column, last))
    return b.Select(inside, index, np.int64(0)), inside, count


def _histogramdd(b, points, dims: int, bins: list, bounds, weight, density: bool):
    """(counts of shape [bins of each dim], [edges of each dim]) of ``points`` [N, dims]."""
    et = points.data.get_dtype()
    flat_index, valid, counts, edges = None, None, [], []
    for d in range(dims):
        column = b.Gather(points, np.int64(d), np.int64(1))
        e = _edges(b, column, bins[d], None if bounds is None else bounds[2 * d:2 * d + 2])
        index, inside, count = _bins_of(b, column, e)
        flat_index = index if flat_index is None else b.Add(b.Multiply(flat_index, count), index)
        valid = inside if valid is None else b.LogicalAnd(valid, inside)
        counts.append(b.Reshape(count, i64([1]), special_zero=False))
        edges.append(e)
    shape = b.Concat(*counts, axis=0) if dims > 1 else counts[0]
    ones = b.Broadcast(const(b, 1, et), b.ShapeOf(flat_index))
    updates = b.Select(valid, ones if weight is None else convert(b, _flat(b, weight), et), const(b, 0, et))
    total = b.ReduceProd(shape, i64([0]), keep_dims=True)
    hist = b.ScatterElementsUpdate(b.Broadcast(const(b, 0, et), total), flat_index, updates, np.int64(0),
                                   reduction="sum")
    hist = b.Reshape(hist, shape, special_zero=False)
    if density:
        hist = b.Divide(hist, b.ReduceSum(hist, i64(list(range(dims))), keep_dims=False))
        for d, e in enumerate(edges):
            n = b.Subtract(dim_size(b, e, 0), np.int64(1))
            widths = b.Subtract(b.Slice(e, i64([1]), i64([np.iinfo(np.int64).max]), i64([1])),
                                b.Slice(e, i64([0]), b.Reshape(n, i64([1]), special_zero=False), i64([1])))
            hist = b.Divide(hist, b.Reshape(widths, i64([-1 if k == d else 1 for k in range(dims)]),
                                            special_zero=False))
    return hist, edges


def _bins_arg(a, dims: int) -> list:
    """The bins of each dim: ints (a number for all, or one each) or edge tensors."""
    i = a.index("bins")
    if "Tensor" in str(a.types[i]):
        tensors = a.tensors("bins")
        return tensors if len(tensors) == dims else tensors * dims
    value = a.const("bins")
    return [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)] * dims


def _floating(x):
    if x.data.get_dtype() not in ("f32", "f64"):
        raise ConversionError(f"histogram takes f32 or f64 values, not {x.data.get_dtype()} (as PyTorch).")
    return x


def _optional(a, key):
    return None if not a.has(key) or a.is_none(key) else a.tensor(key)


def _bounds(a):
    value = a.const("range", None) if a.has("range") else None
    return None if value is None else [float(v) for v in value]


@aten("aten::histogram")
def histogram(node, a, b):
    """histogram(self, bins (a count or the edges), range=None, weight=None, density=False): the
    counts (weights' sums) of the values in each bin, and the edges."""
    x = _floating(a.tensor(0))
    hist, edges = _histogramdd(b, b.Reshape(x, i64([-1, 1]), special_zero=False), 1, _bins_arg(a, 1), _bounds(a),
                               _optional(a, "weight"), bool(a.const("density", False)))
    return [hist, edges[0]]


@aten("aten::histogramdd")
def histogramdd(node, a, b):
    """histogramdd(self [..., D], bins, range=None, weight=None, density=False): the counts of the
    D-dimensional points in each cell, and the edges of each dim."""
    x = _floating(a.tensor(0))
    shape = x.data.get_shape()
    if shape is None or not shape or shape[-1] < 0:
        raise ConversionError("histogramdd needs an input of known rank whose last dim (the point size) is static.")
    dims = shape[-1]
    points = b.Reshape(x, i64([-1, dims]), special_zero=False)
    hist, edges = _histogramdd(b, points, dims, _bins_arg(a, dims), _bounds(a), _optional(a, "weight"),
                               bool(a.const("density", False)))
    return [hist, *edges]
