"""TensorFlow convolutions and poolings: the extractor reads the window attributes (kept in
TensorFlow's form, in data_format order), the translators build the channels-first opset op
between Transposes when the data is channels-last (extensions/front/tf/layout.py)."""
from __future__ import annotations

import numpy as np

from extensions.front.tf.layout import (
    back_to_data_format,
    channels_last,
    explicit_pads,
    in_channels_first,
    spatial,
    window_attrs,
)
from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, dim, grouped_weights, i64, input_rank, require_ranks
from mo.utils.types import np_dtype

CONVOLUTIONS = ("Conv2D", "Conv3D", "DepthwiseConv2dNative")
TRANSPOSED = ("Conv2DBackpropInput", "Conv3DBackpropInputV2")
POOLS = ("MaxPool", "MaxPoolV2", "AvgPool", "MaxPool3D", "AvgPool3D")
PADDINGS = ("SAME", "VALID", "EXPLICIT")


class WindowExtractor(TfExtractor):
    """strides, dilations, padding, explicit_paddings, data_format (and ksize of the poolings)
    as TensorFlow gives them, and the rank of the data (5 for the 3D ops)."""

    op_types = CONVOLUTIONS + TRANSPOSED + POOLS + ("MaxPoolWithArgmax",)

    @classmethod
    def extract(cls, node):
        rank = 5 if "3D" in node.fw_op else 4
        padding = cls.attr(node, "padding", "VALID")
        if padding not in PADDINGS:
            raise ConversionError(f"{node.fw_op} '{node.name}' has padding '{padding}', which is not supported.")
        node.update({
            "strides": cls.ints(node, "strides", rank, [1] * rank),
            "dilations": cls.ints(node, "dilations", rank, [1] * rank),
            "padding": padding,
            "explicit_paddings": cls.ints(node, "explicit_paddings", default=[]),
            "data_format": cls.data_format(node, "NHWC" if rank == 4 else "NDHWC"),
            "rank": rank,
            "ksize": cls.ints(node, "ksize", rank),
        })


def filters_to_oihw(b: OpBuilder, w, n_spatial: int):
    """TensorFlow filters [k..., C_in, C_out] -> [C_out, C_in, k...]."""
    return b.Transpose(w, np.array([n_spatial + 1, n_spatial] + list(range(n_spatial)), np.int64))


def data_channels(node, x) -> int:
    """Channels of a TensorFlow op's data input (-1 when unknown)."""
    shape = x.data.get_shape()
    if shape is None:
        return -1
    return shape[-1] if channels_last(node.data_format) else shape[1]


@translator("tf", "Conv2D", "Conv3D")
def conv(node, b):
    """Convolution, or GroupConvolution when the input has a multiple of the filter's input
    channels."""
    require_ranks(node, {0: node.rank, 1: node.rank})
    rank = input_rank(node, 0)
    n = rank - 2
    x, w = node.in_port(0).get_source(), node.in_port(1).get_source()
    channels = data_channels(node, x)
    filter_channels = (w.data.get_shape() or (-1,) * rank)[n]
    data = in_channels_first(b, x, node, rank)
    if channels > 0 and filter_channels > 0 and channels != filter_channels:
        w = grouped_weights(b, filters_to_oihw(b, w, n), channels // filter_channels)
        y = b.GroupConvolution(data, w, name=node.name, **window_attrs(node))
    else:
        y = b.Convolution(data, filters_to_oihw(b, w, n), name=node.name, **window_attrs(node))
    return [back_to_data_format(b, y, node, rank)]


@translator("tf", "DepthwiseConv2dNative")
def depthwise_conv(node, b):
    """GroupConvolution with one group per input channel (filters [kh, kw, C, M] ->
    [C, M, 1, kh, kw])."""
    require_ranks(node, {0: 4, 1: 4})
    rank = input_rank(node, 0)
    w = b.Unsqueeze(b.Transpose(node.in_port(1).get_source(), np.array([2, 3, 0, 1], np.int64)),
                    np.array([2], np.int64))
    data = in_channels_first(b, node.in_port(0).get_source(), node, rank)
    y = b.GroupConvolution(data, w, name=node.name, **window_attrs(node))
    return [back_to_data_format(b, y, node, rank)]


@translator("tf", *TRANSPOSED)
def conv_backprop_input(node, b):
    """ConvolutionBackpropData (channels-first) of inputs (output sizes, filter, data).

    With static sizes the padding of the forward convolution is given explicitly and
    output_padding makes up the rest of the requested output size; otherwise (SAME padding only)
    the spatial output size is an input and the op places the smaller half of the padding first
    (``same_lower``), as TensorFlow does; VALID/EXPLICIT padding then computes the natural output
    and pads it with zeros at the end up to the requested size."""
    rank = node.rank
    require_ranks(node, {0: 1, 1: rank, 2: rank})
    n = rank - 2
    fmt = node.data_format
    sizes, w, x = (node.in_port(i).get_source() for i in range(3))
    strides, dilations = spatial(node.strides, fmt), spatial(node.dilations, fmt)
    # filters [k..., C_out, C_in] -> [C_in, C_out, k...]
    filters = filters_to_oihw(b, w, n)
    data = in_channels_first(b, x, node, rank)
    attrs = {"strides": strides, "dilations": dilations}
    static = _transposed_pads(node, x, w, sizes, strides, dilations)
    if static is not None:
        begin, end, extra = static
        y = b.ConvolutionBackpropData(data, filters, auto_pad="explicit", pads_begin=begin, pads_end=end,
                                      output_padding=extra, name=node.name, **attrs)
    elif node.padding == "SAME":
        positions = np.array(spatial(range(rank), fmt), np.int64)
        out = b.Gather(b.Convert(sizes, destination_type="i64"), positions, np.int64(0))
        y = b.ConvolutionBackpropData(data, filters, out, auto_pad="same_lower", name=node.name, **attrs)
    else:
        # VALID / EXPLICIT with output sizes known only at run time: the natural output, then
        # zeros at the end of each spatial dim up to the requested size (no input reaches them)
        begin, end = explicit_pads(node) if node.padding == "EXPLICIT" else ([0] * n, [0] * n)
        y = b.ConvolutionBackpropData(data, filters, auto_pad="explicit", pads_begin=begin, pads_end=end,
                                      output_padding=[0] * n, name=f"{node.name}/natural", **attrs)
        positions = np.array(spatial(range(rank), fmt), np.int64)
        wanted = b.Gather(b.Convert(sizes, destination_type="i64"), positions, np.int64(0))
        extra = b.Subtract(wanted, b.Gather(b.ShapeOf(y), np.arange(2, rank, dtype=np.int64), np.int64(0)))
        y = b.Pad(y, np.zeros(rank, np.int64), b.Concat(np.zeros(2, np.int64), extra, axis=0),
                  np.zeros((), np_dtype(x.data.get_dtype() or "f32")), pad_mode="constant", name=node.name)
    return [back_to_data_format(b, y, node, rank)]


def _transposed_pads(node, x, w, sizes, strides, dilations):
    """(pads_begin, pads_end, output_padding) of a transposed convolution when every size
    involved is known."""
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


def _pool_op(node, b, op: str, ksize, strides, **extra):
    """``op`` over the spatial dims of the node's input, channels-first; ``rounding_type``
    floor."""
    require_ranks(node, {0: node.rank})
    x = in_channels_first(b, node.in_port(0).get_source(), node, node.rank)
    attrs = window_attrs(node)
    attrs.pop("dilations")
    attrs.update(kernel=spatial(ksize, node.data_format), strides=spatial(strides, node.data_format))
    return b.op(op, x, name=node.name, rounding_type="floor", **attrs, **extra)


def _pool(node, b, op: str, ksize, strides, **extra):
    """``op``'s first output in the node's data_format."""
    y = _pool_op(node, b, op, ksize, strides, **extra)
    return [back_to_data_format(b, y[0] if isinstance(y, tuple) else y, node, node.rank)]


@translator("tf", "MaxPool", "MaxPool3D")
def max_pool(node, b):
    return _pool(node, b, "MaxPool", node.ksize, node.strides)


@translator("tf", "MaxPoolV2")
def max_pool_v2(node, b):
    """MaxPool with ksize and strides in constant inputs 1 and 2."""
    ksize, strides = node.in_port(1).data.get_value(), node.in_port(2).data.get_value()
    if ksize is None or strides is None:
        raise ConversionError("its ksize or strides are not constant, which is not supported.")
    return _pool(node, b, "MaxPool", ksize, strides)


@translator("tf", "AvgPool", "AvgPool3D")
def avg_pool(node, b):
    """AvgPool with the padding excluded from the averages, as TensorFlow does."""
    return _pool(node, b, "AvgPool", node.ksize, node.strides, **{"exclude-pad": True})


@translator("tf", "MaxPoolWithArgmax")
def max_pool_with_argmax(node, b):
    """MaxPool (NHWC) and the position of each maximum in the NHWC input flattened per image,
    ((y * W) + x) * C + c, plus b * H * W * C with ``include_batch_in_index``, in Targmax. The
    opset op gives y * W + x (its indices counted from dimension 2); the channel and batch terms
    are added to it."""
    x = node.in_port(0).get_source()
    if input_rank(node) != 4:
        raise ConversionError(f"its input has rank {input_rank(node)} where TensorFlow takes rank 4.")
    y, index = _pool_op(node, b, "MaxPool", node.ksize, node.strides, index_element_type="i64", axis=2)
    channels = dim(b, x, 3)
    channel = b.Unsqueeze(b.Range(np.int64(0), channels, np.int64(1), output_type="i64"), i64(0, 2, 3))
    index = b.Add(b.Multiply(index, channels), channel)
    if TfExtractor.attr(node, "include_batch_in_index", False):
        image_size = b.Multiply(b.Multiply(dim(b, x, 1), dim(b, x, 2)), channels)
        batch = b.Unsqueeze(b.Range(np.int64(0), dim(b, x, 0), np.int64(1), output_type="i64"), i64(1, 2, 3))
        index = b.Add(index, b.Multiply(batch, image_size))
    index = convert(b, index, TfExtractor.dtype(node, "Targmax") or "i64")
    return [back_to_data_format(b, y, node, 4), back_to_data_format(b, index, node, 4)]
