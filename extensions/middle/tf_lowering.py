"""Lowering of the TensorFlow operations that need input ranks or shapes: BiasAdd in NCHW,
Select (v1), SpaceToBatchND / BatchToSpaceND, the convolutions (grouped when the input has more
channels than the filters) and the transposed convolutions."""
from __future__ import annotations

import numpy as np

from extensions.front.tf.conv_to_opset import filters_to_oihw
from extensions.front.tf.layout import (
    back_to_data_format,
    channels_last,
    explicit_pads,
    in_channels_first,
    spatial,
    window_attrs,
)
from extensions.middle.lowering import MiddleReplaceOp
from extensions.ops.tf_internal import full_block
from mo.errors import ConversionError
from mo.graph.builder import OpBuilder
from mo.graph.building import grouped_weights


def rank_of(node, port: int = 0) -> int:
    rank = node.in_port(port).data.get_rank()
    if rank is None:
        raise ConversionError(f"{node.get('fw_op', node.op)} '{node.name}': the rank of input {port} is unknown; "
                              f"give the input shapes with --input.")
    return rank


class TfBiasAddNCHWToAdd(MiddleReplaceOp):
    """BiasAdd (NCHW) -> Add of the bias unsqueezed to [C, 1, ...]."""

    frameworks = ("tf",)
    op = "tf::BiasAddNCHW"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        axes = np.arange(1, rank_of(node) - 1, dtype=np.int64)
        bias = node.in_port(1).get_source()
        if axes.size:
            bias = b.Unsqueeze(bias, axes)
        return [b.Add(node.in_port(0).get_source(), bias, name=node.name)]


class TfSelectV1ToSelect(MiddleReplaceOp):
    """Select (v1) -> Select; a vector condition over the rows of higher-rank values is
    unsqueezed so it broadcasts along axis 0."""

    frameworks = ("tf",)
    op = "tf::Select"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        cond = node.in_port(0).get_source()
        c_rank, x_rank = rank_of(node, 0), rank_of(node, 1)
        if c_rank == 1 and x_rank > 1:
            cond = b.Unsqueeze(cond, np.arange(1, x_rank, dtype=np.int64))
        return [b.Select(cond, node.in_port(1).get_source(), node.in_port(2).get_source(), name=node.name)]


class TfSpaceBatchToOpset(MiddleReplaceOp):
    """SpaceToBatchND / BatchToSpaceND -> SpaceToBatch / BatchToSpace, block and pads extended
    over the batch (1, 0) and the dimensions after the blocked ones (1, 0)."""

    frameworks = ("tf",)
    op = "tf::SpaceBatch"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        rank = rank_of(node)
        block, pads = node.in_value(1), node.in_value(2)
        if block is None or pads is None:
            raise ConversionError(f"{node.fw_op} '{node.name}': block_shape and paddings must be constant.")
        full, begin, end = full_block(np.reshape(block, -1), np.reshape(pads, (-1, 2)), rank)
        op = "SpaceToBatch" if node.to_batch else "BatchToSpace"
        return [b.op(op, node.in_port(0).get_source(), full, begin, end, name=node.name)]


class TfConvToOpset(MiddleReplaceOp):
    """Conv2D / Conv3D -> Convolution, or GroupConvolution when the input has a multiple of the
    filter's input channels; DepthwiseConv2dNative -> GroupConvolution with one group per input
    channel (filters [kh, kw, C, M] -> [C, M, 1, kh, kw])."""

    frameworks = ("tf",)
    op = "tf::Conv"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        rank = rank_of(node)
        n = rank - 2
        x = node.in_port(0).get_source()
        w = node.in_port(1).get_source()
        channels = data_channels(node, x)
        filter_channels = (w.data.get_shape() or (-1,) * rank)[n]
        data = in_channels_first(b, x, node, rank)
        if node.depthwise:
            w = b.Unsqueeze(b.Transpose(w, np.array([2, 3, 0, 1], np.int64)), np.array([2], np.int64))
            y = b.GroupConvolution(data, w, name=node.name, **window_attrs(node))
        elif channels > 0 and filter_channels > 0 and channels != filter_channels:
            w = grouped_weights(b, filters_to_oihw(b, w, n), channels // filter_channels)
            y = b.GroupConvolution(data, w, name=node.name, **window_attrs(node))
        else:
            y = b.Convolution(data, filters_to_oihw(b, w, n), name=node.name, **window_attrs(node))
        return [back_to_data_format(b, y, node, rank)]


def data_channels(node, x) -> int:
    """Channels of a TensorFlow op's data input (-1 when unknown)."""
    shape = x.data.get_shape()
    if shape is None:
        return -1
    return shape[-1] if channels_last(node.data_format) else shape[1]


class TfConvBackpropInputToOpset(MiddleReplaceOp):
    """Conv2DBackpropInput / Conv3DBackpropInputV2 -> ConvolutionBackpropData (channels-first).

    With static sizes the padding of the forward convolution is given explicitly and
    output_padding makes up the rest of the requested output size; otherwise (SAME padding only)
    the spatial output size is an input and the op places the smaller half of the padding first
    (``same_lower``), as TensorFlow does."""

    frameworks = ("tf",)
    op = "tf::ConvBackpropInput"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        rank = node.rank
        n = rank - 2
        fmt = node.data_format
        sizes, w = node.in_port(0).get_source(), node.in_port(1).get_source()
        x = node.in_port(2).get_source()
        strides, dilations = spatial(node.strides, fmt), spatial(node.dilations, fmt)
        # filters [k..., C_out, C_in] -> [C_in, C_out, k...]
        filters = filters_to_oihw(b, w, n)
        data = in_channels_first(b, x, node, rank)
        attrs = {"strides": strides, "dilations": dilations}
        static = self._static_pads(node, x, w, sizes, strides, dilations)
        if static is not None:
            begin, end, extra = static
            y = b.ConvolutionBackpropData(data, filters, auto_pad="explicit", pads_begin=begin, pads_end=end,
                                          output_padding=extra, name=node.name, **attrs)
        elif node.padding == "SAME":
            positions = np.array(spatial(range(rank), fmt), np.int64)
            out = b.Gather(b.Convert(sizes, destination_type="i64"), positions, np.int64(0))
            y = b.ConvolutionBackpropData(data, filters, out, auto_pad="same_lower", name=node.name, **attrs)
        else:
            raise ConversionError(f"{node.fw_op} '{node.name}' with {node.padding} padding needs static input and "
                                  f"output sizes.")
        return [back_to_data_format(b, y, node, rank)]

    @staticmethod
    def _static_pads(node, x, w, sizes, strides, dilations):
        """(pads_begin, pads_end, output_padding) when every size involved is known."""
        fmt = node.data_format
        x_shape, w_shape, out = x.data.get_shape(), w.data.get_shape(), sizes.data.get_value()
        if x_shape is None or w_shape is None or out is None:
            return None
        x_sp, out_sp = spatial(x_shape, fmt), spatial(np.reshape(out, -1), fmt)
        kernel = list(w_shape[:len(strides)])
        if min(x_sp + out_sp + kernel) < 0:
            return None
        n = len(strides)
        if node.padding == "EXPLICIT":
            begin, end = explicit_pads(node)
        elif node.padding == "VALID":
            begin, end = [0] * n, [0] * n
        else:
            total = [max((x_sp[i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - out_sp[i], 0)
                     for i in range(n)]
            begin = [t // 2 for t in total]
            end = [t - t // 2 for t in total]
        extra = [out_sp[i] - (strides[i] * (x_sp[i] - 1) + dilations[i] * (kernel[i] - 1) + 1 - begin[i] - end[i])
                 for i in range(n)]
        return begin, end, extra
