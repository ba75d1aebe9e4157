"""ATen operations that rearrange tensors: view / reshape / flatten / unflatten, permute /
transpose / movedim, squeeze / unsqueeze, expand / repeat / tile, cat / stack, split / chunk /
unbind, flip / roll, narrow, diff, meshgrid, tril / triu, pixel and channel shuffles, hstack / vstack,
dtype views: their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, dim_size, is_float_type, promote_types, reshape, scalar_int
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


@aten("aten::transpose", "aten::swapaxes", "aten::swapdims", "aten::transpose_copy")
def transpose(node, a, b):
    """Two dims swapped."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    order = list(range(rank))
    i, j = (norm_axis(a.const(k), rank, node) for k in (1, 2))
    order[i], order[j] = order[j], order[i]
    return [_permuted(b, x, order)]


@aten("aten::t", "aten::numpy_T", "aten::t_copy")
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
    """Tile by the repeats (no repeats: the tensor itself)."""
    repeats = a.int_list(1)
    return [b.Tile(a.tensor(0), int_list_port(b, repeats)) if repeats else a.tensor(0)]


def _repeated_positions(b, repeats: Port) -> Port:
    """repeat_interleave(arange(n), repeats) for a 1-D ``repeats``: position p of the result is
    the number of inclusive running totals of the repeats that are <= p."""
    totals = b.CumSum(convert(b, repeats, "i64"), np.int64(0))
    count = b.ReduceSum(convert(b, repeats, "i64"), i64(0), keep_dims=False)
    positions = b.Range(np.int64(0), count, np.int64(1), output_type="i64")
    below = b.LessEqual(b.Unsqueeze(totals, np.int64(0)), b.Unsqueeze(positions, np.int64(1)))
    return b.ReduceSum(convert(b, below, "i64"), i64(1), keep_dims=False)


@aten("aten::repeat_interleave")
def repeat_interleave(node, a, b):
    """Each element repeated ``repeats`` times along ``dim`` (of the flattened tensor when None):
    one count for all (a Tile), or one per element (a Gather of the repeated positions);
    repeat_interleave(repeats) alone gives those positions."""
    if len(a) and a.names[0] == "repeats":
        return [_repeated_positions(b, a.tensor(0))]
    x = a.tensor(0)
    computed = a.port("repeats") if a.value("repeats") is None else None
    repeats = computed if computed is not None else a.const("repeats")
    dim = a.const("dim", None)
    if dim is None:
        x, dim = reshape(b, x, [-1]), 0
    rank = rank_of(x, node)
    axis = norm_axis(dim, rank, node)
    per_element = (computed is not None and computed.data.get_rank() not in (0, None)
                   and computed.data.get_shape() != (1,)) or (isinstance(repeats, list) and len(set(repeats)) > 1)
    if per_element:
        counts = computed if computed is not None else b.const(np.array(repeats, np.int64))
        return [b.Gather(x, _repeated_positions(b, reshape(b, counts, [-1])), np.int64(axis))]
    if isinstance(repeats, list):
        repeats = repeats[0]
    if isinstance(repeats, Port) and repeats.data.get_rank() != 0:
        repeats = b.Reshape(repeats, i64([]), special_zero=False)
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


@aten("aten::unbind", "aten::unbind_copy")
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


@aten("aten::narrow", "aten::narrow_copy")
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


# ---------------------------------------------------------------------------- broadcasts, splits by index


def broadcast_shape(b, tensors: list[Port]) -> Port:
    """The shape the tensors broadcast to together (numpy rules): a constant when every shape is
    static, else the shapes combined by broadcasting zero tensors of each."""
    shapes = [t.data.get_shape() for t in tensors]
    if all(s is not None and all(d >= 0 for d in s) for s in shapes):
        return i64(list(np.broadcast_shapes(*shapes)))
    common = b.Broadcast(b.const(np.int64(0)), shape_of(b, tensors[0]), mode="numpy")
    for t in tensors[1:]:
        common = b.Broadcast(common, shape_of(b, t), mode="bidirectional")
    return shape_of(b, common)


@aten("aten::broadcast_tensors")
def broadcast_tensors(node, a, b):
    """Every tensor broadcast to the shape they broadcast to together."""
    tensors = [t for t in a.tensors(0) if t is not None]
    if len(tensors) != node.num_outputs:
        raise ConversionError(f"broadcast_tensors of {len(tensors)} tensors, but the model uses {node.num_outputs}.")
    target = broadcast_shape(b, tensors)
    return [b.Broadcast(t, target, mode="numpy") for t in tensors]


def _split_bounds(node, b, x: Port, axis: int, a) -> list[tuple]:
    """The (start, stop) of each part of ``tensor_split`` (hsplit ...) by its argument 1: a number
    of ``sections`` (the first size % n parts one longer), ``indices`` (x[:i0], x[i0:i1], ...,
    x[ik:]), or a tensor that is either (0-d: sections, 1-D: indices). Bounds are ints or computed
    scalars."""
    name = a.names[1]
    value, port = a.value(1), a.port(1)
    if name == "indices" or (name != "sections" and (np.ndim(value) == 1 if value is not None
                                                      else port.data.get_rank() == 1)):
        if value is None and port is not None and name != "indices":        # computed by the model
            points = [b.Gather(convert(b, port, "i64"), np.int64(i), np.int64(0))
                      for i in range(port.data.get_shape()[0])]
        else:
            points = a.int_list(1) if value is None else [int(v) for v in np.atleast_1d(value)]
        return list(zip([0, *points], [*points, INT64_MAX]))
    size = x.data.get_shape()[axis]
    if value is not None and size >= 0:
        sections = int(value)
        if sections <= 0:
            raise ConversionError(f"tensor_split needs a positive number of sections, not {sections}.")
        q, r = divmod(size, sections)
        starts = [i * q + min(i, r) for i in range(sections + 1)]
        return list(zip(starts[:-1], starts[1:]))
    sections = scalar_int(b, port) if value is None else b.const(np.int64(value))
    size_p = dim_size(b, x, axis)
    q, r = b.Divide(size_p, sections), b.FloorMod(size_p, sections)
    starts = [b.Add(b.Multiply(q, np.int64(i)), b.Minimum(r, np.int64(i))) for i in range(node.num_outputs + 1)]
    return list(zip(starts[:-1], starts[1:]))


@aten("aten::tensor_split")
def tensor_split(node, a, b):
    """tensor_split(sections or indices, dim): Slices of the parts (see ``_split_bounds``)."""
    x = a.tensor(0)
    axis = norm_axis(a.const("dim", 0), rank_of(x, node), node)
    bounds = _split_bounds(node, b, x, axis, a)
    if len(bounds) != node.num_outputs:
        raise ConversionError(f"tensor_split gives {len(bounds)} parts, but the model uses {node.num_outputs}.")
    return [sliced(b, x, axis, start, stop) for start, stop in bounds]


@aten("aten::hsplit", "aten::vsplit", "aten::dsplit")
def hvd_split(node, a, b):
    """hsplit (dim 1, dim 0 of a 1-D tensor) / vsplit (dim 0) / dsplit (dim 2): tensor_split into
    equal sections (a number that must divide the size) or at indices."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    axis = {"aten::vsplit": 0, "aten::dsplit": 2}.get(node.fw_op, 1 if rank > 1 else 0)
    if axis >= rank:
        raise ConversionError(f"{node.fw_op} needs a tensor of at least {axis + 1} dims, not rank {rank}.")
    bounds = _split_bounds(node, b, x, axis, a)
    return [sliced(b, x, axis, start, stop) for start, stop in bounds]


@aten("aten::rot90")
def rot90(node, a, b):
    """rot90(k, dims): k quarter turns from dims[0] towards dims[1] (a flip of one dim and a
    transpose of the two; k = 2: a flip of both)."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    d0, d1 = (norm_axis(d, rank, node) for d in a.const("dims", [0, 1]))
    if d0 == d1:
        raise ConversionError("rot90 needs two different dims.")
    k = int(a.const("k", 1)) % 4
    order = list(range(rank))
    order[d0], order[d1] = order[d1], order[d0]
    if k == 0:
        return [x]
    if k == 2:
        return [_flipped(b, x, [d0, d1])]
    return [_permuted(b, _flipped(b, x, [d1 if k == 1 else d0]), order)]


def _flipped(b, x: Port, axes: list[int]) -> Port:
    n = len(axes)
    return b.Slice(x, i64([-1] * n), i64([INT64_MIN] * n), i64([-1] * n), i64(axes))


@aten("aten::fliplr", "aten::flipud")
def fliplr_flipud(node, a, b):
    """flipud: dim 0 reversed; fliplr: dim 1."""
    x = a.tensor(0)
    axis = 1 if node.fw_op == "aten::fliplr" else 0
    if rank_of(x, node) <= axis:
        raise ConversionError(f"{node.fw_op} needs a tensor of at least {axis + 1} dims.")
    return [_flipped(b, x, [axis])]


@aten("aten::atleast_1d", "aten::atleast_2d", "aten::atleast_3d")
def atleast_nd(node, a, b):
    """Each tensor with dims of size 1 added up to 1, 2 or 3 dims (atleast_3d: a 2-D [M, N]
    becomes [M, N, 1], 1-D [N] becomes [1, N, 1]; the others in front)."""
    rank = int(node.fw_op[-2])
    tensors = [t for t in a.tensors(0) if t is not None]
    out = []
    for t in tensors:
        r = rank_of(t, node)
        if rank == 3 and r in (1, 2):
            t = b.Unsqueeze(t, i64([0, 2] if r == 1 else [2]))
        else:
            t = _at_least(b, t, rank)
        out.append(t)
    return out


@aten("aten::column_stack")
def column_stack(node, a, b):
    """Tensors of up to 1 dim as columns ([N] -> [N, 1]), joined along dim 1 (types promoted)."""
    tensors = [t if rank_of(t, node) > 1 else reshape(b, t, [-1, 1]) for t in _promoted_list(b, a)]
    return [tensors[0] if len(tensors) == 1 else b.Concat(*tensors, axis=1)]


@aten("aten::dstack")
def dstack(node, a, b):
    """Tensors of up to 2 dims made 3-D (as atleast_3d), joined along dim 2 (types promoted)."""
    tensors = []
    for t in _promoted_list(b, a):
        r = rank_of(t, node)
        tensors.append(b.Unsqueeze(t, i64([0, 2] if r == 1 else [2])) if r in (1, 2) else _at_least(b, t, 3))
    return [tensors[0] if len(tensors) == 1 else b.Concat(*tensors, axis=2)]


@aten("aten::ravel")
def ravel(node, a, b):
    return [reshape(b, a.tensor(0), [-1])]


@aten("aten::mT", "aten::mH", "aten::adjoint")
def matrix_transpose(node, a, b):
    """The last two dims swapped (mH / adjoint: conjugated too, which real tensors are)."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    if rank < 2:
        raise ConversionError(f"{node.fw_op} needs a tensor of at least 2 dims, not rank {rank}.")
    return [_permuted(b, x, list(range(rank - 2)) + [rank - 1, rank - 2])]


@aten("aten::matrix_H")
def matrix_h(node, a, b):
    """The conjugate transpose of a matrix (real tensors: the transpose)."""
    x = a.tensor(0)
    if rank_of(x, node) != 2:
        raise ConversionError("matrix_H (Tensor.H) is defined for matrices (2-D tensors) only.")
    return [_permuted(b, x, [1, 0])]


# ---------------------------------------------------------------------------- diagonals


def _diagonal_of(node, b, x: Port, offset: int, dim1: int, dim2: int) -> Port:
    """The ``offset`` diagonal of the planes (dim1, dim2), as the last dim: those dims moved to
    the end and flattened, the diagonal's flat positions (i + max(-offset, 0)) * n2 + i +
    max(offset, 0), i < max(0, min(n1 + min(offset, 0), n2 - max(offset, 0))) gathered."""
    rank = rank_of(x, node)
    d1, d2 = norm_axis(dim1, rank, node), norm_axis(dim2, rank, node)
    if d1 == d2:
        raise ConversionError("diagonal needs two different dims.")
    rest = [d for d in range(rank) if d not in (d1, d2)]
    moved = _permuted(b, x, rest + [d1, d2])
    n1, n2 = dim_size(b, x, d1), dim_size(b, x, d2)
    flat = reshape(b, moved, dims_of(b, moved, 0, rank - 2) + [-1])
    length = b.Maximum(b.Minimum(b.Add(n1, np.int64(min(offset, 0))), b.Subtract(n2, np.int64(max(offset, 0)))),
                       np.int64(0))
    i = b.Range(np.int64(0), length, np.int64(1), output_type="i64")
    positions = b.Add(b.Multiply(b.Add(i, np.int64(max(-offset, 0))), n2), b.Add(i, np.int64(max(offset, 0))))
    return b.Gather(flat, positions, np.int64(rank - 2))


@aten("aten::diagonal", "aten::diagonal_copy", "aten::linalg_diagonal")
def diagonal(node, a, b):
    """diagonal(offset, dim1, dim2) (linalg.diagonal: dims -2, -1 by default)."""
    linalg = node.fw_op == "aten::linalg_diagonal"
    default = (-2, -1) if linalg else (0, 1)
    dim1, dim2 = (int(a.const(k, d)) for k, d in zip(("dim1", "dim2"), default))
    return [_diagonal_of(node, b, a.tensor(0), int(a.const("offset", 0)), dim1, dim2)]


@aten("aten::diagonal_scatter")
def diagonal_scatter(node, a, b):
    """diagonal_scatter(src, offset, dim1, dim2): src (the diagonal as its last dim) written on the
    ``offset`` diagonal of the planes (dim1, dim2): those dims moved last, a Select of the diagonal
    mask (j - i == offset) between src spread along rows (columns for a negative offset) and x."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    rank = rank_of(x, node)
    offset = int(a.const("offset", 0))
    d1, d2 = (norm_axis(int(a.const(k, d)), rank, node) for k, d in (("dim1", 0), ("dim2", 1)))
    if d1 == d2:
        raise ConversionError("diagonal_scatter needs two different dims.")
    order = [d for d in range(rank) if d not in (d1, d2)] + [d1, d2]
    moved = _permuted(b, x, order)
    src = convert(b, a.tensor("src"), et)
    src_rank = rank_of(src, node)
    # one padding element, so that the positions off the diagonal (clamped to it) read something
    src = b.Pad(src, np.zeros(src_rank, np.int64), np.eye(src_rank, dtype=np.int64)[-1], const(b, 0, et),
                pad_mode="constant")
    last = b.Subtract(dim_size(b, src, src_rank - 1), np.int64(1))
    rows, cols = (b.Range(np.int64(0), dim_size(b, x, d), np.int64(1), output_type="i64") for d in (d1, d2))
    on_diagonal = b.Equal(b.Subtract(b.Unsqueeze(cols, np.int64(0)), b.Unsqueeze(rows, np.int64(1))),
                          np.int64(offset))                                         # [n1, n2]
    along = rows if offset >= 0 else cols
    values = b.Gather(src, b.Minimum(along, last), np.int64(src_rank - 1))
    values = b.Unsqueeze(values, np.int64(-1 if offset >= 0 else -2))
    written = b.Select(on_diagonal, values, moved)
    return [_permuted(b, written, [order.index(d) for d in range(rank)])]


def _embedded(node, b, x: Port, offset: int, dim1: int, dim2: int) -> Port:
    """Matrices of side n = size + |offset| with x's last dim on the ``offset`` diagonal and zeros
    elsewhere, placed at dims (dim1, dim2) of the result (rank + 1 dims)."""
    rank = rank_of(x, node)
    out_rank = rank + 1
    d1, d2 = norm_axis(dim1, out_rank, node), norm_axis(dim2, out_rank, node)
    if d1 == d2:
        raise ConversionError("diag_embed needs two different dims.")
    k = abs(offset)
    if k:
        pads = np.zeros(rank, np.int64)
        ends = pads.copy()
        ends[-1] = k
        x = b.Pad(x, pads, ends, const(b, 0, x.data.get_dtype()), pad_mode="constant")
    n = dim_size(b, x, rank - 1)
    rows = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    on_diagonal = b.Equal(b.Subtract(b.Unsqueeze(rows, np.int64(0)), b.Unsqueeze(rows, np.int64(1))),
                          np.int64(offset))                                        # [n, n]: j - i == offset
    values = b.Unsqueeze(x, np.int64(-1 if offset >= 0 else -2))                  # x[..., i] or x[..., j]
    planes = b.Select(on_diagonal, values, const(b, 0, x.data.get_dtype()))       # [..., n, n]
    order = [None] * out_rank
    order[d1], order[d2] = rank - 1, rank
    rest = iter(range(rank - 1))
    return _permuted(b, planes, [o if o is not None else next(rest) for o in order])


@aten("aten::diag_embed")
def diag_embed(node, a, b):
    """diag_embed(offset, dim1=-2, dim2=-1): the last dim as the diagonal of new planes."""
    return [_embedded(node, b, a.tensor(0), int(a.const("offset", 0)), int(a.const("dim1", -2)),
                      int(a.const("dim2", -1)))]


@aten("aten::diag")
def diag(node, a, b):
    """diag(diagonal): a vector as the diagonal of a matrix, or a matrix's diagonal as a vector."""
    x = a.tensor(0)
    offset = int(a.const("diagonal", 0))
    rank = rank_of(x, node)
    if rank == 1:
        return [_embedded(node, b, x, offset, 0, 1)]
    if rank == 2:
        return [_diagonal_of(node, b, x, offset, 0, 1)]
    raise ConversionError(f"diag takes a vector or a matrix, not a rank-{rank} tensor.")


@aten("aten::diagflat")
def diagflat(node, a, b):
    """The flattened input as the ``offset`` diagonal of a matrix."""
    return [_embedded(node, b, reshape(b, a.tensor(0), [-1]), int(a.const("offset", 0)), 0, 1)]


# ---------------------------------------------------------------------------- products of lists


@aten("aten::block_diag")
def block_diag(node, a, b):
    """The tensors (0-d: 1x1, 1-D: a row) on the diagonal of one matrix, zeros elsewhere (types
    promoted): each padded with zero columns to the total width, then joined as rows."""
    tensors = [t if rank_of(t, node) == 2 else reshape(b, t, [1, -1]) for t in _promoted_list(b, a)]
    et = tensors[0].data.get_dtype()
    widths = [dim_size(b, t, 1) for t in tensors]
    total = widths[0]
    for w in widths[1:]:
        total = b.Add(total, w)
    rows, before = [], b.const(np.int64(0))
    for t, w in zip(tensors, widths):
        after = b.Subtract(b.Subtract(total, before), w)
        begins = b.Concat(i64([0]), b.Unsqueeze(before, i64(0)), axis=0)
        ends = b.Concat(i64([0]), b.Unsqueeze(after, i64(0)), axis=0)
        rows.append(b.Pad(t, begins, ends, const(b, 0, et), pad_mode="constant"))
        before = b.Add(before, w)
    return [rows[0] if len(rows) == 1 else b.Concat(*rows, axis=0)]


@aten("aten::cartesian_prod")
def cartesian_prod(node, a, b):
    """Every combination of one element of each 1-D tensor, as rows [N, k] (one tensor: itself)."""
    tensors = _promoted_list(b, a)
    if len(tensors) == 1:
        return [tensors[0]]
    grid = [dim_size(b, t, 0) for t in tensors]
    columns = []
    for i, t in enumerate(tensors):
        axes = [d for d in range(len(tensors)) if d != i]
        spread = b.Broadcast(b.Unsqueeze(t, i64(axes)), int_list_port(b, grid), mode="numpy")
        columns.append(reshape(b, spread, [-1, 1]))
    return [b.Concat(*columns, axis=1)]


@aten("aten::combinations")
def combinations(node, a, b):
    """combinations(x, r, with_replacement): the r-element combinations of a 1-D tensor of static
    length, in lexicographic order of positions, as rows [C, r] (a Gather of constant positions)."""
    import itertools
    x = a.tensor(0)
    n = x.data.get_shape()[0] if rank_of(x, node) == 1 else -1
    if n < 0:
        raise ConversionError("combinations takes a 1-D tensor of a size known when converting.")
    r = int(a.const("r", 2))
    chosen = itertools.combinations_with_replacement(range(n), r) if a.const("with_replacement", False) else \
        itertools.combinations(range(n), r)
    positions = np.array(list(chosen), np.int64).reshape(-1, r)
    if positions.size == 0:
        return [b.Broadcast(const(b, 0, x.data.get_dtype()), i64([0] if r == 0 else [0, r]))]
    return [b.Gather(x, b.const(positions), np.int64(0))]


@aten("aten::sum_to_size")
def sum_to_size(node, a, b):
    """The sum over the dims that broadcasting to ``size`` would expand: the leading extra ones
    and those where size is 1. As in PyTorch, a sum (integers and booleans in i64) is taken when
    there are such dims or ``size`` is empty; otherwise the tensor is returned as it is."""
    x = a.tensor(0)
    size = [int(s) for s in a.int_list(1)]
    rank = rank_of(x, node)
    shape = x.data.get_shape()
    lead = rank - len(size)
    axes = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1]
    if not axes and size:
        return [x]
    et = x.data.get_dtype()
    y = x if is_float_type(et) else convert(b, x, "i64")
    if axes:
        y = b.ReduceSum(y, i64(axes), keep_dims=True)
    return [reshape(b, y, size)]


@aten("aten::_chunk_cat")
def chunk_cat(node, a, b):
    """_chunk_cat(tensors, dim, num_chunks): each tensor split into num_chunks chunks along dim
    (padded with zeros to a multiple), each chunk flattened after dim, and the tensors' chunks
    joined along the last dim: [..., num_chunks, sum of chunk sizes]."""
    tensors = _promoted_list(b, a)
    chunks = int(a.const("num_chunks"))
    rank = rank_of(tensors[0], node)
    axis = norm_axis(a.const("dim"), rank, node)
    parts = []
    for t in tensors:
        size = t.data.get_shape()[axis]
        if size < 0:
            raise ConversionError("_chunk_cat along a dimension of unknown size is not supported.")
        padded_size = -(-size // chunks) * chunks
        if padded_size != size:
            ends = np.zeros(rank, np.int64)
            ends[axis] = padded_size - size
            t = b.Pad(t, np.zeros(rank, np.int64), ends, const(b, 0, t.data.get_dtype()), pad_mode="constant")
        parts.append(reshape(b, t, dims_of(b, t, 0, axis) + [chunks, -1]))
    return [parts[0] if len(parts) == 1 else b.Concat(*parts, axis=axis + 1)]


# ---------------------------------------------------------------------------- gradient


def _along_axis(b, t: Port, axis: int, rank: int) -> Port:
    """A 1-D ``t`` as a rank-``rank`` tensor along ``axis`` (size 1 elsewhere)."""
    others = [d for d in range(rank) if d != axis]
    return b.Unsqueeze(t, i64(others)) if others else t


@aten("aten::gradient")
def gradient(node, a, b):
    """gradient(spacing, dim, edge_order): per dim, second-order central differences inside and
    one-sided differences of ``edge_order`` 1 or 2 at the ends, for a uniform spacing (a number,
    one per dim) or the coordinates given as 1-D tensors; one tensor per dim."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    if et not in ("f16", "bf16", "f32", "f64"):
        x, et = convert(b, x, "f32"), "f32"
    rank = rank_of(x, node)
    dims = a.const("dim", None) if a.has("dim") else None
    dims = list(range(rank)) if dims is None else [norm_axis(d, rank, node) for d in np.atleast_1d(dims)]
    order = int(a.const("edge_order", 1))
    spacing_types = a.types[a.index("spacing")] if a.has("spacing") else ""
    if "Tensor" in spacing_types:
        coordinates = [convert(b, t, et) for t in a.tensors("spacing")]
    else:
        spacing = a.const("spacing", None) if a.has("spacing") else None
        steps = [1.0] * len(dims) if spacing is None else [float(s) for s in np.atleast_1d(spacing)]
        steps = steps * len(dims) if len(steps) == 1 else steps
        coordinates = [None] * len(dims)
    outputs = []
    for i, axis in enumerate(dims):
        n = x.data.get_shape()[axis]
        if n < order + 1:
            raise ConversionError(f"gradient along a dimension of size {n} needs at least {order + 1} values "
                                  f"(edge_order {order}).")
        coords = coordinates[i] if coordinates[i] is not None else \
            const(b, np.arange(n, dtype=np.float64) * steps[i], et)
        coords = _along_axis(b, coords, axis, rank)

        def part(t, start, stop):
            return sliced(b, t, axis, start, stop)
        f0, f1, f2 = part(x, 0, n - 2), part(x, 1, n - 1), part(x, 2, n)
        c0, c1, c2 = part(coords, 0, n - 2), part(coords, 1, n - 1), part(coords, 2, n)
        hl, hr = b.Subtract(c1, c0), b.Subtract(c2, c1)
        total = b.Add(hl, hr)
        inner = b.Add(b.Add(b.Multiply(b.Negative(b.Divide(hr, b.Multiply(hl, total))), f0),
                            b.Multiply(b.Divide(b.Subtract(hr, hl), b.Multiply(hl, hr)), f1)),
                      b.Multiply(b.Divide(hl, b.Multiply(hr, total)), f2))
        if order == 1:
            first = b.Divide(b.Subtract(part(x, 1, 2), part(x, 0, 1)),
                             b.Subtract(part(coords, 1, 2), part(coords, 0, 1)))
            last = b.Divide(b.Subtract(part(x, n - 1, n), part(x, n - 2, n - 1)),
                            b.Subtract(part(coords, n - 1, n), part(coords, n - 2, n - 1)))
        else:
            h1, h2 = part(hl, 0, 1), part(hr, 0, 1)
            s = b.Add(h1, h2)
            first = b.Add(b.Add(b.Multiply(b.Negative(b.Divide(b.Add(b.Add(h1, h1), h2), b.Multiply(h1, s))),
                                           part(x, 0, 1)),
                                b.Multiply(b.Divide(s, b.Multiply(h1, h2)), part(x, 1, 2))),
                          b.Multiply(b.Negative(b.Divide(h1, b.Multiply(h2, s))), part(x, 2, 3)))
            h1, h2 = part(hl, n - 3, n - 2), part(hr, n - 3, n - 2)
            s = b.Add(h1, h2)
            last = b.Add(b.Add(b.Multiply(b.Divide(h2, b.Multiply(h1, s)), part(x, n - 3, n - 2)),
                               b.Multiply(b.Negative(b.Divide(s, b.Multiply(h1, h2))), part(x, n - 2, n - 1))),
                         b.Multiply(b.Divide(b.Add(b.Add(h2, h2), h1), b.Multiply(h2, s)), part(x, n - 1, n)))
        outputs.append(b.Concat(first, inner, last, axis=axis))
    return outputs
