"""Lowering of the ATen operations that rearrange tensors: view / reshape / flatten / unflatten,
permute / transpose / movedim, squeeze / unsqueeze, expand / repeat / tile, cat / stack, split /
chunk / unbind, flip / roll, narrow, tril / triu, pixel_shuffle."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import (
    AtenOp,
    const,
    convert,
    dim_size,
    int_list_port,
    norm_axis,
    promote_types,
    rank_of,
    reshape,
    scalar_int,
    shape_of,
)
from mo.errors import ConversionError
from mo.graph.port import Port

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def dims_of(b, x: Port, begin: int, end: int) -> list[int | Port]:
    """The sizes of dims [begin, end) of ``x``: ints where static, else a slice of its shape."""
    shape = x.data.get_shape()
    if end <= begin:
        return []
    if all(d >= 0 for d in shape[begin:end]):
        return [int(d) for d in shape[begin:end]]
    return [b.Slice(shape_of(b, x), b.const(np.array([begin], np.int64)), b.const(np.array([end], np.int64)),
                    b.const(np.array([1], np.int64)))]


def sliced(b, x: Port, axis: int, start, stop, step=1) -> Port:
    """x[..., start:stop:step, ...] along ``axis`` (bounds are ints or computed scalars)."""
    def one(v) -> Port:
        return b.const(np.array([v], np.int64)) if not isinstance(v, Port) else \
            b.Reshape(convert(b, v, "i64"), b.const(np.array([1], np.int64)), special_zero=False)
    return b.Slice(x, one(start), one(stop), one(step), b.const(np.array([axis], np.int64)))


class AtenReshape(AtenOp):
    """view / reshape (-1 infers a dim), view_as / reshape_as, flatten, unflatten."""

    op = "pytorch::Reshape"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        if kind in ("aten::view_as", "aten::reshape_as"):
            return [b.Reshape(x, shape_of(b, a.tensor(1)), special_zero=False)]
        if kind in ("aten::flatten", "aten::unflatten"):
            rank = rank_of(x, node)
            if kind == "aten::flatten":
                if rank == 0:
                    return [reshape(b, x, [1])]
                start = norm_axis(a.const("start_dim", 0), rank, node)
                end = norm_axis(a.const("end_dim", -1), rank, node)
                target = dims_of(b, x, 0, start) + [-1] + dims_of(b, x, end + 1, rank)
            else:
                axis = norm_axis(a.const("dim"), rank, node)
                target = dims_of(b, x, 0, axis) + list(a.int_list("sizes")) + dims_of(b, x, axis + 1, rank)
            return [reshape(b, x, target)]
        size = a.int_list(1)
        return [reshape(b, x, size)]


def _permutation(node, a, rank: int) -> list[int]:
    kind = node.fw_op
    order = list(range(rank))
    if kind == "aten::permute":
        return [norm_axis(d, rank, node) for d in a.const("dims")]
    if kind == "aten::t":
        return order[::-1]
    if kind in ("aten::transpose", "aten::swapaxes", "aten::swapdims"):
        i, j = (norm_axis(a.const(k), rank, node) for k in (1, 2))
        order[i], order[j] = order[j], order[i]
        return order
    # movedim / moveaxis(source, destination)
    src = [norm_axis(d, rank, node) for d in np.atleast_1d(a.const(1))]
    dst = [norm_axis(d, rank, node) for d in np.atleast_1d(a.const(2))]
    rest = [d for d in order if d not in src]
    result = [None] * rank
    for s, d in zip(src, dst):
        result[d] = s
    it = iter(rest)
    return [r if r is not None else next(it) for r in result]


class AtenPermute(AtenOp):
    """permute / transpose / t / movedim / swapaxes as one Transpose."""

    op = "pytorch::Permute"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        rank = rank_of(x, node)
        order = _permutation(node, a, rank)
        if order == list(range(rank)):
            return [x]
        return [b.Transpose(x, b.const(np.array(order, np.int64)))]


class AtenSqueeze(AtenOp):
    """squeeze (all size-1 dims, or the given dims if they are 1) and unsqueeze."""

    op = "pytorch::Squeeze"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        rank = rank_of(x, node)
        if node.fw_op == "aten::unsqueeze":
            return [b.Unsqueeze(x, b.const(np.int64(norm_axis(a.const("dim"), rank + 1, node))))]
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
        return [b.Squeeze(x, b.const(np.array(axes, np.int64)), allow_axis_skip=dynamic)]


class AtenExpand(AtenOp):
    """expand / broadcast_to (-1 keeps a dim), expand_as, repeat / tile, repeat_interleave."""

    op = "pytorch::Expand"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        if kind == "aten::expand_as":
            return [b.Broadcast(x, shape_of(b, a.tensor(1)), mode="bidirectional")]
        if kind in ("aten::repeat", "aten::tile"):
            return [b.Tile(x, int_list_port(b, a.int_list(1)))]
        if kind == "aten::repeat_interleave":
            return [cls._interleave(node, a, b, x)]
        size = a.int_list(1)
        rank = rank_of(x, node)
        lead = len(size) - rank
        target: list = []
        for i, s in enumerate(size):
            if not isinstance(s, Port) and s == -1:
                if i < lead:
                    raise ConversionError(f"expand cannot keep (-1) a new leading dimension in {node.name}.")
                target.extend(dims_of(b, x, i - lead, i - lead + 1))
            else:
                target.append(s)
        return [b.Broadcast(x, int_list_port(b, target), mode="numpy")]

    @staticmethod
    def _interleave(node, a, b, x):
        repeats = a.const("repeats")
        if isinstance(repeats, list):
            if len(set(repeats)) != 1:
                raise ConversionError(f"repeat_interleave with per-element repeats is not supported ({node.name}).")
            repeats = repeats[0]
        dim = a.const("dim", None)
        if dim is None:
            x = reshape(b, x, [-1])
            dim = 0
        rank = rank_of(x, node)
        axis = norm_axis(dim, rank, node)
        expanded = b.Unsqueeze(x, b.const(np.int64(axis + 1)))
        tiles = [1] * (rank + 1)
        tiles[axis + 1] = int(repeats)
        tiled = b.Tile(expanded, b.const(np.array(tiles, np.int64)))
        return reshape(b, tiled, dims_of(b, x, 0, axis) + [-1] + dims_of(b, x, axis + 1, rank))


class AtenConcat(AtenOp):
    """cat / concat (types promoted) and stack (new dim)."""

    op = "pytorch::Concat"

    @classmethod
    def build(cls, node, a, b):
        tensors = [t for t in a.tensors(0) if t is not None]
        et = None
        for t in tensors:
            et = promote_types(et, t.data.get_dtype())
        tensors = [convert(b, t, et) for t in tensors]
        dim = a.const("dim", 0) if a.has("dim") else 0
        if node.fw_op == "aten::stack":
            rank = rank_of(tensors[0], node) + 1
            axis = norm_axis(dim, rank, node)
            tensors = [b.Unsqueeze(t, b.const(np.int64(axis))) for t in tensors]
        else:
            # a 1-D empty tensor is skipped by cat (legacy behaviour)
            kept = [t for t in tensors if t.data.get_shape() != (0,)]
            tensors = kept or tensors[:1]
            axis = norm_axis(dim, rank_of(tensors[0], node), node)
        if len(tensors) == 1:
            return [tensors[0]]
        return [b.Concat(*tensors, axis=axis)]


class AtenSplit(AtenOp):
    """split (by size or sizes) / split_with_sizes / chunk / unbind / tensor_split into the
    node's outputs."""

    op = "pytorch::Split"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        rank = rank_of(x, node)
        count = node.num_outputs
        axis = norm_axis(a.const("dim", 0), rank, node)
        size = x.data.get_shape()[axis]
        axis_port = b.const(np.int64(axis))
        if kind == "aten::unbind":
            parts = b.Split(x, axis_port, num_splits=count) if count > 1 else (x,)
            parts = parts if isinstance(parts, tuple) else (parts,)
            return [b.Squeeze(p, b.const(np.array([axis], np.int64))) for p in parts]
        if kind == "aten::chunk":
            chunks = int(a.const("chunks"))
            if size >= 0:
                per = -(-size // chunks)
                lengths = [min(per, size - i * per) for i in range(-(-size // per))] if size else [0]
            else:
                per = b.Divide(b.Add(dim_size(b, x, axis), b.const(np.int64(chunks - 1))), b.const(np.int64(chunks)))
                lengths = [per] * (count - 1) + [-1]
        else:
            split = a.int_list(1)
            if len(split) == 1 and kind == "aten::split" and not a.types[1].startswith("List"):
                step = split[0]
                if size >= 0:
                    lengths = [min(step, size - i) for i in range(0, size, step)] if size else [0]
                else:
                    lengths = [step] * (count - 1) + [-1]
            else:
                lengths = split
        if len(lengths) != count:
            raise ConversionError(f"{node.name} splits into {len(lengths)} parts, but {count} are used.")
        if count == 1:
            return [x]
        parts = b.VariadicSplit(x, axis_port, int_list_port(b, lengths))
        return list(parts)


class AtenMeshgrid(AtenOp):
    """meshgrid(tensors, indexing): each 1-D input broadcast over the grid of all their sizes
    ("xy" swaps the roles of the first two)."""

    op = "pytorch::Meshgrid"

    @classmethod
    def build(cls, node, a, b):
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


class AtenFlip(AtenOp):
    """flip(dims) as Slices with step -1; roll(shifts, dims) as two Slices and a Concat per dim."""

    op = "pytorch::Flip"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        rank = rank_of(x, node)
        if node.fw_op == "aten::flip":
            axes = [norm_axis(d, rank, node) for d in np.atleast_1d(a.const("dims"))]
            n = len(axes)
            return [b.Slice(x, b.const(np.full(n, -1, np.int64)), b.const(np.full(n, INT64_MIN, np.int64)),
                            b.const(np.full(n, -1, np.int64)), b.const(np.array(axes, np.int64)))]
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
                raise ConversionError(f"roll along a dynamic dimension is not supported ({node.name}).")
            shift %= max(size, 1)
            if shift:
                y = b.Concat(sliced(b, y, axis, size - shift, size), sliced(b, y, axis, 0, size - shift), axis=axis)
        if source is not x:
            y = b.Reshape(y, shape_of(b, x), special_zero=False)
        return [y]


class AtenNarrow(AtenOp):
    """narrow(dim, start, length) as a Slice."""

    op = "pytorch::Narrow"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        axis = norm_axis(a.const("dim"), rank_of(x, node), node)
        start = a.port("start")
        start_v = a.value("start")
        length = a.tensor("length")
        start = int(start_v) if start_v is not None else start
        stop = b.Add(scalar_int(b, start), convert(b, length, "i64"))
        return [sliced(b, x, axis, start, stop)]


class AtenDiff(AtenOp):
    """diff(n, dim, prepend, append): n times x[1:] - x[:-1] along dim (booleans: not-equal)."""

    op = "pytorch::Diff"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        axis = norm_axis(a.const("dim", -1), rank_of(x, node), node)
        parts = [a.tensor(k) for k in ("prepend",) if not a.is_none(k)] + [x] + \
            [a.tensor(k) for k in ("append",) if not a.is_none(k)]
        y = b.Concat(*[convert(b, p, x.data.get_dtype()) for p in parts], axis=axis) if len(parts) > 1 else x
        for _ in range(int(a.const("n", 1))):
            later, earlier = sliced(b, y, axis, 1, INT64_MAX), sliced(b, y, axis, 0, -1)
            y = b.NotEqual(later, earlier) if y.data.get_dtype() == "boolean" else b.Subtract(later, earlier)
        return [y]


class AtenTriangle(AtenOp):
    """tril / triu(diagonal): the elements on one side of a diagonal of the last two dims."""

    op = "pytorch::Triangle"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        rank = rank_of(x, node)
        k = int(a.const("diagonal", 0))
        zero, one = b.const(np.int64(0)), b.const(np.int64(1))
        rows = b.Range(zero, dim_size(b, x, rank - 2), one, output_type="i64")
        cols = b.Range(zero, dim_size(b, x, rank - 1), one, output_type="i64")
        offset = b.Subtract(cols, b.Unsqueeze(rows, b.const(np.int64(1))))   # j - i
        keep = b.LessEqual(offset, b.const(np.int64(k))) if node.fw_op == "aten::tril" else \
            b.GreaterEqual(offset, b.const(np.int64(k)))
        return [b.Select(keep, x, const(b, 0, x.data.get_dtype()))]


class AtenChannelShuffle(AtenOp):
    """channel_shuffle(groups): channels seen as [groups, C / groups], transposed."""

    op = "pytorch::ChannelShuffle"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        rank = rank_of(x, node)
        groups = int(a.const("groups"))
        grouped = reshape(b, x, dims_of(b, x, 0, 1) + [groups, -1] + dims_of(b, x, 2, rank))
        order = [0, 2, 1] + list(range(3, rank + 1))
        return [b.Reshape(b.Transpose(grouped, b.const(np.array(order, np.int64))), shape_of(b, x),
                          special_zero=False)]


class AtenPixelShuffle(AtenOp):
    """pixel_shuffle / pixel_unshuffle as DepthToSpace / SpaceToDepth (channels as [C, r, r])."""

    op = "pytorch::PixelShuffle"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        if rank_of(x, node) != 4:
            raise ConversionError(f"pixel_shuffle of a rank-{rank_of(x, node)} tensor is not supported.")
        if node.fw_op == "aten::pixel_shuffle":
            return [b.DepthToSpace(x, block_size=int(a.const(1)), mode="depth_first")]
        return [b.SpaceToDepth(x, block_size=int(a.const(1)), mode="depth_first")]
