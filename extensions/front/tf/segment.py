"""TensorFlow segment reductions: Segment*, UnsortedSegment* and SparseSegment*, built as a
ScatterNDUpdate with a reduction of the data rows into a tensor of one row per segment.

Segment k of the output reduces the rows of data whose segment id is k; the ids address the
leading dims of data (``ids.rank`` of them). A segment no id names holds what TensorFlow gives
it: 0 for sorted segments (1 for a product), the identity of the reduction for unsorted ones (the
lowest value for max, the highest for min, 1 for a product). Unsorted segment ids that are
negative are dropped, as TensorFlow drops them.
"""
from __future__ import annotations

import numpy as np

from mo.front.translator import translator
from mo.graph.building import convert, dims_slice, i64, rank_of, shape_of, typed_const
from mo.utils.types import is_int, np_dtype

# op name suffix -> ScatterNDUpdate reduction
REDUCTIONS = {"Sum": "sum", "Prod": "prod", "Max": "max", "Min": "min", "Mean": "sum", "SqrtN": "sum"}


def _extreme(dtype: str, reduction: str):
    """The identity of ``reduction`` in ``dtype``, as TensorFlow's unsorted segment ops use it."""
    if reduction == "sum":
        return 0
    if reduction == "prod":
        return 1
    info = np.iinfo(np_dtype(dtype)) if is_int(dtype) else np.finfo(np_dtype(dtype))
    return info.min if reduction == "max" else info.max


def _count(b, port):
    """A segment count given as a scalar, as a [1] i64 tensor."""
    return b.Reshape(convert(b, port, "i64"), i64(1), special_zero=False)


def segment_rows(b, node, data, ids, count, reduction: str, init):
    """``count`` (a [1] i64 tensor) rows, each the ``reduction`` of the data rows whose id is its
    index, starting from ``init``."""
    tail = dims_slice(b, shape_of(b, data), rank_of(ids, node))
    base = b.Broadcast(typed_const(b, init, data.data.get_dtype()), b.Concat(count, tail, axis=0), mode="numpy")
    return b.ScatterNDUpdate(base, b.Unsqueeze(ids, i64(-1)), data, reduction=reduction)


def segment_counts(b, ids, count, dtype: str, rank: int):
    """How many ids each segment has, in ``dtype``, shaped [count, 1, ...] to broadcast over
    ``rank``-dim rows."""
    zeros = b.Broadcast(typed_const(b, 0, dtype), count, mode="numpy")
    ones = b.Broadcast(typed_const(b, 1, dtype), shape_of(b, ids), mode="numpy")
    counts = b.ScatterNDUpdate(zeros, b.Unsqueeze(ids, i64(-1)), ones, reduction="sum")
    return b.Unsqueeze(counts, np.arange(1, rank, dtype=np.int64)) if rank > 1 else counts


def sorted_segments(b, node, data, ids, count, kind: str):
    """Segment reduction of sorted ids: empty segments are 0 (1 for Prod); Mean divides by the
    count, SqrtN by its square root."""
    dtype = data.data.get_dtype()
    reduction = REDUCTIONS[kind]
    rows = segment_rows(b, node, data, ids, count, reduction, _extreme(dtype, reduction))
    if kind in ("Sum", "Prod"):
        return rows
    counts = segment_counts(b, ids, count, dtype, rows.data.get_rank())
    zero = typed_const(b, 0, dtype)
    if kind in ("Mean", "SqrtN"):
        divisor = b.Maximum(counts, typed_const(b, 1, dtype))
        return b.Divide(rows, divisor if kind == "Mean" else b.Sqrt(divisor), m_pythondiv=False)
    return b.Select(b.Greater(counts, zero), rows, zero)


def _count_from_ids(b, ids):
    """max(ids) + 1 as a [1] i64 tensor (sorted ids: the last one)."""
    flat = b.Reshape(convert(b, ids, "i64"), i64(-1), special_zero=False)
    return b.Add(b.ReduceMax(flat, i64(0), keep_dims=True), i64(1))


@translator("tf", "SegmentSum", "SegmentProd", "SegmentMax", "SegmentMin", "SegmentMean")
def segment(node, b):
    """Segment*(data, segment_ids): sorted ids; as many segments as the last id + 1."""
    data, ids = node.in_port(0).get_source(), node.in_port(1).get_source()
    return [sorted_segments(b, node, data, ids, _count_from_ids(b, ids), node.fw_op[len("Segment"):])]


@translator("tf", "UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax", "UnsortedSegmentMin")
def unsorted_segment(node, b):
    """UnsortedSegment*(data, segment_ids, num_segments): ids in any order; a negative id's rows
    go to an extra row, sliced off."""
    data, ids, num = (node.in_port(i).get_source() for i in range(3))
    reduction = REDUCTIONS[node.fw_op[len("UnsortedSegment"):]]
    count = _count(b, num)
    ids = convert(b, ids, "i64")
    ids = b.Select(b.Less(ids, np.int64(0)), b.Reshape(count, i64(), special_zero=False), ids)
    rows = segment_rows(b, node, data, ids, b.Add(count, i64(1)), reduction, _extreme(data.data.get_dtype(), reduction))
    return [b.Slice(rows, i64(0), count, i64(1), i64(0))]


@translator("tf", "SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN", "SparseSegmentSumWithNumSegments",
            "SparseSegmentMeanWithNumSegments", "SparseSegmentSqrtNWithNumSegments")
def sparse_segment(node, b):
    """SparseSegment*(data, indices, segment_ids[, num_segments]): the rows data[indices]
    reduced by sorted segment ids; Mean and SqrtN divide by the count (its square root)."""
    data, indices, ids = (node.in_port(i).get_source() for i in range(3))
    kind = node.fw_op[len("SparseSegment"):].replace("WithNumSegments", "")
    rows = b.Gather(data, indices, np.int64(0))
    count = _count(b, node.in_port(3).get_source()) if node.is_in_port_connected(3) else _count_from_ids(b, ids)
    return [sorted_segments(b, node, rows, ids, count, kind)]
