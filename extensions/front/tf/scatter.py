"""TensorFlow scatters and partitions: ScatterNd, TensorScatter{Update,Add,Sub,Max,Min},
ScatterNdNonAliasingAdd, DynamicStitch, ParallelDynamicStitch, DynamicPartition, Bincount and
DenseBincount, built from ScatterNDUpdate, NonZero and Gather."""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import convert, dim, dims_slice, i64, input_sources, rank_of, shape_of, typed_const

# op type -> ScatterNDUpdate reduction
TENSOR_SCATTER = {"TensorScatterUpdate": "none", "TensorScatterAdd": "sum", "TensorScatterSub": "sub",
                  "TensorScatterMax": "max", "TensorScatterMin": "min", "ScatterNdNonAliasingAdd": "sum"}


def filled(b, value, dtype: str, shape):
    """A tensor of ``shape`` (a 1-D port) filled with ``value`` in ``dtype``."""
    return b.Broadcast(typed_const(b, value, dtype), shape, mode="numpy")


@translator("tf", "ScatterNd")
def scatter_nd(node, b):
    """ScatterNd(indices, updates, shape): zeros of ``shape`` with updates added at indices
    (duplicates add up)."""
    indices, updates, shape = input_sources(node)
    base = filled(b, 0, updates.data.get_dtype(), convert(b, shape, "i64"))
    return [b.ScatterNDUpdate(base, indices, updates, reduction="sum")]


@translator("tf", *TENSOR_SCATTER)
def tensor_scatter(node, b):
    """TensorScatter*(tensor, indices, updates) and ScatterNdNonAliasingAdd(input, indices,
    updates): the tensor with the updates written or combined."""
    tensor, indices, updates = input_sources(node)
    return [b.ScatterNDUpdate(tensor, indices, updates, reduction=TENSOR_SCATTER[node.fw_op])]


def _flat_rows(b, port, lead: int):
    """``port`` with its first ``lead`` dims flattened into one."""
    if lead == 1:
        return port
    return b.Reshape(port, b.Concat(i64(-1), dims_slice(b, shape_of(b, port), lead), axis=0), special_zero=False)


@translator("tf", "DynamicStitch", "ParallelDynamicStitch")
def dynamic_stitch(node, b):
    """DynamicStitch(indices..., data...): merged[indices[m][i]] = data[m][i] for max(indices) +
    1 rows; a later index overwrites an earlier equal one."""
    ports = input_sources(node)
    n = len(ports) // 2
    indices, data = ports[:n], ports[n:]
    flat_idx, flat_data = [], []
    for idx, d in zip(indices, data):
        rank = rank_of(idx, node)
        flat_idx.append(b.Reshape(convert(b, idx, "i64"), i64(-1), special_zero=False))
        flat_data.append(_flat_rows(b, b.Unsqueeze(d, i64(0)) if rank == 0 else d, max(rank, 1)))
    idx = flat_idx[0] if n == 1 else b.Concat(*flat_idx, axis=0)
    rows = flat_data[0] if n == 1 else b.Concat(*flat_data, axis=0)
    count = b.Add(b.ReduceMax(idx, i64(0), keep_dims=True), i64(1))
    base = filled(b, 0, rows.data.get_dtype(), b.Concat(count, dims_slice(b, shape_of(b, rows), 1), axis=0))
    return [b.ScatterNDUpdate(base, b.Unsqueeze(idx, i64(-1)), rows, reduction="none")]


@translator("tf", "DynamicPartition")
def dynamic_partition(node, b):
    """DynamicPartition(data, partitions): output i holds the rows of data (over the leading
    dims that partitions covers) whose partition is i, in order."""
    data, parts = input_sources(node)
    n = int(TfExtractor.attr(node, "num_partitions", 1))
    lead = rank_of(parts, node)
    if lead == 0:
        data, parts, lead = b.Unsqueeze(data, i64(0)), b.Unsqueeze(parts, i64(0)), 1
    rows = _flat_rows(b, data, lead)
    flat = b.Reshape(parts, i64(-1), special_zero=False)
    outputs = []
    for i in range(n):
        where = b.NonZero(b.Equal(flat, typed_const(b, i, flat.data.get_dtype())), output_type="i64")
        outputs.append(b.Gather(rows, b.Squeeze(where, i64(0)), np.int64(0)))
    return outputs


@translator("tf", "Bincount", "DenseBincount")
def bincount(node, b):
    """Bincount(arr, size, weights) and DenseBincount(input, size, weights): output[v] sums the
    weights (or counts, when weights are empty) of the elements (of any shape) equal to v, for v
    in [0, size);
    other values are dropped (they go to an extra bin, sliced off). DenseBincount counts each
    row of a 2-D input apart, and ``binary_output`` gives 1 where a value occurs."""
    arr, size, weights = input_sources(node)
    shape = weights.data.get_shape()
    rank = rank_of(arr, node)
    if shape is None:
        raise ConversionError("the shape of its weights (input 2) is not known; give the input shapes with --input.")
    dense_rows = node.fw_op == "DenseBincount" and rank == 2
    if node.fw_op == "DenseBincount" and rank > 2:
        raise ConversionError(f"its input has rank {rank}; DenseBincount takes 1 or 2.")
    dtype = weights.data.get_dtype()
    binary = bool(TfExtractor.attr(node, "binary_output", False))
    size = b.Reshape(convert(b, size, "i64"), i64(1), special_zero=False)
    values = convert(b, arr, "i64")
    if 0 in shape or binary:
        weights = filled(b, 1, dtype, shape_of(b, values))
    size0 = b.Reshape(size, i64(), special_zero=False)
    outside = b.LogicalOr(b.Less(values, np.int64(0)), b.GreaterEqual(values, size0))
    index = b.Unsqueeze(b.Select(outside, size0, values), i64(-1))
    bins = b.Add(size, i64(1))
    if dense_rows:
        rows = dim(b, values, 0)
        row = b.Range(np.int64(0), rows, np.int64(1), output_type="i64")
        row = b.Broadcast(b.Unsqueeze(row, i64(1, 2)), shape_of(b, index), mode="numpy")
        index = b.Concat(row, index, axis=-1)
        bins = b.Concat(b.Unsqueeze(rows, i64(0)), bins, axis=0)
    counts = b.ScatterNDUpdate(filled(b, 0, dtype, bins), index, weights, reduction="sum")
    counts = b.Slice(counts, i64(0), size, i64(1), i64(-1))
    if binary:
        zero = typed_const(b, 0, dtype)
        counts = b.Select(b.Greater(counts, zero), typed_const(b, 1, dtype), zero)
    return [counts]
