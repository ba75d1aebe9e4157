"""ATen indexing operations: slice, select, index (advanced indexing), index_select, gather,
scatter / scatter_add / scatter_reduce, index_put, slice_scatter / select_scatter, embedding,
one_hot, nonzero: their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import dim_size, scalar_int
from extensions.front.pytorch.shape import sliced
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import INT64_MAX, convert, dims_slice, i64, norm_axis, rank_of, shape_of
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


def _axis(node, a, x, key: str = "dim", default=None) -> int:
    value = a.const(key) if default is None else a.const(key, default)
    return norm_axis(value, rank_of(x, node), node)


# ---------------------------------------------------------------------------- slicing


@aten("aten::slice")
def slice_(node, a, b):
    """x[start:end:step] along ``dim`` as Slice (bounds may be computed)."""
    x = a.tensor(0)
    axis = _axis(node, a, x, default=0)
    start, end = _bound(a, "start", 0), _bound(a, "end", INT64_MAX)
    step = _bound(a, "step", 1)
    if start == 0 and end == INT64_MAX and step == 1:
        return [x]
    return [sliced(b, x, axis, start, end, step)]


@aten("aten::select")
def select(node, a, b):
    """x.select(dim, index) as a Gather of one index."""
    x = a.tensor(0)
    return [b.Gather(x, scalar_int(b, _bound(a, "index", 0)), b.const(np.int64(_axis(node, a, x, default=0))))]


# ---------------------------------------------------------------------------- advanced indexing


def _index_tensors(b, a, node) -> list[tuple[int, Port]]:
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


def _stacked(b, x, pairs) -> tuple[Port, Port]:
    """The index tensors (negative indices counted from the end) broadcast together and stacked
    along a new last dim, for GatherND / ScatterNDUpdate; and one of the broadcast shape."""
    indices = [positive_index(b, p, dim_size(b, x, d)) for d, p in pairs]
    target = indices[0]
    for p in indices[1:]:
        target = b.Add(b.Multiply(target, b.const(np.int64(0))), p)   # the broadcast shape of all
    stacked = b.Concat(*[b.Unsqueeze(b.Broadcast(p, shape_of(b, target), mode="bidirectional"),
                                     b.const(np.int64(-1))) for p in indices], axis=-1)
    return target, stacked


@aten("aten::index")
def index(node, a, b):
    """x[indices]: one index tensor is a Gather; several broadcast together and gather with
    GatherND over the indexed dims moved to the front; the result dims go where PyTorch puts
    them (in place of adjacent indexed dims, else in front)."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    pairs = _index_tensors(b, a, node)
    if not pairs:
        return [x]
    if len(pairs) == 1:
        dim, indices = pairs[0]
        return [b.Gather(x, indices, b.const(np.int64(dim)))]
    dims = [d for d, _ in pairs]
    rest = [d for d in range(rank) if d not in dims]
    moved = b.Transpose(x, i64(dims + rest)) if dims + rest != list(range(rank)) else x
    target, stacked = _stacked(b, x, pairs)
    gathered = b.GatherND(moved, stacked, batch_dims=0)
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    if not adjacent or dims[0] == 0:
        return [gathered]
    # [B..., before..., after...] -> [before..., B..., after...]
    bcast = rank_of(target, node)
    before = dims[0]
    order = list(range(bcast, bcast + before)) + list(range(bcast)) + list(range(bcast + before, bcast + len(rest)))
    return [b.Transpose(gathered, i64(order))]


@aten("aten::index_put")
def index_put(node, a, b):
    """index_put(indices, values, accumulate): a boolean mask of x's shape is a Select; index
    tensors of the leading dims scatter the (broadcast) values with ScatterNDUpdate."""
    x = a.tensor(0)
    values = convert(b, a.tensor("values"), x.data.get_dtype())
    accumulate = bool(a.const("accumulate", False))
    items = a.tensors(1)
    if len(items) == 1 and items[0] is not None and items[0].data.get_dtype() == "boolean" \
            and items[0].data.get_rank() == x.data.get_rank() and values.data.get_rank() == 0 and not accumulate:
        return [b.Select(items[0], values, x)]
    pairs = _index_tensors(b, a, node)
    dims = [d for d, _ in pairs]
    if dims != list(range(len(dims))):
        raise ConversionError(f"index_put on dims {dims} (not the leading ones) is not supported.")
    target, stacked = _stacked(b, x, pairs)
    slice_shape = b.Concat(shape_of(b, target), dims_slice(b, shape_of(b, x), len(dims), rank_of(x, node)), axis=0)
    updates = b.Broadcast(values, slice_shape, mode="numpy")
    return [b.ScatterNDUpdate(x, stacked, updates, reduction="sum" if accumulate else "none")]


# ---------------------------------------------------------------------------- gathers


@aten("aten::index_select")
def index_select(node, a, b):
    x = a.tensor(0)
    return [b.Gather(x, convert(b, a.tensor("index"), "i64"), b.const(np.int64(_axis(node, a, x))))]


@aten("aten::gather")
def gather(node, a, b):
    """gather(dim, index) as GatherElements."""
    x = a.tensor(0)
    return [b.GatherElements(x, convert(b, a.tensor("index"), "i64"), axis=_axis(node, a, x))]


@aten("aten::embedding")
def embedding(node, a, b):
    """embedding(weight, indices): rows of the weight (padding_idx only matters for training)."""
    return [b.Gather(a.tensor(0), convert(b, a.tensor(1), "i64"), b.const(np.int64(0)))]


# ---------------------------------------------------------------------------- scatters


def _scatter(node, a, b, reduction: str | None):
    """ScatterElementsUpdate of ``src`` (or a number ``value``) at ``index`` along ``dim``;
    ``reduction`` None reads the ``reduce`` argument."""
    x = a.tensor(0)
    axis = _axis(node, a, x)
    index = convert(b, a.tensor("index"), "i64")
    key = "src" if a.has("src") else "value"
    source = a.tensor(key)
    if source.data.get_rank() == 0 or a.is_weak(key):
        source = b.Broadcast(source, shape_of(b, index), mode="numpy")
    elif source.data.get_shape() != index.data.get_shape():   # only src[:index.shape] is read
        rank = rank_of(index, node)
        source = b.Slice(source, i64([0] * rank), shape_of(b, index), i64([1] * rank), i64(list(range(rank))))
    source = convert(b, source, x.data.get_dtype())
    init = True
    if reduction is None:
        reduce = a.const("reduce", None) if a.has("reduce") else None
        reduction = "none" if reduce is None else SCATTER_REDUCTIONS[reduce]
        if reduce is not None:
            init = bool(a.const("include_self", True))
    return b.ScatterElementsUpdate(x, index, source, b.const(np.int64(axis)), reduction=reduction,
                                   use_init_val=init)


@aten("aten::scatter", "aten::scatter_reduce")
def scatter(node, a, b):
    """scatter(dim, index, src | value[, reduce]) / scatter_reduce(dim, index, src, reduce,
    include_self)."""
    return [_scatter(node, a, b, None)]


@aten("aten::scatter_add")
def scatter_add(node, a, b):
    return [_scatter(node, a, b, "sum")]


@aten("aten::slice_scatter")
def slice_scatter(node, a, b):
    """slice_scatter(src, dim, start, end, step): src written into the sliced positions."""
    x = a.tensor(0)
    src = convert(b, a.tensor(1), x.data.get_dtype())
    axis = _axis(node, a, x, default=0)
    start, end = _bound(a, "start", 0), _bound(a, "end", INT64_MAX)
    positions = b.Range(b.const(np.int64(0)), dim_size(b, x, axis), b.const(np.int64(1)), output_type="i64")
    indices = sliced(b, positions, 0, start, end, int(a.const("step", 1)))
    return [b.ScatterUpdate(x, indices, src, b.const(np.int64(axis)))]


@aten("aten::select_scatter")
def select_scatter(node, a, b):
    """select_scatter(src, dim, index): src written at one index of dim."""
    x = a.tensor(0)
    src = convert(b, a.tensor(1), x.data.get_dtype())
    axis = _axis(node, a, x, default=0)
    index = positive_index(b, scalar_int(b, _bound(a, "index", 0)), dim_size(b, x, axis))
    indices = b.Reshape(index, i64(1), special_zero=False)
    return [b.ScatterUpdate(x, indices, b.Unsqueeze(src, b.const(np.int64(axis))), b.const(np.int64(axis)))]


# ---------------------------------------------------------------------------- one_hot, nonzero


@aten("aten::one_hot")
def one_hot(node, a, b):
    """one_hot(num_classes) as OneHot (i64 result; -1 classes: max index + 1)."""
    x = convert(b, a.tensor(0), "i64")
    classes = int(a.const("num_classes", -1))
    if classes < 0:
        depth = b.Add(b.ReduceMax(x, i64(list(range(rank_of(x, node)))), keep_dims=False), b.const(np.int64(1)))
    else:
        depth = b.const(np.int64(classes))
    return [b.OneHot(x, depth, b.const(np.int64(1)), b.const(np.int64(0)), axis=-1)]


@aten("aten::nonzero")
def nonzero(node, a, b):
    """[n, rank] coordinates (NonZero gives [rank, n])."""
    return [b.Transpose(b.NonZero(a.tensor(0), output_type="i64"), i64(1, 0))]
