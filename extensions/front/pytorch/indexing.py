"""Lowering of the ATen indexing operations: slice, select, index (advanced indexing), index_select,
gather, scatter / scatter_add / scatter_reduce, index_put, slice_scatter / select_scatter,
embedding, one_hot, nonzero."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import AtenOp, convert, dim_size, norm_axis, rank_of, scalar_int, shape_of
from extensions.front.pytorch.shape import INT64_MAX, sliced
from mo.errors import ConversionError
from mo.graph.port import Port

SCATTER_REDUCTIONS = {"add": "sum", "sum": "sum", "multiply": "prod", "prod": "prod", "mean": "mean",
                      "amax": "max", "amin": "min"}


def _bound(a, key, default):
    """A slice bound: an int, or a computed scalar."""
    if a.is_none(key):
        return default
    value = a.value(key)
    if value is not None:
        return int(value)
    return a.tensor(key)


def positive_index(b, index: Port, size: Port) -> Port:
    """Negative indices counted from the end (index + size where index < 0)."""
    index = convert(b, index, "i64")
    if index.node.op == "Const" and np.all(index.node.value >= 0):
        return index
    return b.Select(b.Less(index, b.const(np.int64(0))), b.Add(index, size), index)


class AtenSlice(AtenOp):
    """slice(dim, start, end, step) as Slice; select(dim, index) as Gather of one index."""

    op = "pytorch::Slice"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        rank = rank_of(x, node)
        axis = norm_axis(a.const("dim", 0), rank, node)
        if node.fw_op == "aten::select":
            return [b.Gather(x, scalar_int(b, _bound(a, "index", 0)), b.const(np.int64(axis)))]
        start, end = _bound(a, "start", 0), _bound(a, "end", INT64_MAX)
        step = int(a.const("step", 1))
        if start == 0 and end == INT64_MAX and step == 1:
            return [x]
        return [sliced(b, x, axis, start, end, step)]


def _index_tensors(b, a, x, node) -> list[tuple[int, Port]]:
    """(dim, integer index tensor) pairs of aten::index / index_put indices; a boolean mask over
    dims d..d+k-1 becomes k index tensors (its nonzero coordinates)."""
    result = []
    dim = 0
    for item in a.tensors(1):
        if item is None:
            dim += 1
            continue
        if item.data.get_dtype() in ("boolean", "u8"):
            mask_rank = rank_of(item, node)
            coords = b.NonZero(convert(b, item, "boolean"), output_type="i64")   # [k, n]
            for j in range(mask_rank):
                result.append((dim + j, b.Gather(coords, b.const(np.int64(j)), b.const(np.int64(0)))))
            dim += mask_rank
        else:
            result.append((dim, convert(b, item, "i64")))
            dim += 1
    return result


class AtenIndex(AtenOp):
    """x[indices]: one index tensor is a Gather; several broadcast together and gather with
    GatherND over the indexed dims moved to the front; the result dims go where PyTorch puts
    them (in place of adjacent indexed dims, else in front)."""

    op = "pytorch::Index"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        rank = rank_of(x, node)
        pairs = _index_tensors(b, a, x, node)
        if not pairs:
            return [x]
        if len(pairs) == 1:
            dim, index = pairs[0]
            return [b.Gather(x, index, b.const(np.int64(dim)))]
        dims = [d for d, _ in pairs]
        rest = [d for d in range(rank) if d not in dims]
        moved = b.Transpose(x, b.const(np.array(dims + rest, np.int64))) if dims + rest != list(range(rank)) else x
        indices = [positive_index(b, p, dim_size(b, x, d)) for d, p in pairs]
        target = indices[0]
        for p in indices[1:]:
            target = b.Add(b.Multiply(target, b.const(np.int64(0))), p)   # the broadcast shape of all
        stacked = b.Concat(*[b.Unsqueeze(b.Broadcast(p, shape_of(b, target), mode="bidirectional"),
                                         b.const(np.int64(-1))) for p in indices], axis=-1)
        gathered = b.GatherND(moved, stacked, batch_dims=0)
        adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
        if not adjacent or dims[0] == 0:
            return [gathered]
        # [B..., before..., after...] -> [before..., B..., after...]
        bcast = rank_of(target, node)
        before = dims[0]
        order = list(range(bcast, bcast + before)) + list(range(bcast)) + \
            list(range(bcast + before, bcast + len(rest)))
        return [b.Transpose(gathered, b.const(np.array(order, np.int64)))]


class AtenIndexPut(AtenOp):
    """index_put(indices, values, accumulate): a boolean mask of x's shape is a Select; index
    tensors scatter the (broadcast) values with ScatterNDUpdate."""

    op = "pytorch::IndexPut"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        et = x.data.get_dtype()
        values = convert(b, a.tensor("values"), et)
        accumulate = bool(a.const("accumulate", False))
        items = a.tensors(1)
        if len(items) == 1 and items[0] is not None and items[0].data.get_dtype() == "boolean" \
                and items[0].data.get_rank() == x.data.get_rank() and values.data.get_rank() == 0 and not accumulate:
            return [b.Select(items[0], values, x)]
        pairs = _index_tensors(b, a, x, node)
        dims = [d for d, _ in pairs]
        if dims != list(range(len(dims))):
            raise ConversionError(f"index_put on dims {dims} (not leading) is not supported ({node.name}).")
        indices = [positive_index(b, p, dim_size(b, x, d)) for d, p in pairs]
        target = indices[0]
        for p in indices[1:]:
            target = b.Add(b.Multiply(target, b.const(np.int64(0))), p)
        stacked = b.Concat(*[b.Unsqueeze(b.Broadcast(p, shape_of(b, target), mode="bidirectional"),
                                         b.const(np.int64(-1))) for p in indices], axis=-1)
        rank = rank_of(x, node)
        slice_shape = b.Concat(shape_of(b, target), b.Slice(shape_of(b, x), b.const(np.array([len(dims)], np.int64)),
                                                           b.const(np.array([rank], np.int64)),
                                                           b.const(np.array([1], np.int64))), axis=0)
        updates = b.Broadcast(values, slice_shape, mode="numpy")
        return [b.ScatterNDUpdate(x, stacked, updates, reduction="sum" if accumulate else "none")]


class AtenGather(AtenOp):
    """index_select(dim, index) / embedding as Gather, gather(dim, index) as GatherElements."""

    op = "pytorch::Gather"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        if kind == "aten::embedding":
            return [b.Gather(a.tensor(0), convert(b, a.tensor(1), "i64"), b.const(np.int64(0)))]
        x = a.tensor(0)
        axis = norm_axis(a.const("dim"), rank_of(x, node), node)
        index = convert(b, a.tensor("index"), "i64")
        if kind == "aten::index_select":
            return [b.Gather(x, index, b.const(np.int64(axis)))]
        return [b.GatherElements(x, index, axis=axis)]


class AtenScatter(AtenOp):
    """scatter(dim, index, src | value[, reduce]) / scatter_add / scatter_reduce as
    ScatterElementsUpdate."""

    op = "pytorch::Scatter"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        et = x.data.get_dtype()
        axis = norm_axis(a.const("dim"), rank_of(x, node), node)
        index = convert(b, a.tensor("index"), "i64")
        source = a.tensor("src" if a.has("src") else "value")
        if source.data.get_rank() == 0 or a.is_weak("src" if a.has("src") else "value"):
            source = b.Broadcast(source, shape_of(b, index), mode="numpy")
        elif source.data.get_shape() != index.data.get_shape():   # only src[:index.shape] is read
            rank = rank_of(index, node)
            source = b.Slice(source, b.const(np.zeros(rank, np.int64)), shape_of(b, index),
                             b.const(np.ones(rank, np.int64)), b.const(np.arange(rank, dtype=np.int64)))
        source = convert(b, source, et)
        reduction, init = "none", True
        if node.fw_op == "aten::scatter_add":
            reduction = "sum"
        elif a.has("reduce") and a.const("reduce", None) is not None:
            reduction = SCATTER_REDUCTIONS[a.const("reduce")]
            init = bool(a.const("include_self", True))
        return [b.ScatterElementsUpdate(x, index, source, b.const(np.int64(axis)), reduction=reduction,
                                        use_init_val=init)]


class AtenSliceScatter(AtenOp):
    """slice_scatter(src, dim, start, end, step) and select_scatter(src, dim, index): src written
    into the sliced positions with ScatterUpdate."""

    op = "pytorch::SliceScatter"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        src = convert(b, a.tensor(1), x.data.get_dtype())
        axis = norm_axis(a.const("dim", 0), rank_of(x, node), node)
        size = dim_size(b, x, axis)
        if node.fw_op == "aten::select_scatter":
            index = positive_index(b, scalar_int(b, _bound(a, "index", 0)), size)
            indices = b.Reshape(index, b.const(np.array([1], np.int64)), special_zero=False)
            src = b.Unsqueeze(src, b.const(np.int64(axis)))
        else:
            start, end = _bound(a, "start", 0), _bound(a, "end", INT64_MAX)
            step = int(a.const("step", 1))
            positions = b.Range(b.const(np.int64(0)), size, b.const(np.int64(1)), output_type="i64")
            indices = sliced(b, positions, 0, start, end, step)
        return [b.ScatterUpdate(x, indices, src, b.const(np.int64(axis)))]


class AtenOneHot(AtenOp):
    """one_hot(num_classes) as OneHot (i64 result; -1 classes: max index + 1)."""

    op = "pytorch::OneHot"

    @classmethod
    def build(cls, node, a, b):
        x = convert(b, a.tensor(0), "i64")
        classes = int(a.const("num_classes", -1))
        if classes < 0:
            axes = b.const(np.arange(rank_of(x, node), dtype=np.int64))
            depth = b.Add(b.ReduceMax(x, axes, keep_dims=False), b.const(np.int64(1)))
        else:
            depth = b.const(np.int64(classes))
        return [b.OneHot(x, depth, b.const(np.int64(1)), b.const(np.int64(0)), axis=-1)]


class AtenNonZero(AtenOp):
    """nonzero: [n, rank] coordinates (NonZero gives [rank, n])."""

    op = "pytorch::NonZero"

    @classmethod
    def build(cls, node, a, b):
        coords = b.NonZero(a.tensor(0), output_type="i64")
        return [b.Transpose(coords, b.const(np.array([1, 0], np.int64)))]
