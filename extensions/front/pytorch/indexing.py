"""ATen indexing operations: slice, select, index (advanced indexing), index_select, gather,
scatter / scatter_add / scatter_reduce, index_put, slice_scatter / select_scatter, embedding,
one_hot, nonzero, index_add / index_copy / index_fill, masked_select / masked_scatter,
take_along_dim, fill_diagonal, embedding_bag, as_strided (and its scatter), unfold,
searchsorted / bucketize, unique: their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, dim_size, reshape, scalar_int
from extensions.front.pytorch.elementwise import nonzero_coordinates
from extensions.front.pytorch.shape import sliced
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import INT64_MAX, convert, dims_slice, i64, int_list_port, norm_axis, rank_of, shape_of
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


@aten("aten::slice", "aten::slice_copy")
def slice_(node, a, b):
    """x[start:end:step] along ``dim`` as Slice (bounds may be computed)."""
    x = a.tensor(0)
    axis = _axis(node, a, x, default=0)
    start, end = _bound(a, "start", 0), _bound(a, "end", INT64_MAX)
    step = _bound(a, "step", 1)
    if start == 0 and end == INT64_MAX and step == 1:
        return [x]
    return [sliced(b, x, axis, start, end, step)]


@aten("aten::select", "aten::select_copy")
def select(node, a, b):
    """x.select(dim, index) as a Gather of one index."""
    x = a.tensor(0)
    return [b.Gather(x, scalar_int(b, _bound(a, "index", 0)), b.const(np.int64(_axis(node, a, x, default=0))))]


# ---------------------------------------------------------------------------- advanced indexing


def _index_tensors(b, a, node, key=1) -> list[tuple[int, Port]]:
    """(dim, integer index tensor) pairs of aten::index / index_put indices (argument ``key``); a
    boolean mask over dims d..d+k-1 becomes k index tensors (its nonzero coordinates)."""
    result = []
    dim = 0
    for item in a.tensors(key):
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


def _indexed(node, b, x, pairs):
    """x[indices] of (dim, index tensor) pairs: one index tensor is a Gather; several broadcast
    together and gather with GatherND over the indexed dims moved to the front; the result dims
    go where PyTorch puts them (in place of adjacent indexed dims, else in front)."""
    rank = rank_of(x, node)
    if not pairs:
        return x
    if len(pairs) == 1:
        dim, indices = pairs[0]
        return b.Gather(x, indices, b.const(np.int64(dim)))
    dims = [d for d, _ in pairs]
    rest = [d for d in range(rank) if d not in dims]
    moved = b.Transpose(x, i64(dims + rest)) if dims + rest != list(range(rank)) else x
    target, stacked = _stacked(b, x, pairs)
    gathered = b.GatherND(moved, stacked, batch_dims=0)
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    if not adjacent or dims[0] == 0:
        return gathered
    # [B..., before..., after...] -> [before..., B..., after...]
    bcast = rank_of(target, node)
    before = dims[0]
    order = list(range(bcast, bcast + before)) + list(range(bcast)) + list(range(bcast + before, bcast + len(rest)))
    return b.Transpose(gathered, i64(order))


@aten("aten::index", "aten::_unsafe_index")
def index(node, a, b):
    """x[indices] (see ``_indexed``)."""
    return [_indexed(node, b, a.tensor(0), _index_tensors(b, a, node))]


def _scattered(node, b, x, pairs, values, accumulate: bool):
    """x with ``values`` written (added) at the index tensors of the leading dims: ScatterNDUpdate
    of the values broadcast to the indexed slices."""
    dims = [d for d, _ in pairs]
    if dims != list(range(len(dims))):
        raise ConversionError(f"index_put on dims {dims} (not the leading ones) is not supported.")
    target, stacked = _stacked(b, x, pairs)
    slice_shape = b.Concat(shape_of(b, target), dims_slice(b, shape_of(b, x), len(dims), rank_of(x, node)), axis=0)
    updates = b.Broadcast(values, slice_shape, mode="numpy")
    if accumulate and x.data.get_dtype() == "boolean":     # a sum of booleans is their or: max as u8
        added = b.ScatterNDUpdate(convert(b, x, "u8"), stacked, convert(b, updates, "u8"), reduction="max")
        return convert(b, added, "boolean")
    return b.ScatterNDUpdate(x, stacked, updates, reduction="sum" if accumulate else "none")


@aten("aten::index_put")
def index_put(node, a, b):
    """index_put(indices, values, accumulate): a boolean mask of x's shape is a Select; index
    tensors of the leading dims scatter the (broadcast) values (see ``_scattered``)."""
    x = a.tensor(0)
    values = convert(b, a.tensor("values"), x.data.get_dtype())
    accumulate = bool(a.const("accumulate", False))
    items = a.tensors(1)
    if len(items) == 1 and items[0] is not None and items[0].data.get_dtype() == "boolean" \
            and items[0].data.get_rank() == x.data.get_rank() and values.data.get_rank() == 0 and not accumulate:
        return [b.Select(items[0], values, x)]
    return [_scattered(node, b, x, _index_tensors(b, a, node), values, accumulate)]


def _clamped_indices(node, b, a, x):
    """The index tensors of argument 2 (``indices``) clamped into [-size, size - 1] of their dims:
    the _unsafe_masked forms read them only where the mask is set."""
    pairs = []
    for d, p in _index_tensors(b, a, node, 2):
        size = dim_size(b, x, d)
        pairs.append((d, b.Minimum(b.Maximum(p, b.Negative(size)), b.Subtract(size, np.int64(1)))))
    return pairs


@aten("aten::_unsafe_masked_index")
def unsafe_masked_index(node, a, b):
    """_unsafe_masked_index(self, mask, indices, fill): self[indices] where mask, else fill."""
    x = a.tensor(0)
    gathered = _indexed(node, b, x, _clamped_indices(node, b, a, x))
    fill = convert(b, a.tensor("fill"), x.data.get_dtype())
    return [b.Select(convert(b, a.tensor("mask"), "boolean"), gathered, fill)]


@aten("aten::_unsafe_masked_index_put_accumulate")
def unsafe_masked_index_put_accumulate(node, a, b):
    """_unsafe_masked_index_put_accumulate(self, mask, indices, values): values added at indices
    where mask (0 elsewhere)."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    values = convert(b, a.tensor("values"), et)
    values = b.Select(convert(b, a.tensor("mask"), "boolean"), values, const(b, 0, et))
    return [_scattered(node, b, x, _clamped_indices(node, b, a, x), values, True)]


# ---------------------------------------------------------------------------- gathers


@aten("aten::index_select")
def index_select(node, a, b):
    """The slices at ``index`` (0-d or 1-D) along ``dim``; the dim keeps its place (a 0-d tensor
    stays 0-d)."""
    x = a.tensor(0)
    axis = _axis(node, a, x)
    index = reshape(b, convert(b, a.tensor("index"), "i64"), [-1])
    if rank_of(x, node) == 0:
        return [reshape(b, b.Gather(reshape(b, x, [1]), index, np.int64(0)), [])]
    return [b.Gather(x, index, b.const(np.int64(axis)))]


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
    """one_hot(num_classes) as OneHot (i64 result; -1 classes: max index + 1); a 0-d index as a
    1-D one (the CPU plugin takes no 0-d OneHot input)."""
    x = convert(b, a.tensor(0), "i64")
    scalar = rank_of(x, node) == 0
    if scalar:
        x = reshape(b, x, [1])
    classes = int(a.const("num_classes", -1))
    if classes < 0:
        depth = b.Add(b.ReduceMax(x, i64(list(range(rank_of(x, node)))), keep_dims=False), b.const(np.int64(1)))
    else:
        depth = b.const(np.int64(classes))
    y = b.OneHot(x, depth, b.const(np.int64(1)), b.const(np.int64(0)), axis=-1)
    return [b.Squeeze(y, i64(0)) if scalar else y]


@aten("aten::nonzero", "aten::argwhere")
def nonzero(node, a, b):
    """nonzero / argwhere: [n, rank] coordinates (see ``_coordinates``)."""
    return [_coordinates(b, a.tensor(0))]


def _coordinates(b, x):
    """[n, rank] coordinates of the non-zero elements (NonZero gives [rank, n]); a 0-d tensor
    gives [n, 0]."""
    if x.data.get_rank() == 0:
        count = dims_slice(b, b.ShapeOf(b.NonZero(_flat(b, x), output_type="i64")), 1, 2)
        return b.Broadcast(b.const(np.int64(0)), b.Concat(count, i64([0]), axis=0))
    return b.Transpose(b.NonZero(x, output_type="i64"), i64(1, 0))


@aten("aten::nonzero_static")
def nonzero_static(node, a, b):
    """nonzero(size, fill_value): the first ``size`` coordinate rows, rows of fill_value after
    the last one."""
    coords = _coordinates(b, a.tensor(0))
    size = int(a.const("size"))
    fill = int(a.const("fill_value", -1))
    rank = rank_of(a.tensor(0), node)
    padding = b.Broadcast(b.const(np.int64(fill)), i64([size, rank]))
    return [sliced(b, b.Concat(coords, padding, axis=0), 0, 0, size)]


@aten("aten::nonzero_numpy")
def nonzero_numpy(node, a, b):
    """nonzero(as_tuple=True): one 1-D tensor of coordinates per dim."""
    return nonzero_coordinates(node, b, a.tensor(0))


@aten("aten::take")
def take(node, a, b):
    """take(index): the flattened tensor's elements at ``index`` (negative counts from the end),
    in index's shape."""
    return [b.Gather(_flat(b, a.tensor(0)), convert(b, a.tensor("index"), "i64"), np.int64(0))]


# ---------------------------------------------------------------------------- index_add / copy / fill


def _along(b, index: Port, axis: int, rank: int) -> Port:
    """A 1-D ``index`` reshaped to lie along ``axis`` of a tensor of ``rank`` (1 elsewhere)."""
    others = [d for d in range(rank) if d != axis]
    return b.Unsqueeze(index, i64(others)) if others else index


def _flat(b, x: Port) -> Port:
    return b.Reshape(x, i64(-1), special_zero=False)


def _index_scatter(node, a, b, reduction: str):
    """self with the slices ``index`` along ``dim`` replaced by (``reduction`` "sum": added to)
    the slices of ``source`` in order: ScatterElementsUpdate of the index spread over source."""
    x = a.tensor(0)
    given = x.data.get_dtype()
    rank = rank_of(x, node)
    boolean = given == "boolean"       # booleans as u8: their sum is the or, their max
    if boolean:
        x, reduction = convert(b, x, "u8"), "max" if reduction == "sum" else reduction
    et = x.data.get_dtype()
    source = convert(b, a.tensor("source"), et)
    alpha = a.value("alpha") if a.has("alpha") and not a.is_none("alpha") else 1
    if alpha is None:       # computed by the model
        source = b.Multiply(source, convert(b, convert(b, a.tensor("alpha"), given), et))
    elif alpha != 1:
        source = b.Multiply(source, const(b, alpha, et))
    if rank == 0:
        y = source if reduction == "none" else (b.Maximum if boolean else b.Add)(x, source)
    else:
        axis = _axis(node, a, x)
        index = _along(b, _flat(b, convert(b, a.tensor("index"), "i64")), axis, rank)
        index = b.Broadcast(index, shape_of(b, source), mode="numpy")
        y = b.ScatterElementsUpdate(x, index, source, b.const(np.int64(axis)), reduction=reduction)
    return convert(b, y, given)


@aten("aten::index_add")
def index_add(node, a, b):
    """index_add(dim, index, source, alpha): alpha * source's slices added at ``index``."""
    return [_index_scatter(node, a, b, "sum")]


@aten("aten::index_copy")
def index_copy(node, a, b):
    """index_copy(dim, index, source): source's slices written at ``index``."""
    return [_index_scatter(node, a, b, "none")]


@aten("aten::index_fill")
def index_fill(node, a, b):
    """index_fill(dim, index, value): the slices at ``index`` along ``dim`` set to ``value``."""
    x = a.tensor(0)
    value = convert(b, a.tensor("value"), x.data.get_dtype())
    rank = rank_of(x, node)
    if rank == 0:
        return [value]
    axis = _axis(node, a, x)
    size = dim_size(b, x, axis)
    positions = b.Range(b.const(np.int64(0)), size, b.const(np.int64(1)), output_type="i64")
    index = positive_index(b, _flat(b, a.tensor("index")), size)
    hit = b.ReduceLogicalOr(b.Equal(b.Unsqueeze(positions, i64(1)), b.Unsqueeze(index, i64(0))), i64(1),
                            keep_dims=False)
    return [b.Select(_along(b, hit, axis, rank), value, x)]


# ---------------------------------------------------------------------------- masks


def _broadcast_pair(b, x: Port, y: Port) -> tuple[Port, Port]:
    """x and y broadcast to the shape of both (numpy rules)."""
    shape = shape_of(b, b.Broadcast(x, shape_of(b, y), mode="bidirectional"))
    return b.Broadcast(x, shape, mode="numpy"), b.Broadcast(y, shape, mode="numpy")


@aten("aten::masked_select")
def masked_select(node, a, b):
    """The elements of self where mask (the two broadcast together) is set, as a 1-D tensor."""
    x, mask = _broadcast_pair(b, a.tensor(0), convert(b, a.tensor("mask"), "boolean"))
    where_set = _flat(b, b.NonZero(_flat(b, mask), output_type="i64"))
    return [b.Gather(_flat(b, x), where_set, b.const(np.int64(0)))]


@aten("aten::masked_scatter")
def masked_scatter(node, a, b):
    """self with the positions where mask is set taken from source's elements in order (the
    running count of set positions indexes the flattened source)."""
    x = a.tensor(0)
    mask = b.Broadcast(convert(b, a.tensor("mask"), "boolean"), shape_of(b, x), mode="numpy")
    flat_mask = _flat(b, mask)
    taken = b.Subtract(b.CumSum(convert(b, flat_mask, "i64"), b.const(np.int64(0))), b.const(np.int64(1)))
    taken = b.Maximum(taken, b.const(np.int64(0)))
    source = _flat(b, convert(b, a.tensor("source"), x.data.get_dtype()))
    values = b.Gather(source, taken, b.const(np.int64(0)))
    return [b.Reshape(b.Select(flat_mask, values, _flat(b, x)), shape_of(b, x), special_zero=False)]


# ---------------------------------------------------------------------------- take_along_dim


@aten("aten::take_along_dim")
def take_along_dim(node, a, b):
    """take_along_dim(indices, dim): GatherElements along ``dim`` with self and indices broadcast
    over the other dims; no dim gathers from the flattened tensor."""
    x, index = a.tensor(0), convert(b, a.tensor("indices"), "i64")
    if a.is_none("dim"):
        return [b.Gather(_flat(b, x), _flat(b, index), b.const(np.int64(0)), batch_dims=0)]
    rank = rank_of(x, node)
    axis = _axis(node, a, x)
    if rank_of(index, node) != rank:
        raise ConversionError(f"take_along_dim needs indices of the input's rank ({rank}).")
    both = b.Maximum(shape_of(b, x), shape_of(b, index))
    axis_c = i64(axis)

    def keep_axis(port):
        return b.ScatterUpdate(both, axis_c, b.Gather(shape_of(b, port), axis_c, b.const(np.int64(0))),
                               b.const(np.int64(0)))
    x = b.Broadcast(x, keep_axis(x), mode="numpy")
    index = positive_index(b, b.Broadcast(index, keep_axis(index), mode="numpy"), dim_size(b, x, axis))
    return [b.GatherElements(x, index, axis=axis)]


@aten("aten::fill_diagonal")
def fill_diagonal(node, a, b):
    """fill_diagonal_(fill_value, wrap): the elements whose indices are all equal set to the
    value (a tall matrix: every cols + 1-th element of the flattened matrix when ``wrap``)."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    if rank < 2:
        raise ConversionError("fill_diagonal needs a tensor of at least 2 dimensions.")
    value = convert(b, a.tensor("fill_value"), x.data.get_dtype())
    zero, one = b.const(np.int64(0)), b.const(np.int64(1))
    coords = [_along(b, b.Range(zero, dim_size(b, x, d), one, output_type="i64"), d, rank) for d in range(rank)]
    if rank == 2:
        cols = dim_size(b, x, 1)
        flat = b.Add(b.Multiply(coords[0], cols), coords[1])
        hit = b.Equal(b.FloorMod(flat, b.Add(cols, one)), zero)
        if not bool(a.const("wrap", False)):
            hit = b.LogicalAnd(hit, b.Less(coords[0], cols))
    else:
        hit = b.Equal(coords[0], coords[1])
        for c in coords[2:]:
            hit = b.LogicalAnd(hit, b.Equal(coords[0], c))
    return [b.Select(hit, value, x)]


# ---------------------------------------------------------------------------- embedding_bag

EMBEDDING_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


@aten("aten::embedding_bag", "aten::_embedding_bag", "aten::_embedding_bag_forward_only")
def embedding_bag(node, a, b):
    """embedding_bag(weight, indices, offsets, ..., mode, ..., per_sample_weights,
    include_last_offset, padding_idx): the rows of each bag (1-D indices cut at ``offsets``, or
    the rows of 2-D indices) reduced by sum / mean / max, rows weighted by per_sample_weights;
    rows at padding_idx count in no bag, an empty bag is zeros. Only the first output (the bags)
    is computed."""
    if any(node.out_port(i).get_destinations() for i in range(1, node.num_outputs)):
        raise ConversionError("Only the first output of embedding_bag (the bags) converts; the model reads its "
                              "offset2bag / bag_size / max_indices outputs.")
    weight = a.tensor(0)
    indices = convert(b, a.tensor("indices"), "i64")
    mode = EMBEDDING_BAG_MODES.get(int(a.const("mode", 0)))
    if mode is None:
        raise ConversionError(f"embedding_bag mode {a.const('mode')} is not one of 0 (sum), 1 (mean), 2 (max).")
    zero, one = b.const(np.int64(0)), b.const(np.int64(1))
    rows = b.Gather(weight, _flat(b, indices), zero)                      # [n, D]
    if not a.is_none("per_sample_weights"):
        rows = b.Multiply(rows, b.Unsqueeze(_flat(b, convert(b, a.tensor("per_sample_weights"),
                                                             weight.data.get_dtype())), one))
    count = dim_size(b, _flat(b, indices), 0)
    positions = b.Range(zero, count, one, output_type="i64")
    if rank_of(indices, node) == 2:
        bags = dim_size(b, indices, 0)
        bag = b.Divide(positions, b.Maximum(dim_size(b, indices, 1), one))
    elif rank_of(indices, node) == 1 and not a.is_none("offsets"):
        offsets = _flat(b, convert(b, a.tensor("offsets"), "i64"))
        bags = dim_size(b, offsets, 0)
        if bool(a.const("include_last_offset", False)):
            bags = b.Subtract(bags, one)
        started = b.GreaterEqual(b.Unsqueeze(positions, one), b.Unsqueeze(offsets, zero))
        bag = b.Subtract(b.ReduceSum(convert(b, started, "i64"), one, keep_dims=False), one)
    else:
        raise ConversionError("embedding_bag needs 1-D indices with offsets or 2-D indices.")
    bag = b.Minimum(bag, bags)      # indices at or past the last offset of include_last_offset: no bag
    padding = a.const("padding_idx", None) if a.has("padding_idx") else None
    if padding is not None and padding >= 0:
        bag = b.Select(b.Equal(_flat(b, indices), b.const(np.int64(padding))), bags, bag)
    # bag `bags` collects what belongs to no bag; it is cut off afterwards
    width = dim_size(b, weight, 1)
    shape = int_list_port(b, [b.Add(bags, one), width])
    init = b.Broadcast(const(b, 0, weight.data.get_dtype()), shape)
    spread = b.Broadcast(b.Unsqueeze(bag, one), shape_of(b, rows), mode="numpy")
    reduced = b.ScatterElementsUpdate(init, spread, rows, zero, reduction=mode,
                                      use_init_val=mode == "sum")
    return [sliced(b, reduced, 0, 0, bags), None, None, None][:node.num_outputs]


# ---------------------------------------------------------------------------- strided views


def _strided_positions(a) -> np.ndarray:
    """The positions in the flattened (contiguous) input that an as_strided view of constant
    ``size``, ``stride`` and ``storage_offset`` reads, in the view's shape."""
    size = [int(s) for s in a.const("size")]
    stride = [int(s) for s in a.const("stride")]
    if len(size) != len(stride):
        raise ConversionError(f"as_strided with {len(size)} sizes and {len(stride)} strides.")
    offset = a.const("storage_offset", None) if a.has("storage_offset") else None
    positions = np.full(size, int(offset or 0), np.int64)
    for axis, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[axis] = n
        positions = positions + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return positions


def _memory_order(node, b, x: Port) -> Port:
    """``x`` with its elements in the order of its memory (what as_strided indexes), as the
    capture recorded its strides: a contiguous tensor as it is, a permuted one (a transpose of a
    contiguous tensor) transposed back; other layouts cannot be rebuilt from the values."""
    strides = node.get("input_strides")
    shape = x.data.get_shape()
    if strides is None or shape is None or len(strides) != len(shape) or any(d < 0 for d in shape):
        return x
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    order = sorted(dims, key=lambda d: -strides[d])
    expected = 1
    for d in reversed(order):
        if strides[d] != expected:
            raise ConversionError(f"as_strided reads a tensor whose memory layout (strides {list(strides)} for shape "
                                  f"{list(shape)}) is not a permutation of a contiguous one; make it contiguous "
                                  f"(x.contiguous()) before as_strided.")
        expected *= shape[d]
    if order == dims:
        return x
    return b.Transpose(x, i64(order + [d for d in range(len(shape)) if shape[d] == 1]))


@aten("aten::as_strided", "aten::as_strided_copy")
def as_strided(node, a, b):
    """as_strided(size, stride, storage_offset): a Gather of the positions it reads from the
    tensor's elements in memory order (see ``_memory_order``)."""
    x = _memory_order(node, b, a.tensor(0))
    return [b.Gather(_flat(b, x), b.const(_strided_positions(a)), b.const(np.int64(0)))]


@aten("aten::as_strided_scatter")
def as_strided_scatter(node, a, b):
    """as_strided_scatter(src, size, stride, storage_offset): src written at the positions the
    view reads (ScatterUpdate of the flattened tensor; positions and src flattened too, as the
    CPU plugin takes no 0-d indices)."""
    x = a.tensor(0)
    src = convert(b, a.tensor("src"), x.data.get_dtype())
    positions = b.const(_strided_positions(a).reshape(-1))
    written = b.ScatterUpdate(_flat(b, x), positions, _flat(b, src), b.const(np.int64(0)))
    return [b.Reshape(written, shape_of(b, x), special_zero=False)]


@aten("aten::unfold", "aten::unfold_copy")
def unfold(node, a, b):
    """x.unfold(dimension, size, step): the windows of ``size`` every ``step`` along the dim,
    that dim becoming the window count and a new last dim the window (a Gather of the window
    positions [windows, size], the window dim moved last)."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    axis = norm_axis(a.const("dimension"), max(rank, 1), node)
    size, step = int(a.const("size")), int(a.const("step"))
    if size < 0 or step <= 0:
        raise ConversionError(f"unfold needs size >= 0 and step > 0 (size {size}, step {step}).")
    zero, one = b.const(np.int64(0)), b.const(np.int64(1))
    if rank == 0:
        return [b.Unsqueeze(x, zero)]
    windows = b.Add(b.Divide(b.Subtract(dim_size(b, x, axis), b.const(np.int64(size))), b.const(np.int64(step))), one)
    starts = b.Multiply(b.Range(zero, b.Maximum(windows, zero), one, output_type="i64"), b.const(np.int64(step)))
    positions = b.Add(b.Unsqueeze(starts, one), b.const(np.arange(size, dtype=np.int64)))
    gathered = b.Gather(x, positions, b.const(np.int64(axis)))     # [..., windows, size, ...]
    order = list(range(axis + 1)) + list(range(axis + 2, rank + 1)) + [axis + 1]
    return [b.Transpose(gathered, i64(order)) if order != list(range(rank + 1)) else gathered]


# ---------------------------------------------------------------------------- searching, unique


def _insertion_points(b, sequence: Port, values: Port, right: bool, rank_equal: bool) -> Port:
    """For each value, how many elements of the sorted ``sequence`` (its last dim; leading dims
    matching the values' when ``rank_equal``) are below it (``right``: not above it)."""
    if rank_equal:
        seq, vals = b.Unsqueeze(sequence, b.const(np.int64(-2))), b.Unsqueeze(values, b.const(np.int64(-1)))
    else:
        seq, vals = sequence, b.Unsqueeze(values, b.const(np.int64(-1)))
    below = b.LessEqual(seq, vals) if right else b.Less(seq, vals)
    return b.ReduceSum(convert(b, below, "i64"), i64(-1), keep_dims=False)


def _search(node, b, sequence: Port, values: Port, right: bool, out_int32: bool) -> Port:
    from extensions.front.pytorch.aten import promote_types
    et = promote_types(sequence.data.get_dtype(), values.data.get_dtype())
    sequence, values = convert(b, sequence, et), convert(b, values, et)
    seq_rank, val_rank = rank_of(sequence, node), rank_of(values, node)
    if seq_rank == 0:
        raise ConversionError("The sorted sequence of searchsorted / bucketize cannot be a scalar.")
    if seq_rank != 1 and seq_rank != val_rank:
        raise ConversionError(f"searchsorted of a {seq_rank}-D sequence needs values of that rank, not {val_rank}.")
    found = _insertion_points(b, sequence, values, right, seq_rank != 1)
    return convert(b, found, "i32" if out_int32 else "i64")


def _flag(a, key: str) -> bool:
    return bool(a.const(key, False)) if a.has(key) else False


@aten("aten::searchsorted")
def searchsorted(node, a, b):
    """searchsorted(sorted_sequence, values, out_int32, right, side, sorter): the insertion
    index of each value along the sequence's last dim (counted comparisons)."""
    sequence = a.tensor(0)
    if not a.is_none("sorter"):
        sorter = convert(b, a.tensor("sorter"), "i64")
        sequence = b.GatherElements(sequence, sorter, axis=rank_of(sequence, node) - 1)
    side = a.const("side", None) if a.has("side") else None
    right = _flag(a, "right") or side == "right"
    return [_search(node, b, sequence, a.tensor(1), right, _flag(a, "out_int32"))]


@aten("aten::bucketize")
def bucketize(node, a, b):
    """bucketize(values, boundaries, out_int32, right): the bucket of each value."""
    return [_search(node, b, a.tensor("boundaries"), a.tensor(0), _flag(a, "right"), _flag(a, "out_int32"))]


@aten("aten::_unique2", "aten::unique_dim")
def unique2(node, a, b):
    """_unique2(sorted, return_inverse, return_counts): the sorted unique elements (PyTorch sorts
    on CPU whatever ``sorted`` says), each element's position among them in the input's shape,
    and the counts; the outputs not asked for are empty, as in PyTorch."""
    x = a.tensor(0)
    if node.fw_op == "aten::unique_dim":
        found = b.Unique(x, b.const(np.int64(_axis(node, a, x))), sorted=True, index_element_type="i64",
                         count_element_type="i64")
        values, _, inverse, counts = found
    else:
        values, _, inverse, counts = b.Unique(x, sorted=True, index_element_type="i64", count_element_type="i64")
        inverse = b.Reshape(inverse, shape_of(b, x), special_zero=False)
    empty = b.const(np.zeros(0, np.int64))
    return [values, inverse if _flag(a, "return_inverse") else empty, counts if _flag(a, "return_counts") else empty]


@aten("aten::put")
def put(node, a, b):
    """put(index, source, accumulate): source written (added) at the flat positions ``index``
    (negative ones count from the end)."""
    x = a.tensor(0)
    flat = _flat(b, x)
    count = dim_size(b, flat, 0)
    index = _flat(b, convert(b, a.tensor("index"), "i64"))
    index = b.Select(b.Less(index, np.int64(0)), b.Add(index, count), index)
    source = _flat(b, convert(b, a.tensor("source"), x.data.get_dtype()))
    accumulate = bool(a.const("accumulate", False))
    et = x.data.get_dtype()
    if et == "boolean":
        written = convert(b, b.ScatterElementsUpdate(convert(b, flat, "u8"), index, convert(b, source, "u8"),
                                                     np.int64(0), reduction="max" if accumulate else "none"),
                          "boolean")
    else:
        written = b.ScatterElementsUpdate(flat, index, source, np.int64(0), reduction="sum" if accumulate else "none")
    return [b.Reshape(written, shape_of(b, x), special_zero=False)]


_INDEX_REDUCTIONS = {"prod": "prod", "mean": "mean", "amax": "max", "amin": "min"}


@aten("aten::index_reduce")
def index_reduce(node, a, b):
    """index_reduce(dim, index, source, reduce, include_self): the slices of source reduced (prod,
    mean, amax, amin) into self's slices at ``index``, with or without self's own values."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    rank = rank_of(x, node)
    reduce = a.const("reduce")
    if reduce not in _INDEX_REDUCTIONS:
        raise ConversionError(f"index_reduce with reduce='{reduce}' (PyTorch takes prod, mean, amax, amin).")
    source = convert(b, a.tensor("source"), et)
    if rank == 0:
        x, source = reshape_to_1d(b, x), reshape_to_1d(b, source)
    axis = _axis(node, a, x) if rank else 0
    index = _along(b, _flat(b, convert(b, a.tensor("index"), "i64")), axis, max(rank, 1))
    index = b.Broadcast(index, shape_of(b, source), mode="numpy")
    y = b.ScatterElementsUpdate(x, index, source, b.const(np.int64(axis)), reduction=_INDEX_REDUCTIONS[reduce],
                                use_init_val=bool(a.const("include_self", True)))
    return [b.Reshape(y, shape_of(b, a.tensor(0)), special_zero=False) if rank == 0 else y]


def reshape_to_1d(b, x):
    return b.Reshape(x, i64([-1]), special_zero=False)


@aten("aten::unique_consecutive")
def unique_consecutive(node, a, b):
    """unique_consecutive(return_inverse, return_counts, dim=None) of the flattened tensor: the
    first element of each run of equal values, each element's run, the runs' lengths."""
    if a.has("dim") and not a.is_none("dim"):
        raise ConversionError("unique_consecutive along a dim is not supported (only of the flattened tensor).")
    x = a.tensor(0)
    flat = _flat(b, x)
    n = dim_size(b, flat, 0)
    starts = b.Concat(b.const(np.array([True])), b.NotEqual(sliced(b, flat, 0, 1, INT64_MAX),
                                                             sliced(b, flat, 0, 0, -1)), axis=0)
    starts = sliced(b, starts, 0, 0, n)     # an empty tensor has no runs
    positions = b.Squeeze(b.NonZero(starts, output_type="i64"), i64(0))
    values = b.Gather(flat, positions, np.int64(0))
    inverse = b.Subtract(b.CumSum(convert(b, starts, "i64"), np.int64(0)), np.int64(1))
    inverse = b.Reshape(inverse, shape_of(b, x), special_zero=False)
    ends = b.Concat(sliced(b, positions, 0, 1, INT64_MAX), b.Unsqueeze(n, i64(0)), axis=0)
    counts = b.Subtract(ends, positions)
    return [values, inverse, counts][:node.num_outputs]


_SEGMENT_REDUCTIONS = {"max": ("max", -np.inf), "min": ("min", np.inf), "sum": ("sum", 0.0), "mean": ("sum", 0.0),
                       "prod": ("prod", 1.0)}


@aten("aten::segment_reduce")
def segment_reduce(node, a, b):
    """segment_reduce(data, reduce, lengths / offsets, axis=0, initial): each segment of
    consecutive rows reduced (max, min, sum, mean, prod), with ``initial`` taking part when given
    (an empty segment gives initial, else the reduction's identity; mean of an empty one NaN)."""
    from extensions.front.pytorch.shape import _repeated_positions
    x = a.tensor(0)
    et = x.data.get_dtype()
    reduce = a.const("reduce")
    if reduce not in _SEGMENT_REDUCTIONS:
        raise ConversionError(f"segment_reduce with reduce='{reduce}' (PyTorch takes max, min, sum, mean, prod).")
    if int(a.const("axis", 0)) != 0:
        raise ConversionError("segment_reduce along an axis other than 0 is not supported.")
    if not a.is_none("lengths"):
        lengths = convert(b, a.tensor("lengths"), "i64")
    elif not a.is_none("offsets"):
        offsets = convert(b, a.tensor("offsets"), "i64")
        lengths = b.Subtract(sliced(b, offsets, 0, 1, INT64_MAX), sliced(b, offsets, 0, 0, -1))
    else:
        raise ConversionError("segment_reduce needs lengths or offsets.")
    if rank_of(lengths, node) != 1:
        raise ConversionError("segment_reduce takes 1-D lengths / offsets (one batch of segments).")
    reduction, identity = _SEGMENT_REDUCTIONS[reduce]
    initial = a.const("initial", None) if a.has("initial") else None
    start = identity if initial is None else float(initial)
    segments = dim_size(b, lengths, 0)
    shape = b.Concat(b.Unsqueeze(segments, i64(0)), dims_slice(b, shape_of(b, x), 1, rank_of(x, node)), axis=0)
    init = b.Broadcast(const(b, start, et), shape)
    ids = _along(b, _repeated_positions(b, lengths), 0, rank_of(x, node))
    ids = b.Broadcast(ids, shape_of(b, x), mode="numpy")
    y = b.ScatterElementsUpdate(init, ids, x, np.int64(0), reduction=reduction, use_init_val=True)
    if reduce == "mean":
        counts = convert(b, _along(b, lengths, 0, rank_of(x, node)), et)
        y = b.Divide(y, counts)
        if initial is not None:
            y = b.Select(b.Equal(counts, const(b, 0, et)), const(b, start, et), y)
    return [y]
