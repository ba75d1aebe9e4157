"""TensorFlow shape and data movement operations: extractors for those with an opset
counterpart, translators for Concat, Pack, Unpack, Split(V), Pad, Slice, Squeeze, Gather (v1),
ReverseV2, Where, Fill, Size and Rank."""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import INT64_MIN, i64
from mo.utils.shape import DYN

INT32_MAX = np.iinfo(np.int32).max

# TensorFlow op type -> opset op with the same inputs and no attributes to translate.
SAME_INPUTS = {"Reshape": "Reshape", "ExpandDims": "Unsqueeze", "Transpose": "Transpose", "Tile": "Tile",
               "BroadcastTo": "Broadcast", "GatherNd": "GatherND"}


def _op(node, name: str):
    return node.graph.registry.op(name)


class SameInputsExtractor(TfExtractor):
    op_types = tuple(SAME_INPUTS)

    @classmethod
    def becomes(cls, op_type: str) -> list[str]:
        return [SAME_INPUTS[op_type]]

    @classmethod
    def extract(cls, node):
        attrs = {"batch_dims": 0} if node.fw_op == "GatherNd" else {}
        _op(node, SAME_INPUTS[node.fw_op]).update_node(node, attrs)


class ShapeExtractor(TfExtractor):
    op_types = ("Shape",)

    @classmethod
    def extract(cls, node):
        _op(node, "ShapeOf").update_node(node, {"output_type": cls.dtype(node, "out_type") or "i32"})


class GatherV2Extractor(TfExtractor):
    op_types = ("GatherV2", "ResourceGather")

    @classmethod
    def extract(cls, node):
        _op(node, "Gather").update_node(node, {"batch_dims": int(cls.attr(node, "batch_dims", 0))})


class StridedSliceExtractor(TfExtractor):
    """StridedSlice: the masks are bit fields in TensorFlow and lists of 0/1 in the opset, one
    entry per element of begin (the index spec)."""

    op_types = ("StridedSlice",)
    masks = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")

    @classmethod
    def extract(cls, node):
        begin = node.in_port(1).data.get_value()
        bits = {m: int(cls.attr(node, m, 0)) for m in cls.masks}
        width = max([begin.size if begin is not None else 1] + [b.bit_length() for b in bits.values()])
        attrs = {m: [(bits[m] >> i) & 1 for i in range(width)] for m in cls.masks}
        _op(node, "StridedSlice").update_node(node, attrs)


class RangeExtractor(TfExtractor):
    op_types = ("Range",)

    @classmethod
    def extract(cls, node):
        _op(node, "Range").update_node(node, {"output_type": cls.dtype(node, "Tidx") or "i32"})


class CumsumExtractor(TfExtractor):
    op_types = ("Cumsum",)

    @classmethod
    def extract(cls, node):
        _op(node, "CumSum").update_node(node, {"exclusive": bool(cls.attr(node, "exclusive", False)),
                                               "reverse": bool(cls.attr(node, "reverse", False))})


class OneHotExtractor(TfExtractor):
    """OneHot(indices, depth, on_value, off_value): negative indices give all-off rows."""

    op_types = ("OneHot",)

    @classmethod
    def extract(cls, node):
        _op(node, "OneHot").update_node(node, {"axis": int(cls.attr(node, "axis", -1)),
                                               "negative_indices_mode": "ignore_negative"})


# ---------------------------------------------------------------------------- translators


def constant_input(node, port: int, what: str) -> np.ndarray:
    """Value of an input that converting needs as a constant (an axis, a window...)."""
    value = node.in_port(port).data.get_value()
    if value is None:
        raise ConversionError(f"its {what} (input {port}) is not constant, which is not supported.")
    return value


def foldable_value(port) -> np.ndarray | None:
    """The value of ``port`` when it may become a Const: known and, unless --static_shape, not
    derived from a model input's shape (that stays computed so the IR stays reshapeable)."""
    value = port.data.get_value()
    graph = port.node.graph
    if value is None or graph.options.static_shape:
        return value
    return None if graph._node[graph.output_data(port.node.id, port.idx)].get("shape_derived") else value


def _concat(b, node, values, axis_port: int):
    axis = int(constant_input(node, axis_port, "axis"))
    return [b.Concat(*values, axis=axis)]


@translator("tf", "ConcatV2")
def concat_v2(node, b):
    """ConcatV2(values..., axis)."""
    ports = [node.in_port(i).get_source() for i in sorted(node.in_ports())]
    return _concat(b, node, ports[:-1], len(ports) - 1)


@translator("tf", "Concat")
def concat(node, b):
    """Concat(axis, values...)."""
    ports = [node.in_port(i).get_source() for i in sorted(node.in_ports())]
    return _concat(b, node, ports[1:], 0)


@translator("tf", "Pack")
def pack(node, b):
    """Concat of the inputs, each unsqueezed at ``axis``."""
    axis = int(TfExtractor.attr(node, "axis", 0))
    parts = [b.Unsqueeze(node.in_port(i).get_source(), i64(axis)) for i in sorted(node.in_ports())]
    return parts if len(parts) == 1 else [b.Concat(*parts, axis=axis)]


@translator("tf", "Unpack")
def unpack(node, b):
    """Split along ``axis`` into ``num`` parts, each squeezed."""
    axis, n = int(TfExtractor.attr(node, "axis", 0)), int(TfExtractor.attr(node, "num"))
    x = node.in_port(0).get_source()
    parts = b.Split(x, np.int64(axis), num_splits=n) if n > 1 else (x,)
    return [b.Squeeze(p, i64(axis), name=f"{node.name}:{i}") for i, p in enumerate(parts)]


def _parts(parts) -> list:
    return list(parts) if isinstance(parts, tuple) else [parts]


@translator("tf", "Split")
def split(node, b):
    """Split(axis, value) into ``num_split`` equal parts."""
    axis, value = node.in_port(0).get_source(), node.in_port(1).get_source()
    n = int(TfExtractor.attr(node, "num_split"))
    return _parts(b.Split(value, axis, num_splits=n, name=node.name))


@translator("tf", "SplitV")
def split_v(node, b):
    """SplitV(value, size_splits, axis) -> VariadicSplit."""
    value, sizes, axis = (node.in_port(i).get_source() for i in range(3))
    n = int(TfExtractor.attr(node, "num_split"))
    return _parts(b.VariadicSplit(value, axis, sizes, num_outputs=n, name=node.name))


@translator("tf", "Pad", "PadV2", "MirrorPad")
def pad(node, b):
    """Paddings [rank, 2] -> pads_begin = paddings[:, 0], pads_end = paddings[:, 1]; PadV2's
    input 2 is the constant value, MirrorPad's ``mode`` REFLECT or SYMMETRIC."""
    x, pads = node.in_port(0).get_source(), node.in_port(1).get_source()
    rank, shape = x.data.get_rank(), pads.data.get_shape()
    if shape is not None and (len(shape) != 2 or shape[1] not in (2, DYN) or
                              (rank is not None and shape[0] not in (rank, DYN))):
        raise ConversionError(f"the paddings have shape {list(shape)}; {node.fw_op} takes [rank, 2] paddings"
                              f"{'' if rank is None else f' ([{rank}, 2] for this input)'}")
    value = foldable_value(pads)
    if value is not None:
        begin, end = i64(value[:, 0]), i64(value[:, 1])
    else:
        pads = b.Convert(pads, destination_type="i64")
        begin, end = (b.Gather(pads, np.int64(k), np.int64(1)) for k in (0, 1))
    fill = node.in_port(2).get_source() if node.is_in_port_connected(2) else None
    mode = str(TfExtractor.attr(node, "mode", "CONSTANT")).lower()
    return [b.Pad(x, begin, end, fill, pad_mode=mode)]


@translator("tf", "Slice")
def slice_(node, b):
    """Slice(input, begin, size) -> Slice(input, begin, begin + size, 1), a size of -1 reaching
    the end of the dimension."""
    x, begin, size = (node.in_port(i).get_source() for i in range(3))
    begin_v, size_v = foldable_value(begin), foldable_value(size)
    if begin_v is not None and size_v is not None:
        stop = np.where(size_v == -1, INT32_MAX, begin_v.astype(np.int64) + size_v).astype(np.int64)
        return [b.Slice(x, begin_v.astype(np.int64), stop, np.ones(begin_v.shape, np.int64))]
    limit = b.ConvertLike(np.int64(INT32_MAX), size)
    stop = b.Select(b.Equal(size, b.ConvertLike(np.int64(-1), size)), limit, b.Add(begin, size))
    step = b.Add(b.Multiply(begin, b.ConvertLike(np.int64(0), begin)), b.ConvertLike(np.int64(1), begin))
    return [b.Slice(x, begin, stop, step)]


@translator("tf", "Squeeze")
def squeeze(node, b):
    """Squeeze of ``squeeze_dims`` (empty: every dimension of size 1)."""
    dims = list(TfExtractor.attr(node, "squeeze_dims", []) or [])
    return [b.Squeeze(node.in_port(0).get_source(), i64(dims) if dims else None)]


@translator("tf", "Gather")
def gather(node, b):
    """Gather (v1): params[indices] along axis 0."""
    return [b.Gather(node.in_port(0).get_source(), node.in_port(1).get_source(), np.int64(0))]


@translator("tf", "ReverseV2")
def reverse_v2(node, b):
    """A Slice of the given axes from the last element backwards (step -1)."""
    axes = np.atleast_1d(constant_input(node, 1, "axis")).astype(np.int64)
    n = axes.size
    return [b.Slice(node.in_port(0).get_source(), np.full(n, -1, np.int64), np.full(n, INT64_MIN, np.int64),
                    np.full(n, -1, np.int64), axes)]


@translator("tf", "Where")
def where(node, b):
    """Where(condition): NonZero ([rank, count]) transposed to the coordinates [count, rank]."""
    indices = b.NonZero(node.in_port(0).get_source(), output_type="i64")
    return [b.Transpose(indices, i64(1, 0))]


@translator("tf", "Fill")
def fill(node, b):
    """Fill(dims, value): value broadcast to dims."""
    return [b.Broadcast(node.in_port(1).get_source(), node.in_port(0).get_source(), mode="numpy")]


def _shape(node, b):
    return b.ShapeOf(node.in_port(0).get_source(), output_type=TfExtractor.dtype(node, "out_type") or "i32")


@translator("tf", "Size")
def size(node, b):
    """The element count: ReduceProd of the shape."""
    return [b.ReduceProd(_shape(node, b), np.int64(0), keep_dims=False)]


@translator("tf", "Rank")
def rank(node, b):
    """The rank as a scalar: the shape of the shape, squeezed."""
    shape = _shape(node, b)
    return [b.Squeeze(b.ShapeOf(shape, output_type=shape.data.get_dtype()), i64(0))]
