"""ATen operations that rearrange tensors: view / reshape / flatten / unflatten, permute /
transpose / movedim, squeeze / unsqueeze, expand / repeat / tile, cat / stack, split / chunk /
unbind, flip / roll, narrow, diff, meshgrid, tril / triu, pixel and channel shuffles, hstack / vstack,
dtype views: their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, dim_size, promote_types, reshape, scalar_int
from extensions.load.pytorch.arguments import aten
from extensions.load.pytorch.schema import is_dtype_type
from mo.errors import ConversionError
from mo.graph.building import (
    INT64_MAX,
    INT64_MIN,
    convert,
    dims_slice,
    i64,
    int_list_port,
    norm_axis,
    rank_of,
    shape_of,
)
from mo.graph.port import Port


def dims_of(b, x: Port, begin: int, end: int) -> list[int | Port]:
    """The sizes of dims [begin, end) of ``x``: ints where static, else a slice of its shape."""
    shape = x.data.get_shape()
    if end <= begin:
        return []
    if all(d >= 0 for d in shape[begin:end]):
        return [int(d) for d in shape[begin:end]]
    return [dims_slice(b, shape_of(b, x), begin, end)]


def sliced(b, x: Port, axis: int, start, stop, step=1) -> Port:
    """x[..., start:stop:step, ...] along ``axis`` (bounds are ints or computed scalars)."""
    def one(v) -> Port:
        return b.Reshape(convert(b, v, "i64"), i64(1), special_zero=False) if isinstance(v, Port) else i64(v)
    return b.Slice(x, one(start), one(stop), one(step), i64(axis))


# ---------------------------------------------------------------------------- reshapes


@aten("aten::view", "aten::reshape", "aten::_unsafe_view", "aten::view_copy")
def view(node, a, b):
    """view / reshape(size): -1 infers a dim; view(dtype): the same bytes read as another type."""
    if len(a.types) > 1 and is_dtype_type(a.types[1]):
        return [_bit_view(b, a.tensor(0), a.const(1))]
    return [reshape(b, a.tensor(0), a.int_list(1))]


# one-byte types whose bit patterns map onto each other by arithmetic on their values
_BYTE_TYPES = ("u8", "i8", "boolean")


def _bit_view(b, x: Port, et: str) -> Port:
    """x.view(dtype): the identity for x's own type; u8 / i8 / bool read as each other (two's
    complement); other reinterpretations need a bit cast, which OpenVINO has no operation for."""
    source = x.data.get_dtype()
    if et == source:
        return x
    if source in _BYTE_TYPES and et in _BYTE_TYPES:
        if et == "boolean":
            return convert(b, x, "boolean")
        wide = convert(b, x, "i16")
        if et == "i8":      # 128..255 are -128..-1
            wide = b.Subtract(wide, b.Multiply(convert(b, b.GreaterEqual(wide, const(b, 128, "i16")), "i16"),
                                               const(b, 256, "i16")))
        else:               # -128..-1 are 128..255
            wide = b.FloorMod(wide, const(b, 256, "i16"))
        return convert(b, wide, et)
    raise ConversionError(f"x.view({et}) of a {source} tensor reinterprets its bits; OpenVINO has no bit-cast "
                          f"operation, so only views among u8, i8 and bool (and of the same type) convert.")


@aten("aten::view_as", "aten::reshape_as")
def view_as(node, a, b):
    return [b.Reshape(a.tensor(0), shape_of(b, a.tensor(1)), special_zero=False)]


@aten("aten::flatten")
def flatten(node, a, b):
    """flatten(start_dim, end_dim): the dims in between as one (a 0-d tensor becomes [1])."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    if rank == 0:
        return [reshape(b, x, [1])]
    start = norm_axis(a.const("start_dim", 0), rank, node)
    end = norm_axis(a.const("end_dim", -1), rank, node)
    return [reshape(b, x, dims_of(b, x, 0, start) + [-1] + dims_of(b, x, end + 1, rank))]


@aten("aten::unflatten")
def unflatten(node, a, b):
    """unflatten(dim, sizes): one dim as several."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    axis = norm_axis(a.const("dim"), rank, node)
    return [reshape(b, x, dims_of(b, x, 0, axis) + list(a.int_list("sizes")) + dims_of(b, x, axis + 1, rank))]


# ---------------------------------------------------------------------------- permutations


def _permuted(b, x, order: list[int]):
    return x if order == list(range(len(order))) else b.Transpose(x, i64(order))


@aten("aten::permute", "aten::permute_copy")
def permute(node, a, b):
    x = a.tensor(0)
    rank = rank_of(x, node)
    return [_permuted(b, x, [norm_axis(d, rank, node) for d in a.const("dims")])]


@aten("aten::transpose", "aten::swapaxes", "aten::swapdims")
def transpose(node, a, b):
    """Two dims swapped."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    order = list(range(rank))
    i, j = (norm_axis(a.const(k), rank, node) for k in (1, 2))
    order[i], order[j] = order[j], order[i]
    return [_permuted(b, x, order)]


@aten("aten::t", "aten::numpy_T")
def t(node, a, b):
    """The dims reversed (t: of a tensor of rank 2 at most)."""
    x = a.tensor(0)
    return [_permuted(b, x, list(range(rank_of(x, node)))[::-1])]


@aten("aten::movedim", "aten::moveaxis")
def movedim(node, a, b):
    """movedim(source, destination): the source dims moved to the destinations, the others in
    their order."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    src = [norm_axis(d, rank, node) for d in np.atleast_1d(a.const(1))]
    dst = [norm_axis(d, rank, node) for d in np.atleast_1d(a.const(2))]
    result = [None] * rank
    for s, d in zip(src, dst):
        result[d] = s
    rest = iter(d for d in range(rank) if d not in src)
    return [_permuted(b, x, [r if r is not None else next(rest) for r in result])]


# ---------------------------------------------------------------------------- squeeze, expand


@aten("aten::squeeze", "aten::squeeze_copy")
def squeeze(node, a, b):
    """squeeze: all size-1 dims, or those of the given dims that are 1."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    shape = x.data.get_shape()
    dims = a.const("dim", None) if a.has("dim") else None
    if dims is None:
        if -1 in shape:
            return [b.Squeeze(x)]
        axes = [i for i, d in enumerate(shape) if d == 1]
    else:
        axes = sorted({norm_axis(d, max(rank, 1), node) for d in np.atleast_1d(dims)}) if rank else []
        axes = [i for i in axes if shape[i] in (1, -1)]
    if not axes:
        return [x]
    dynamic = any(shape[i] < 0 for i in axes)
    return [b.Squeeze(x, i64(axes), allow_axis_skip=dynamic)]


@aten("aten::unsqueeze", "aten::unsqueeze_copy")
def unsqueeze(node, a, b):
    x = a.tensor(0)
    return [b.Unsqueeze(x, b.const(np.int64(norm_axis(a.const("dim"), rank_of(x, node) + 1, node))))]


@aten("aten::expand", "aten::broadcast_to", "aten::expand_copy")
def expand(node, a, b):
    """expand(size): -1 keeps a dim; new dims lead. A bidirectional Broadcast (the same result for
    any size expand takes: each dim equal or expanded from 1), the form the runtime's fusions
    match (the key/value heads repeated for grouped-query attention)."""
    x = a.tensor(0)
    size = a.int_list(1)
    lead = len(size) - rank_of(x, node)
    target: list = []
    for i, s in enumerate(size):
        if not isinstance(s, Port) and s == -1:
            if i < lead:
                raise ConversionError("expand cannot keep (-1) a new leading dimension.")
            target.extend(dims_of(b, x, i - lead, i - lead + 1))
        else:
            target.append(s)
    return [b.Broadcast(x, int_list_port(b, target), mode="bidirectional")]


@aten("aten::expand_as")
def expand_as(node, a, b):
    return [b.Broadcast(a.tensor(0), shape_of(b, a.tensor(1)), mode="bidirectional")]


@aten("aten::repeat", "aten::tile")
def repeat(node, a, b):
    return [b.Tile(a.tensor(0), int_list_port(b, a.int_list(1)))]


@aten("aten::repeat_interleave")
def repeat_interleave(node, a, b):
    """Each element repeated ``repeats`` times along ``dim`` (of the flattened tensor when None);
    the same count for every element."""
    x = a.tensor(0)
    computed = a.port("repeats") if a.value("repeats") is None else None
    if computed is not None and computed.data.get_rank() not in (0, None) and computed.data.get_shape() != (1,):
        raise ConversionError("repeat_interleave with per-element repeats is not supported.")
    repeats = computed if computed is not None else a.const("repeats")
    if isinstance(repeats, list):
        if len(set(repeats)) != 1:
            raise ConversionError("repeat_interleave with per-element repeats is not supported.")
        repeats = repeats[0]
    dim = a.const("dim", None)
    if dim is None:
        x, dim = reshape(b, x, [-1]), 0
    rank = rank_of(x, node)
    axis = norm_axis(dim, rank, node)
    tiles = [1] * (rank + 1)
    tiles[axis + 1] = repeats if isinstance(repeats, Port) else int(repeats)
    tiled = b.Tile(b.Unsqueeze(x, b.const(np.int64(axis + 1))), int_list_port(b, tiles))
    return [reshape(b, tiled, dims_of(b, x, 0, axis) + [-1] + dims_of(b, x, axis + 1, rank))]


# ---------------------------------------------------------------------------- joins, splits


def _promoted_list(b, a) -> list[Port]:
    """The tensors of the list argument, in their promoted type."""
    tensors = [t for t in a.tensors(0) if t is not None]
    et = None
    for t in tensors:
        et = promote_types(et, t.data.get_dtype())
    return [convert(b, t, et) for t in tensors]


@aten("aten::cat", "aten::concat", "aten::concatenate")
def cat(node, a, b):
    """cat(tensors, dim), types promoted; 1-D empty tensors are skipped (legacy behaviour)."""
    tensors = _promoted_list(b, a)
    tensors = [t for t in tensors if t.data.get_shape() != (0,)] or tensors[:1]
    axis = norm_axis(a.const("dim", 0) if a.has("dim") else 0, rank_of(tensors[0], node), node)
    return [tensors[0] if len(tensors) == 1 else b.Concat(*tensors, axis=axis)]


@aten("aten::stack")
def stack(node, a, b):
    """stack(tensors, dim): joined along a new dim."""
    tensors = _promoted_list(b, a)
    axis = norm_axis(a.const("dim", 0) if a.has("dim") else 0, rank_of(tensors[0], node) + 1, node)
    tensors = [b.Unsqueeze(t, b.const(np.int64(axis))) for t in tensors]
    return [tensors[0] if len(tensors) == 1 else b.Concat(*tensors, axis=axis)]


def _at_least(b, t: Port, rank: int) -> Port:
    """``t`` with leading 1s up to ``rank`` dims (atleast_1d / atleast_2d)."""
    missing = rank - (t.data.get_rank() or 0)
    return b.Unsqueeze(t, i64(list(range(missing)))) if missing > 0 else t


@aten("aten::hstack", "aten::vstack", "aten::row_stack")
def hstack_vstack(node, a, b):
    """hstack: 1-D tensors joined end to end, others along dim 1; vstack / row_stack: along
    dim 0 with 1-D tensors as rows (types promoted)."""
    tensors = _promoted_list(b, a)
    if node.fw_op == "aten::hstack":
        tensors = [_at_least(b, t, 1) for t in tensors]
        axis = 0 if rank_of(tensors[0], node) == 1 else 1
    else:
        tensors, axis = [_at_least(b, t, 2) for t in tensors], 0
    return [tensors[0] if len(tensors) == 1 else b.Concat(*tensors, axis=axis)]


def _split(node, b, x, axis: int, lengths: list) -> list:
    """``x`` split along ``axis`` into parts of ``lengths`` (ints or computed; -1 the rest), one
    per output of the node."""
    count = node.num_outputs
    if len(lengths) != count:
        raise ConversionError(f"The split gives {len(lengths)} parts, but the model uses {count}.")
    if count == 1:
        return [x]
    return list(b.VariadicSplit(x, b.const(np.int64(axis)), int_list_port(b, lengths), num_outputs=count))


def _parts(node, size: int, step: int | Port) -> list:
    """The lengths of parts of ``step`` along a dim of ``size``, the last one shorter (when the
    size is dynamic: one per output of the node, the last one -1 for the rest)."""
    if size < 0:
        return [step] * (node.num_outputs - 1) + [-1]
    return [min(step, size - i) for i in range(0, size, step)] if size else [0]


def _split_axis(node, a, x) -> tuple[int, int]:
    """The ``dim`` argument as an axis, and the size along it (-1 when dynamic)."""
    axis = norm_axis(a.const("dim", 0), rank_of(x, node), node)
    return axis, x.data.get_shape()[axis]


@aten("aten::split", "aten::unsafe_split")
def split(node, a, b):
    """split(split_size_or_sections, dim): parts of one size (the last one shorter), or of the
    given sizes."""
    x = a.tensor(0)
    axis, size = _split_axis(node, a, x)
    lengths = a.int_list(1)
    if len(lengths) == 1 and not a.types[1].startswith("List"):
        lengths = _parts(node, size, lengths[0])
    return _split(node, b, x, axis, lengths)


@aten("aten::split_with_sizes", "aten::split_with_sizes_copy")
def split_with_sizes(node, a, b):
    x = a.tensor(0)
    axis, _ = _split_axis(node, a, x)
    return _split(node, b, x, axis, a.int_list(1))


@aten("aten::chunk", "aten::unsafe_chunk")
def chunk(node, a, b):
    """chunk(chunks, dim): parts of ceil(size / chunks) (the last one shorter)."""
    x = a.tensor(0)
    axis, size = _split_axis(node, a, x)
    chunks = int(a.const("chunks"))
    if size >= 0:
        per = -(-size // chunks)
    else:
        per = b.Divide(b.Add(dim_size(b, x, axis), b.const(np.int64(chunks - 1))), b.const(np.int64(chunks)))
    return _split(node, b, x, axis, _parts(node, size, per))


@aten("aten::unbind")
def unbind(node, a, b):
    """The slices along ``dim``, that dim removed."""
    x = a.tensor(0)
    axis, _ = _split_axis(node, a, x)
    count = node.num_outputs
    parts = b.Split(x, b.const(np.int64(axis)), num_splits=count) if count > 1 else (x,)
    parts = parts if isinstance(parts, tuple) else (parts,)
    return [b.Squeeze(p, i64(axis)) for p in parts]


@aten("aten::meshgrid")
def meshgrid(node, a, b):
    """meshgrid(tensors, indexing): each 1-D input broadcast over the grid of all their sizes
    ("xy" swaps the roles of the first two)."""
    tensors = [reshape(b, t, [-1]) for t in a.tensors(0)]
    count = len(tensors)
    dims = list(range(count))
    if a.has("indexing") and a.const("indexing", "ij") == "xy" and count >= 2:
        dims[0], dims[1] = 1, 0
    sizes = [None] * count
    for t, d in zip(tensors, dims):
        sizes[d] = dim_size(b, t, 0)
    grid = int_list_port(b, sizes)
    outputs = []
    for t, d in zip(tensors, dims):
        target = [1] * count
        target[d] = -1
        outputs.append(b.Broadcast(reshape(b, t, target), grid, mode="numpy"))
    return outputs


# ---------------------------------------------------------------------------- moves


@aten("aten::flip")
def flip(node, a, b):
    """flip(dims) as one Slice with step -1 along each."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    axes = [norm_axis(d, rank, node) for d in np.atleast_1d(a.const("dims"))]
    n = len(axes)
    return [b.Slice(x, i64([-1] * n), i64([INT64_MIN] * n), i64([-1] * n), i64(axes))]


@aten("aten::roll")
def roll(node, a, b):
    """roll(shifts, dims): per dim, the last ``shift`` elements moved to the front (two Slices and
    a Concat); no dims rolls the flattened tensor."""
    x = a.tensor(0)
    shifts = [int(s) for s in np.atleast_1d(a.const("shifts"))]
    dims = [int(d) for d in np.atleast_1d(a.const("dims", []))]
    source = x
    if not dims:
        source, dims = reshape(b, x, [-1]), [0]
    y = source
    for shift, dim in zip(shifts, dims):
        axis = norm_axis(dim, rank_of(y, node), node)
        size = y.data.get_shape()[axis]
        if size < 0:
            raise ConversionError("roll along a dynamic dimension is not supported.")
        shift %= max(size, 1)
        if shift:
            y = b.Concat(sliced(b, y, axis, size - shift, size), sliced(b, y, axis, 0, size - shift), axis=axis)
    if source is not x:
        y = b.Reshape(y, shape_of(b, x), special_zero=False)
    return [y]


@aten("aten::narrow")
def narrow(node, a, b):
    """narrow(dim, start, length) as a Slice; a dim the model computes picks the axis at run
    time (a Slice over every axis, bounds set only on the picked one)."""
    x = a.tensor(0)
    start_v = a.value("start")
    start = int(start_v) if start_v is not None else a.port("start")
    stop = b.Add(scalar_int(b, start), convert(b, a.tensor("length"), "i64"))
    if a.value("dim") is None and a.port("dim") is not None:
        rank = rank_of(x, node)
        dim = scalar_int(b, a.port("dim"))
        dim = b.Select(b.Less(dim, np.int64(0)), b.Add(dim, np.int64(rank)), dim)
        picked = b.Equal(np.arange(rank, dtype=np.int64), dim)
        begins = b.Select(picked, scalar_int(b, start), np.int64(0))
        ends = b.Select(picked, stop, np.int64(INT64_MAX))
        return [b.Slice(x, begins, ends, np.ones(rank, np.int64), np.arange(rank, dtype=np.int64))]
    axis = norm_axis(a.const("dim"), rank_of(x, node), node)
    return [sliced(b, x, axis, start, stop)]


@aten("aten::diff")
def diff(node, a, b):
    """diff(n, dim, prepend, append): n times x[1:] - x[:-1] along dim (booleans: not-equal)."""
    x = a.tensor(0)
    axis = norm_axis(a.const("dim", -1), rank_of(x, node), node)
    parts = [a.tensor(k) for k in ("prepend",) if not a.is_none(k)] + [x] + \
        [a.tensor(k) for k in ("append",) if not a.is_none(k)]
    y = b.Concat(*[convert(b, p, x.data.get_dtype()) for p in parts], axis=axis) if len(parts) > 1 else x
    for _ in range(int(a.const("n", 1))):
        later, earlier = sliced(b, y, axis, 1, INT64_MAX), sliced(b, y, axis, 0, -1)
        y = b.NotEqual(later, earlier) if y.data.get_dtype() == "boolean" else b.Subtract(later, earlier)
    return [y]


def _triangle(node, a, b, compare: str):
    """The elements of the last two dims whose (column - row) ``compare`` the ``diagonal``
    argument holds for; zeros elsewhere."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    zero, one = b.const(np.int64(0)), b.const(np.int64(1))
    rows = b.Range(zero, dim_size(b, x, rank - 2), one, output_type="i64")
    cols = b.Range(zero, dim_size(b, x, rank - 1), one, output_type="i64")
    offset = b.Subtract(cols, b.Unsqueeze(rows, one))   # j - i
    keep = b.op(compare, offset, b.const(np.int64(a.const("diagonal", 0))))
    return b.Select(keep, x, const(b, 0, x.data.get_dtype()))


@aten("aten::tril")
def tril(node, a, b):
    return [_triangle(node, a, b, "LessEqual")]


@aten("aten::triu")
def triu(node, a, b):
    return [_triangle(node, a, b, "GreaterEqual")]


@aten("aten::channel_shuffle", "aten::native_channel_shuffle")
def channel_shuffle(node, a, b):
    """channel_shuffle(groups): channels seen as [groups, C / groups], transposed."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    grouped = reshape(b, x, dims_of(b, x, 0, 1) + [int(a.const("groups")), -1] + dims_of(b, x, 2, rank))
    order = [0, 2, 1] + list(range(3, rank + 1))
    return [b.Reshape(b.Transpose(grouped, i64(order)), shape_of(b, x), special_zero=False)]


def _pixel_rearranged(node, a, b, op: str):
    """DepthToSpace / SpaceToDepth of the last three dims [C, H, W] (depth first), the leading
    dims (any number, none included) folded into one batch dim and restored afterwards."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    if rank < 3:
        raise ConversionError(f"A pixel shuffle needs a tensor of at least 3 dims [..., C, H, W], not rank {rank}.")
    block = int(a.const(1))
    if rank == 4:
        return b.op(op, x, block_size=block, mode="depth_first")
    images = reshape(b, x, [-1] + dims_of(b, x, rank - 3, rank))
    moved = b.op(op, images, block_size=block, mode="depth_first")
    shape = b.Concat(dims_slice(b, shape_of(b, x), 0, rank - 3), dims_slice(b, shape_of(b, moved), 1), axis=0)
    return b.Reshape(moved, shape, special_zero=False)


@aten("aten::pixel_shuffle")
def pixel_shuffle(node, a, b):
    """Channels [C, r, r] to r x r blocks: DepthToSpace."""
    return [_pixel_rearranged(node, a, b, "DepthToSpace")]


@aten("aten::pixel_unshuffle")
def pixel_unshuffle(node, a, b):
    return [_pixel_rearranged(node, a, b, "SpaceToDepth")]
