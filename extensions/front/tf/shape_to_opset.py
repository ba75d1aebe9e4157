"""Shape-agnostic lowering of the TensorFlow shape and data movement operations whose inputs or
attributes differ from the opset's: Concat, Pack, Unpack, Split(V), Pad, Slice, Squeeze, Gather,
ReverseV2, Where, Fill, Size, Rank, ArgMax/ArgMin."""
from __future__ import annotations

import numpy as np

from extensions.front.tf.lowering import TfLowering
from mo.errors import ConversionError
from mo.graph.builder import OpBuilder

INT32_MAX = np.iinfo(np.int32).max
INT64_MIN = np.iinfo(np.int64).min


def constant_input(node, port: int, what: str) -> np.ndarray:
    """Value of a constant input; converting needs it (an axis, a window...)."""
    value = node.in_port(port).data.get_value()
    if value is None:
        raise ConversionError(f"{node.fw_op} '{node.name}' has a {what} that is not constant, which is not supported.")
    return value


def i64(value) -> np.ndarray:
    return np.array(value, np.int64)


class TfConcatToOpset(TfLowering):
    op = "tf::Concat"

    def replace_op(self, graph, node):
        axis = int(constant_input(node, node.axis_port, "axis"))
        values = [node.in_port(i).get_source() for i in sorted(node.in_ports()) if i != node.axis_port]
        return [OpBuilder(graph, node.name).Concat(*values, axis=axis, name=node.name)]


class TfPackToOpset(TfLowering):
    """Pack -> Concat of the inputs, each unsqueezed at ``axis``."""

    op = "tf::Pack"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        axis = i64([node.axis])
        parts = [b.Unsqueeze(node.in_port(i).get_source(), axis) for i in sorted(node.in_ports())]
        if len(parts) == 1:
            return parts
        return [b.Concat(*parts, axis=node.axis, name=node.name)]


class TfUnpackToOpset(TfLowering):
    """Unpack -> Split along ``axis`` and a Squeeze of each part."""

    op = "tf::Unpack"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        n = node.num_outputs
        parts = b.Split(x, i64(node.axis), num_splits=n) if n > 1 else (x,)
        if not isinstance(parts, tuple):
            parts = (parts,)
        return [b.Squeeze(p, i64([node.axis]), name=f"{node.name}:{i}") for i, p in enumerate(parts)]


class TfSplitToOpset(TfLowering):
    """Split(axis, value) -> Split(value, axis); SplitV(value, sizes, axis) -> VariadicSplit."""

    op = "tf::Split"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        n = node.num_outputs
        if node.variadic:
            value, sizes, axis = (node.in_port(i).get_source() for i in range(3))
            parts = b.VariadicSplit(value, axis, sizes, num_outputs=n, name=node.name)
        else:
            axis, value = node.in_port(0).get_source(), node.in_port(1).get_source()
            parts = b.Split(value, axis, num_splits=n, name=node.name)
        return list(parts) if isinstance(parts, tuple) else [parts]


class TfPadToOpset(TfLowering):
    """Pad / PadV2 / MirrorPad (paddings [rank, 2]) -> Pad with pads_begin = paddings[:, 0] and
    pads_end = paddings[:, 1]."""

    op = "tf::Pad"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        pads = node.in_port(1).get_source()
        value = pads.data.get_value()
        if value is not None:
            begin, end = i64(value[:, 0]), i64(value[:, 1])
        else:
            pads = b.Convert(pads, destination_type="i64")
            begin, end = (b.Gather(pads, i64(k), i64(1)) for k in (0, 1))
        fill = node.in_port(2).get_source() if node.is_in_port_connected(2) else None
        return [b.Pad(x, begin, end, fill, pad_mode=node.pad_mode, name=node.name)]


class TfSliceToOpset(TfLowering):
    """Slice(input, begin, size) -> Slice(input, begin, begin + size, 1), a size of -1 reaching
    the end of the dimension."""

    op = "tf::Slice"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x, begin, size = (node.in_port(i).get_source() for i in range(3))
        begin_v, size_v = begin.data.get_value(), size.data.get_value()
        if begin_v is not None and size_v is not None:
            stop = np.where(size_v == -1, INT32_MAX, begin_v.astype(np.int64) + size_v).astype(np.int64)
            step = np.ones(begin_v.shape, np.int64)
            return [b.Slice(x, i64(begin_v), stop, step, name=node.name)]
        limit = b.ConvertLike(i64(INT32_MAX), size)
        stop = b.Select(b.Equal(size, b.ConvertLike(i64(-1), size)), limit, b.Add(begin, size))
        step = b.Add(b.Multiply(begin, b.ConvertLike(i64(0), begin)), b.ConvertLike(i64(1), begin))
        return [b.Slice(x, begin, stop, step, name=node.name)]


class TfSqueezeToOpset(TfLowering):
    op = "tf::Squeeze"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        axes = i64(node.squeeze_dims) if node.squeeze_dims else None
        return [b.Squeeze(node.in_port(0).get_source(), axes, name=node.name)]


class TfGatherToOpset(TfLowering):
    op = "tf::Gather"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        return [b.Gather(node.in_port(0).get_source(), node.in_port(1).get_source(), i64(0), name=node.name)]


class TfReverseToSlice(TfLowering):
    """ReverseV2 -> Slice of the axes from the last element backwards (step -1)."""

    op = "tf::Reverse"

    def replace_op(self, graph, node):
        axes = np.atleast_1d(constant_input(node, 1, "axis")).astype(np.int64)
        b = OpBuilder(graph, node.name)
        n = axes.size
        return [b.Slice(node.in_port(0).get_source(), np.full(n, -1, np.int64), np.full(n, INT64_MIN, np.int64),
                        np.full(n, -1, np.int64), axes, name=node.name)]


class TfWhereToNonZero(TfLowering):
    """Where(condition) -> NonZero ([rank, count]) transposed to [count, rank]."""

    op = "tf::Where"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        indices = b.NonZero(node.in_port(0).get_source(), output_type="i64")
        return [b.Transpose(indices, i64([1, 0]), name=node.name)]


class TfFillToBroadcast(TfLowering):
    op = "tf::Fill"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        return [b.Broadcast(node.in_port(1).get_source(), node.in_port(0).get_source(), mode="numpy", name=node.name)]


class TfShapeCountToOpset(TfLowering):
    """Size -> ReduceProd(ShapeOf(x)); Rank -> ShapeOf(ShapeOf(x)) as a scalar."""

    op = "tf::ShapeCount"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        shape = b.ShapeOf(node.in_port(0).get_source(), output_type=node.out_type)
        if node.fw_op == "Size":
            return [b.ReduceProd(shape, i64(0), keep_dims=False, name=node.name)]
        return [b.Squeeze(b.ShapeOf(shape, output_type=node.out_type), i64([0]), name=node.name)]


class TfArgMinMaxToTopK(TfLowering):
    """ArgMax / ArgMin -> the indices of TopK with k = 1 (first index among equals), squeezed."""

    op = "tf::ArgMinMax"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        axis = int(constant_input(node, 1, "dimension"))
        _, indices = b.TopK(node.in_port(0).get_source(), i64(1), axis=axis, mode=node.mode, sort="value",
                            index_element_type=node.output_type, stable=True)
        return [b.Squeeze(indices, i64([axis]), name=node.name)]
