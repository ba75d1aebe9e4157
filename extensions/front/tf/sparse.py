"""TensorFlow sparse tensors given as (indices [N, rank], values [N], dense_shape [rank]):
SparseToDense, SparseTensorDenseAdd, SparseTensorDenseMatMul, SparseFillEmptyRows and
SparseReshape, built from ScatterNDUpdate, NonZero, TopK and Gather. (The SparseSegment*
reductions are in segment.py.)"""
from __future__ import annotations

import numpy as np

from extensions.front.tf.array import row_major_strides
from extensions.front.tf.scatter import filled
from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import convert, dim, i64, input_sources, rank_of, shape_of


def _static_length(port, node, what: str) -> int:
    """The number of elements of a 1-D shape input, which the graph's form depends on."""
    shape = port.data.get_shape()
    if shape is None or len(shape) != 1 or shape[0] < 0:
        raise ConversionError(f"the length of its {what} is not known; give the input shapes with --input.")
    return int(shape[0])


def _dense(b, indices, values, shape):
    """The dense tensor of ``shape`` with the values at the indices (duplicates add up)."""
    base = filled(b, 0, values.data.get_dtype(), convert(b, shape, "i64"))
    return b.ScatterNDUpdate(base, indices, values, reduction="sum")


@translator("tf", "SparseToDense")
def sparse_to_dense(node, b):
    """SparseToDense(sparse_indices, output_shape, sparse_values, default_value): default_value
    everywhere but at the indices (0-D: one index of a 1-D output, 1-D: one index per element,
    2-D: one row per element), which take the values (a scalar value goes everywhere)."""
    indices, shape, values, default = input_sources(node)
    width = indices.data.get_shape()[1] if rank_of(indices, node) == 2 else 1
    if width < 0:
        raise ConversionError("the width of its sparse_indices is not known; give the input shapes with --input.")
    indices = b.Reshape(indices, i64(-1, width), special_zero=False)
    values = b.Broadcast(values, b.Reshape(dim(b, indices, 0), i64(1), special_zero=False), mode="numpy")
    base = b.Broadcast(default, convert(b, shape, "i64"), mode="numpy")
    return [b.ScatterNDUpdate(base, indices, values, reduction="none")]


@translator("tf", "SparseTensorDenseAdd")
def sparse_tensor_dense_add(node, b):
    """SparseTensorDenseAdd(a_indices, a_values, a_shape, b): b with the values added."""
    indices, values, _, dense = input_sources(node)
    return [b.ScatterNDUpdate(dense, indices, values, reduction="sum")]


@translator("tf", "SparseTensorDenseMatMul")
def sparse_tensor_dense_mat_mul(node, b):
    """SparseTensorDenseMatMul(a_indices, a_values, a_shape, b): a made dense, then MatMul with
    ``adjoint_a``/``adjoint_b`` as transposes."""
    indices, values, shape, dense = input_sources(node)
    a = _dense(b, indices, values, shape)
    return [b.MatMul(a, dense, transpose_a=bool(TfExtractor.attr(node, "adjoint_a", False)),
                     transpose_b=bool(TfExtractor.attr(node, "adjoint_b", False)))]


@translator("tf", "SparseFillEmptyRows")
def sparse_fill_empty_rows(node, b):
    """SparseFillEmptyRows(indices, values, dense_shape, default_value): an entry (row, 0, ...)
    of default_value added for each row with no entry, entries ordered by row (stable);
    outputs the new indices and values, which rows were empty, and where each input entry went."""
    indices, values, dense_shape, default = input_sources(node)
    width = _static_length(dense_shape, node, "dense_shape")
    rows = b.Gather(indices, np.int64(0), np.int64(1))
    num_rows = b.Slice(convert(b, dense_shape, "i64"), i64(0), i64(1), i64(1), i64(0))
    counts = b.ScatterNDUpdate(filled(b, 0, "i64", num_rows), b.Unsqueeze(rows, i64(-1)),
                               filled(b, 1, "i64", shape_of(b, rows)), reduction="sum")
    empty = b.Equal(counts, np.int64(0))
    empty_rows = b.Squeeze(b.NonZero(empty, output_type="i64"), i64(0))
    added = b.Unsqueeze(empty_rows, i64(1))
    if width > 1:
        zeros = filled(b, 0, "i64", b.Concat(shape_of(b, empty_rows), i64(width - 1), axis=0))
        added = b.Concat(added, zeros, axis=1)
    all_indices = b.Concat(convert(b, indices, "i64"), added, axis=0)
    all_values = b.Concat(values, b.Broadcast(default, shape_of(b, empty_rows), mode="numpy"), axis=0)
    all_rows = b.Gather(all_indices, np.int64(0), np.int64(1))
    total = dim(b, all_rows, 0)
    _, order = b.TopK(all_rows, total, axis=0, mode="min", sort="value", index_element_type="i64", stable=True)
    positions = b.Range(np.int64(0), total, np.int64(1), output_type="i64")
    where = b.ScatterUpdate(filled(b, 0, "i64", shape_of(b, all_rows)), order, positions, np.int64(0))
    reverse_map = b.Slice(where, i64(0), shape_of(b, rows), i64(1), i64(0))
    return [b.Gather(all_indices, order, np.int64(0)), b.Gather(all_values, order, np.int64(0)), empty, reverse_map]


@translator("tf", "SparseReshape")
def sparse_reshape(node, b):
    """SparseReshape(input_indices, input_shape, new_shape): each index made a row-major flat
    position in input_shape and unravelled in new_shape (its -1 resolved); outputs the new
    indices and the new shape."""
    indices, in_shape, new_shape = input_sources(node)
    in_rank = _static_length(in_shape, node, "input_shape")
    out_rank = _static_length(new_shape, node, "new_shape")
    in_shape, new_shape = convert(b, in_shape, "i64"), convert(b, new_shape, "i64")
    total = b.ReduceProd(in_shape, i64(0), keep_dims=True)
    known = b.Negative(b.ReduceProd(new_shape, i64(0), keep_dims=True))
    missing = b.Divide(total, b.Maximum(known, i64(1)), m_pythondiv=False)
    out_shape = b.Select(b.Equal(new_shape, np.int64(-1)), missing, new_shape)
    flat = b.ReduceSum(b.Multiply(convert(b, indices, "i64"), b.Unsqueeze(row_major_strides(b, in_shape, in_rank),
                                                                          i64(0))), i64(1), keep_dims=True)
    strides = b.Unsqueeze(row_major_strides(b, out_shape, out_rank), i64(0))
    return [b.FloorMod(b.Divide(flat, strides, m_pythondiv=False), b.Unsqueeze(out_shape, i64(0))), out_shape]
