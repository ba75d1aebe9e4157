"""ONNX convolutions: Conv, ConvTranspose, DeformConv and CausalConvWithState, their extractors
and translators, and the window attributes shared with pooling and the quantized convolutions."""
from __future__ import annotations

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import INT64_MAX, channel_bias, grouped_weights, i64, optional_source, rank_of
from mo.graph.node import Node
from mo.graph.port import Port

AUTO_PAD = {"NOTSET": "explicit", "": "explicit", "SAME_UPPER": "same_upper", "SAME_LOWER": "same_lower",
            "VALID": "valid"}
CAUSAL_ACTIVATIONS = ("none", "silu", "swish")


def window_attrs(ext, node) -> dict:
    """strides, dilations, pads_begin/end, auto_pad and kernel of an ONNX windowed op; lists that
    are absent stay None (the opset ops fill them from the input rank)."""
    pads = ext.ints(node, "pads")
    half = len(pads) // 2 if pads else 0
    auto_pad = ext.attr(node, "auto_pad", "NOTSET")
    if auto_pad not in AUTO_PAD:
        raise ValueError(f"unknown auto_pad '{auto_pad}'")
    return {
        "strides": ext.ints(node, "strides"),
        "dilations": ext.ints(node, "dilations"),
        "pads_begin": pads[:half] if pads else None,
        "pads_end": pads[half:] if pads else None,
        "auto_pad": AUTO_PAD[auto_pad],
        "kernel": ext.ints(node, "kernel_shape"),
    }


def spatial_rank(node, weights_port=None) -> int | None:
    """Number of spatial dims from the window attributes or the rank of the weights."""
    for key in ("kernel", "strides", "dilations", "pads_begin"):
        if node.get(key):
            return len(node[key])
    rank = None if weights_port is None else weights_port.data.get_rank()
    return None if rank is None else rank - 2


def window(node) -> dict:
    return {k: node.get(k) for k in ("strides", "dilations", "pads_begin", "pads_end", "auto_pad")}


def kernel_shape(node, weights_port) -> list[int] | None:
    """Spatial kernel size from ``kernel_shape`` or the constant weights."""
    if node.get("kernel"):
        return list(node.kernel)
    w = weights_port.data.get_value()
    return None if w is None else list(w.shape[2:])


def add_bias(b: OpBuilder, node: Node, conv: Port, port: int = 2) -> Port:
    """``conv`` plus the optional per-channel bias of input ``port``, reshaped to [C, 1, ...]."""
    bias = optional_source(node, port)
    if bias is None:
        return conv
    n = spatial_rank(node, node.in_port(1).get_source())
    return b.Add(conv, channel_bias(b, bias, rank_of(conv, node) - 2 if n is None else n))


class ConvExtractor(OnnxExtractor):
    op_types = ("Conv",)

    @classmethod
    def extract(cls, node):
        node.update({**window_attrs(cls, node), "group": int(cls.attr(node, "group", 1))})


@translator("onnx", "Conv")
def conv(node: Node, b: OpBuilder) -> list[Port]:
    """Convolution, or GroupConvolution of the weights reshaped per group; + the bias."""
    x, w = optional_source(node, 0), optional_source(node, 1)
    if node.group == 1:
        y = b.Convolution(x, w, **window(node))
    else:
        y = b.GroupConvolution(x, grouped_weights(b, w, node.group), **window(node))
    return [add_bias(b, node, y)]


class ConvTransposeExtractor(OnnxExtractor):
    op_types = ("ConvTranspose",)

    @classmethod
    def extract(cls, node):
        node.update({**window_attrs(cls, node), "group": int(cls.attr(node, "group", 1)),
                     "output_padding": cls.ints(node, "output_padding"),
                     "output_shape": cls.ints(node, "output_shape")})


def same_transposed_pads(kernel: list[int], node) -> tuple[list[int], list[int]]:
    """Pads of a transposed convolution with auto_pad SAME_*: the output is input*stride, so the
    total padding is dilated kernel + output_padding - stride, whatever the input size. A
    negative pad (a kernel smaller than the stride) extends the output instead of cropping it."""
    n = len(kernel)
    strides = node.strides or [1] * n
    dilations = node.dilations or [1] * n
    out_pad = node.output_padding or [0] * n
    total = [dilations[i] * (kernel[i] - 1) + 1 + out_pad[i] - strides[i] for i in range(n)]
    small = [t // 2 for t in total]
    big = [t - t // 2 for t in total]
    return (small, big) if node.auto_pad == "same_upper" else (big, small)


@translator("onnx", "ConvTranspose")
def conv_transpose(node: Node, b: OpBuilder) -> list[Port]:
    """ConvolutionBackpropData or GroupConvolutionBackpropData (+ bias).

    ``output_shape`` becomes the op's output-shape input, from which the op derives the pads; for
    an odd total ONNX puts the extra pad at the end with SAME_UPPER and at the start otherwise,
    which are the op's ``same_lower`` and ``same_upper``. SAME_* without ``output_shape`` gets
    explicit pads when the kernel size is known (negative ones as zeros Pad-ded to the result),
    else the output shape input*stride."""
    x, w = optional_source(node, 0), optional_source(node, 1)
    n = spatial_rank(node, w)
    attrs = {**window(node), "output_padding": node.output_padding}
    output_shape = extend = None
    if node.output_shape:
        spatial = list(node.output_shape)
        output_shape = np.array(spatial[-n:] if n is not None else spatial, np.int64)
    elif node.auto_pad in ("same_upper", "same_lower"):
        kernel = kernel_shape(node, w)
        if kernel is not None:
            begin, end = same_transposed_pads(kernel, node)
            attrs.update(auto_pad="explicit", pads_begin=[max(p, 0) for p in begin],
                         pads_end=[max(p, 0) for p in end])
            if min(begin + end) < 0:
                extend = [i64(0, 0, *[max(-p, 0) for p in pads]) for pads in (begin, end)]
        else:
            _, spatial = b.VariadicSplit(b.ShapeOf(x), np.int64(0), i64(2, -1), num_outputs=2)
            strides = np.array(node.strides, np.int64) if node.strides else np.int64(1)
            output_shape = b.Multiply(spatial, strides)
    if output_shape is not None:
        attrs.update(auto_pad="same_lower" if node.auto_pad == "same_upper" else "same_upper",
                     pads_begin=None, pads_end=None)
    if node.group == 1:
        y = b.ConvolutionBackpropData(x, w, output_shape, **attrs)
    else:
        y = b.GroupConvolutionBackpropData(x, grouped_weights(b, w, node.group), output_shape, **attrs)
    if extend is not None:
        y = b.Pad(y, *extend, pad_mode="constant")
    return [add_bias(b, node, y)]


class DeformConvExtractor(OnnxExtractor):
    op_types = ("DeformConv",)

    @classmethod
    def extract(cls, node):
        node.update({**window_attrs(cls, node), "group": int(cls.attr(node, "group", 1)),
                     "offset_group": int(cls.attr(node, "offset_group", 1))})


@translator("onnx", "DeformConv")
def deform_conv(node: Node, b: OpBuilder) -> list[Port]:
    """DeformConv(X, W, offset, B, mask) -> DeformableConvolution(X, offset, W, mask) + bias."""
    x, w, offset, mask = (optional_source(node, i) for i in (0, 1, 2, 4))
    y = b.DeformableConvolution(x, offset, w, mask, group=node.group, deformable_group=node.offset_group,
                                bilinear_interpolation_pad=False, **window(node))
    return [add_bias(b, node, y, port=3)]


class CausalConvWithStateExtractor(OnnxExtractor):
    op_types = ("CausalConvWithState",)

    @classmethod
    def extract(cls, node):
        activation = cls.attr(node, "activation", "none")
        if activation not in CAUSAL_ACTIVATIONS:
            raise ValueError(f"unknown activation '{activation}'")
        node["activation"] = activation


@translator("onnx", "CausalConvWithState")
def causal_conv_with_state(node: Node, b: OpBuilder) -> list[Port]:
    """input [B, C, L], depthwise weight [C, 1, k]: padded = [past_state (or k - 1 zeros), input]
    along the length; output = depthwise GroupConvolution of padded (+ bias, SiLU when asked);
    present_state = the last k - 1 positions of padded."""
    x, w = optional_source(node, 0), optional_source(node, 1)
    w_shape = w.data.get_shape()
    if w_shape is None or len(w_shape) != 3 or w_shape[2] < 0:
        raise ConversionError("the kernel size (last dim of the weight) must be static; give the "
                              "weight's shape with --input or make it a constant")
    k = w_shape[2]
    past = optional_source(node, 3)
    if past is not None:
        padded = b.Concat(past, x, axis=2)
    else:
        padded = b.Pad(x, i64(0, 0, k - 1), np.zeros(3, np.int64), pad_mode="constant")
    filters = b.Unsqueeze(w, i64(1))          # [C, 1, 1, k]: one group per channel
    y = b.GroupConvolution(padded, filters, strides=[1], dilations=[1], pads_begin=[0], pads_end=[0],
                           auto_pad="explicit")
    bias = optional_source(node, 2)
    if bias is not None:
        y = b.Add(y, channel_bias(b, bias, 1))
    if node.activation in ("silu", "swish"):
        y = b.Swish(y)
    y.node["name"] = node.name
    state = b.Slice(padded, i64(1 - k if k > 1 else INT64_MAX), i64(INT64_MAX), i64(1), i64(2))
    return [y, state]
