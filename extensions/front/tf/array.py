"""TensorFlow array operations: Unique, UniqueWithCounts, Roll, ReverseSequence, Reverse (v1),
LinSpace, MatrixBandPart, BroadcastArgs, Bucketize, LowerBound/UpperBound, InvertPermutation, ListDiff,
ShapeN and UnravelIndex. (The MatrixDiag family is in diagonal.py.)"""
from __future__ import annotations

import numpy as np

from extensions.front.tf.shape import constant_input
from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import (
    INT64_MIN,
    convert,
    dim,
    i64,
    input_rank,
    input_sources,
    norm_axis,
    rank_of,
    shape_of,
    typed_const,
)


class ReverseSequenceExtractor(TfExtractor):
    """ReverseSequence(input, seq_lengths): the opset op with ``seq_dim`` and ``batch_dim``."""

    op_types = ("ReverseSequence",)

    @classmethod
    def extract(cls, node):
        node.graph.registry.op("ReverseSequence").update_node(node, {
            "seq_axis": int(cls.attr(node, "seq_dim", 0)), "batch_axis": int(cls.attr(node, "batch_dim", 0))})


class RollExtractor(TfExtractor):
    """Roll(input, shift, axis): the opset op."""

    op_types = ("Roll",)

    @classmethod
    def extract(cls, node):
        node.graph.registry.op("Roll").update_node(node)


@translator("tf", "Unique", "UniqueWithCounts", "UniqueV2", "UniqueWithCountsV2")
def unique(node, b):
    """Unique(x) of a 1-D x, or the V2 forms with an axis (input 1; empty: x is 1-D): the
    values (slices along the axis) in order of first occurrence, the index of each element's
    (slice's) value among them, and for *WithCounts the counts, of ``out_idx``."""
    axis = None
    if node.fw_op.endswith("V2"):
        axes = np.asarray(constant_input(node, 1, "axis")).reshape(-1)
        if axes.size > 1:
            raise ConversionError(f"it takes one axis, not {axes.size}.")
        axis = np.int64(norm_axis(axes[0], input_rank(node), node)) if axes.size else None
    if axis is None and input_rank(node) != 1:
        raise ConversionError("TensorFlow's Unique takes a 1-D input when no axis is given.")
    out_idx = TfExtractor.dtype(node, "out_idx") or "i32"
    y, _, idx, counts = b.Unique(node.in_port(0).get_source(), axis, sorted=False, index_element_type=out_idx,
                                 count_element_type=out_idx)
    return [y, idx, counts] if "WithCounts" in node.fw_op else [y, idx]


@translator("tf", "Reverse")
def reverse(node, b):
    """Reverse (v1): the dims where the bool vector ``dims`` is true, reversed."""
    axes = np.flatnonzero(np.asarray(constant_input(node, 1, "dims")).reshape(-1)).astype(np.int64)
    x = node.in_port(0).get_source()
    if not axes.size:
        return [x]
    n = axes.size
    return [b.Slice(x, np.full(n, -1, np.int64), np.full(n, INT64_MIN, np.int64), np.full(n, -1, np.int64), axes)]


@translator("tf", "LinSpace")
def lin_space(node, b):
    """LinSpace(start, stop, num): start + i * (stop - start) / (num - 1) for i < num (num = 1:
    [start])."""
    start, stop, num = input_sources(node)
    dtype = start.data.get_dtype()
    steps = b.Range(typed_const(b, 0, dtype), b.Convert(num, destination_type=dtype), typed_const(b, 1, dtype),
                    output_type=dtype)
    gaps = b.Maximum(b.Convert(b.Subtract(num, typed_const(b, 1, num.data.get_dtype())), destination_type=dtype),
                     typed_const(b, 1, dtype))
    delta = b.Divide(b.Subtract(stop, start), gaps)
    return [b.Add(b.Reshape(start, i64(1), special_zero=False), b.Multiply(steps, delta))]


def _row_minus_col(b, rows, cols):
    """A [rows, cols] i64 tensor of i - j (``rows`` and ``cols`` 0-d i64 ports)."""
    rows, cols = (b.Range(np.int64(0), n, np.int64(1), output_type="i64") for n in (rows, cols))
    return b.Subtract(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(cols, i64(0)))


@translator("tf", "MatrixBandPart", "BatchMatrixBandPart")
def matrix_band_part(node, b):
    """MatrixBandPart(input, num_lower, num_upper): the band of each matrix kept, 0 elsewhere: i
    - j <= num_lower and j - i <= num_upper (a negative bound keeps the whole triangle)."""
    x, lower, upper = input_sources(node)
    rank = input_rank(node)
    if rank < 2:
        raise ConversionError("its input must have rank 2 or more.")
    diff = _row_minus_col(b, dim(b, x, rank - 2), dim(b, x, rank - 1))
    lower, upper = convert(b, lower, "i64"), convert(b, upper, "i64")
    keep_lower = b.LogicalOr(b.Less(lower, np.int64(0)), b.LessEqual(diff, lower))
    keep_upper = b.LogicalOr(b.Less(upper, np.int64(0)), b.LessEqual(b.Negative(diff), upper))
    return [b.Select(b.LogicalAnd(keep_lower, keep_upper), x, typed_const(b, 0, x.data.get_dtype()))]


@translator("tf", "BroadcastArgs")
def broadcast_args(node, b):
    """BroadcastArgs(s0, s1): the broadcast shape: both padded with leading 1s to one length,
    then where a dim of s0 is 1 the dim of s1, else the dim of s0."""
    s0, s1 = input_sources(node)
    n0, n1 = (p.data.get_shape()[0] if p.data.get_shape() else -1 for p in (s0, s1))
    if n0 < 0 or n1 < 0:
        raise ConversionError("the lengths of its shape inputs are not known; give the input shapes with --input.")
    dtype = s0.data.get_dtype()

    def padded(s, n):
        return s if n == max(n0, n1) else b.Concat(typed_const(b, [1] * (max(n0, n1) - n), dtype), s, axis=0)
    a, c = padded(s0, n0), padded(s1, n1)
    return [b.Select(b.Equal(a, typed_const(b, 1, dtype)), c, a)]


@translator("tf", "Bucketize")
def bucketize(node, b):
    """Bucketize(input, boundaries): the number of boundaries that each value is not below (NaN:
    all of them), as i32, compared as TensorFlow does: in f64 for an f64 input, else in f32."""
    x = node.in_port(0).get_source()
    bounds = np.asarray(TfExtractor.attr(node, "boundaries", []) or [], np.float32)
    et = "f64" if x.data.get_dtype() == "f64" else "f32"
    return [b.Bucketize(convert(b, x, et), typed_const(b, bounds, et), output_type="i32", with_right_bound=False)]


@translator("tf", "LowerBound", "UpperBound")
def search_sorted(node, b):
    """LowerBound/UpperBound(sorted_inputs [B, N], values [B, M]): for each value, the first
    index (UpperBound: past the last) where it would keep its row sorted, of ``out_type``."""
    sequence, values = input_sources(node)
    index = b.SearchSorted(sequence, values, right_mode=node.fw_op == "UpperBound")
    return [convert(b, index, TfExtractor.dtype(node, "out_type") or "i32")]


@translator("tf", "InvertPermutation")
def invert_permutation(node, b):
    """InvertPermutation(x): y[x[i]] = i."""
    x = node.in_port(0).get_source()
    dtype = x.data.get_dtype()
    positions = b.Range(typed_const(b, 0, dtype), b.Convert(dim(b, x, 0), destination_type=dtype),
                        typed_const(b, 1, dtype), output_type=dtype)
    return [b.ScatterUpdate(b.Broadcast(typed_const(b, 0, dtype), shape_of(b, x), mode="numpy"), x, positions,
                            np.int64(0))]


@translator("tf", "ListDiff")
def list_diff(node, b):
    """ListDiff(x, y): the elements of x not in y, in order, and their positions in x."""
    x, y = input_sources(node)
    present = b.ReduceLogicalOr(b.Equal(b.Unsqueeze(x, i64(1)), b.Unsqueeze(y, i64(0))), i64(1), keep_dims=False)
    idx_type = TfExtractor.dtype(node, "out_idx") or "i32"
    positions = b.Squeeze(b.NonZero(b.LogicalNot(present), output_type=idx_type), i64(0))
    return [b.Gather(x, positions, np.int64(0)), positions]


@translator("tf", "ShapeN")
def shape_n(node, b):
    """The shape of each input, of ``out_type``."""
    out_type = TfExtractor.dtype(node, "out_type") or "i32"
    return [b.ShapeOf(p, output_type=out_type) for p in input_sources(node)]


def row_major_strides(b, dims, n: int):
    """Row-major strides of a 1-D shape tensor of static length ``n``: stride[i] = prod(dims[i+1:])."""
    parts = [b.ReduceProd(b.Slice(dims, i64(i + 1), i64(n), i64(1), i64(0)), i64(0), keep_dims=True)
             for i in range(n - 1)]
    return b.Concat(*parts, b.ConvertLike(i64(1), dims), axis=0) if parts else b.ConvertLike(i64(1), dims)


@translator("tf", "UnravelIndex")
def unravel_index(node, b):
    """UnravelIndex(indices, dims): the coordinates [len(dims), *indices.shape] of flat indices
    in a row-major array of shape dims: (index / stride) mod dim."""
    indices, dims = input_sources(node)
    shape = dims.data.get_shape()
    if not shape or shape[0] < 0:
        raise ConversionError("the length of its dims (input 1) is not known; give the input shapes with --input.")
    rank = rank_of(indices, node)
    strides, extent = row_major_strides(b, dims, shape[0]), dims
    if rank:
        axes = np.arange(1, rank + 1, dtype=np.int64)
        strides, extent = b.Unsqueeze(strides, axes), b.Unsqueeze(dims, axes)
    return [b.FloorMod(b.Divide(b.Unsqueeze(indices, i64(0)), strides, m_pythondiv=False), extent)]

