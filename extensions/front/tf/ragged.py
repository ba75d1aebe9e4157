"""TensorFlow ragged tensors made dense or sparse: RaggedTensorToTensor and
RaggedTensorToSparse, by index arithmetic over the row partitions and Gather; and RaggedRange.

A ragged tensor is flat values [V, ...] and, per ragged dimension, a row partition: ROW_SPLITS
(row r holds the elements splits[r]..splits[r + 1]) or VALUE_ROWIDS (the row of each element,
sorted; the first dimension's row count is then a FIRST_DIM_SIZE partition)."""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import INT64_MAX, convert, dim, i64, input_sources, rank_of, typed_const
from mo.utils.types import is_int


def _splits(b, node, partitions: list, types: list[str]) -> tuple:
    """(number of rows of the first dim as a 0-d i64 port, the row splits of each ragged dim)."""
    rows = None
    if types and types[0] == "FIRST_DIM_SIZE":
        rows = b.Reshape(convert(b, partitions[0], "i64"), i64(), special_zero=False)
        partitions, types = partitions[1:], types[1:]
    splits = []
    for part, kind in zip(partitions, types):
        part = convert(b, part, "i64")
        if kind == "ROW_SPLITS":
            splits.append(part)
        elif kind == "VALUE_ROWIDS":
            if rows is None and not splits:
                raise ConversionError("a VALUE_ROWIDS partition of the first dim needs a FIRST_DIM_SIZE before it.")
            # the rows of this dim are the elements of the one before: its last split
            parents = rows if not splits else b.Gather(splits[-1], np.int64(-1), np.int64(0))
            starts = b.Range(np.int64(0), b.Add(parents, np.int64(1)), np.int64(1), output_type="i64")
            splits.append(b.SearchSorted(part, starts))
        else:
            raise ConversionError(f"row partitions of type {kind} are not supported (ROW_SPLITS, VALUE_ROWIDS "
                                  f"and FIRST_DIM_SIZE are).")
    if not splits:
        raise ConversionError("it has no row partition.")
    if rows is None:
        rows = b.Subtract(dim(b, splits[0], 0), np.int64(1))
    return rows, splits


def _lengths(b, splits):
    """Row lengths: splits[1:] - splits[:-1]."""
    return b.Subtract(b.Slice(splits, i64(1), i64(INT64_MAX), i64(1), i64(0)),
                      b.Slice(splits, i64(0), i64(-1), i64(1), i64(0)))


def _longest(b, splits):
    """The longest row as a 0-d i64 port (0 without rows)."""
    lengths = b.Concat(i64(0), _lengths(b, splits), axis=0)
    return b.ReduceMax(lengths, i64(0), keep_dims=False)


@translator("tf", "RaggedTensorToTensor")
def ragged_to_tensor(node, b):
    """RaggedTensorToTensor(shape, values, default_value, row_partition_tensors...): element
    [r, c1, ..., cK, ...] is values[p_K] where p_0 = r and p_k = splits_k[p_{k-1}] + c_k, while
    each c_k is within its row; default_value elsewhere. Each dim is the shape's (a -1 or an
    unknown shape: the least that holds every row)."""
    ports = input_sources(node)
    shape, values, default = ports[:3]
    types = [str(t) for t in TfExtractor.attr(node, "row_partition_types", []) or []]
    rows, splits = _splits(b, node, ports[3:], types)
    ragged = len(splits)
    wanted = shape.data.get_value()
    wanted = None if wanted is None or np.ndim(wanted) == 0 else np.asarray(wanted).reshape(-1)
    if wanted is None and shape.data.get_rank() not in (0, None):
        raise ConversionError("its shape (input 0) is computed by the model; only a constant shape is supported.")
    sizes = [rows] + [_longest(b, s) for s in splits]
    if wanted is not None:
        sizes = [b.const(np.int64(w)) if w >= 0 else s for w, s in zip(wanted, sizes)]
    position = b.Range(np.int64(0), sizes[0], np.int64(1), output_type="i64")
    valid = b.Less(position, rows)
    for k, split in enumerate(splits):
        safe = b.Select(valid, position, np.int64(0))
        start = b.Gather(split, safe, np.int64(0))
        length = b.Gather(_lengths(b, split), safe, np.int64(0))
        column = b.Range(np.int64(0), sizes[k + 1], np.int64(1), output_type="i64")
        position = b.Add(b.Unsqueeze(start, i64(-1)), column)
        valid = b.LogicalAnd(b.Unsqueeze(valid, i64(-1)), b.Less(column, b.Unsqueeze(length, i64(-1))))
    gathered = b.Gather(values, b.Select(valid, position, np.int64(0)), np.int64(0))
    inner = rank_of(values, node) - 1
    if inner:
        valid = b.Unsqueeze(valid, np.arange(ragged + 1, ragged + 1 + inner, dtype=np.int64))
    return [b.Select(valid, gathered, default)]


@translator("tf", "RaggedTensorToSparse")
def ragged_to_sparse(node, b):
    """RaggedTensorToSparse(rt_nested_splits..., rt_dense_values [V]): the index of each value
    [r, c1, ..., cK] (its row at each level found in the splits: the last split not above it),
    the values, and the dense shape [rows, longest row of each level]."""
    ports = input_sources(node)
    splits, values = [convert(b, p, "i64") for p in ports[:-1]], ports[-1]
    if rank_of(values, node) != 1:
        raise ConversionError("ragged values of rank above 1 are not supported.")
    element = b.Range(np.int64(0), dim(b, values, 0), np.int64(1), output_type="i64")
    columns = []
    for split in reversed(splits):
        row = b.Subtract(b.SearchSorted(split, element, right_mode=True), np.int64(1))
        columns.append(b.Subtract(element, b.Gather(split, row, np.int64(0))))
        element = row
    columns.append(element)
    indices = b.Concat(*[b.Unsqueeze(c, i64(1)) for c in reversed(columns)], axis=1)
    rows = b.Subtract(dim(b, splits[0], 0), np.int64(1))
    shape = b.Concat(*[b.Unsqueeze(s, i64(0)) for s in [rows] + [_longest(b, s) for s in splits]], axis=0)
    return [indices, values, shape]



@translator("tf", "RaggedRange")
def ragged_range(node, b):
    """RaggedRange(starts, limits, deltas): one row per (broadcast) triple, the range from
    start towards limit by delta (empty when delta points away); outputs the row splits
    (``Tsplits``) and the values. Row sizes as TensorFlow counts them: ceil(|limit - start| /
    |delta|), in integer arithmetic for integers."""
    starts, limits, deltas = input_sources(node)
    dtype = starts.data.get_dtype()
    zero = typed_const(b, 0, dtype)
    common = b.ShapeOf(b.Add(b.Add(b.Multiply(starts, zero), b.Multiply(limits, zero)), b.Multiply(deltas, zero)),
                       output_type="i64")
    starts, limits, deltas = (b.Reshape(b.Broadcast(t, common, mode="numpy"), i64(-1), special_zero=False)
                              for t in (starts, limits, deltas))
    span, step = b.Abs(b.Subtract(limits, starts)), b.Abs(deltas)
    if is_int(dtype):
        count = b.Divide(b.Subtract(b.Add(span, step), typed_const(b, 1, dtype)), step, m_pythondiv=False)
    else:
        count = b.Ceiling(b.Divide(span, step))
    away = b.LogicalOr(b.LogicalAnd(b.Greater(deltas, zero), b.Less(limits, starts)),
                       b.LogicalAnd(b.Less(deltas, zero), b.Greater(limits, starts)))
    sizes = b.Convert(b.Select(away, zero, count), destination_type="i64")
    splits = b.Concat(i64(0), b.CumSum(sizes, np.int64(0)), axis=0)
    element = b.Range(np.int64(0), b.Gather(splits, np.int64(-1), np.int64(0)), np.int64(1), output_type="i64")
    row = b.Subtract(b.SearchSorted(splits, element, right_mode=True), np.int64(1))
    offset = b.Convert(b.Subtract(element, b.Gather(splits, row, np.int64(0))), destination_type=dtype)
    values = b.Add(b.Gather(starts, row, np.int64(0)), b.Multiply(offset, b.Gather(deltas, row, np.int64(0))))
    return [convert(b, splits, TfExtractor.dtype(node, "Tsplits") or "i64"), values]
