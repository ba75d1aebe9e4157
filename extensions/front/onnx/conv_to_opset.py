"""Lowering of ONNX Conv, ConvTranspose and DeformConv to opset Convolution/GroupConvolution,
ConvolutionBackpropData/GroupConvolutionBackpropData and DeformableConvolution."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.conv import kernel_shape, spatial_rank, window
from mo.graph.builder import OpBuilder
from mo.graph.building import channel_bias, grouped_weights
from mo.graph.port import Port
from mo.pipeline.transform import ReplaceOp


class ConvToOpset(ReplaceOp):
    """ONNX Conv -> Convolution or GroupConvolution (+ Add of the bias)."""

    op = "onnx::Conv"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        w = node.in_port(1).get_source()
        attrs = window(node)
        if node.group == 1:
            conv = b.Convolution(x, w, name=node.name, **attrs)
        else:
            conv = b.GroupConvolution(x, grouped_weights(b, w, node.group), name=node.name,
                                      **attrs)
        return [add_bias(b, node, conv, w)]


def add_bias(b: OpBuilder, node, conv, w, port: int = 2) -> Port:
    """``conv`` plus the optional per-channel bias of input ``port``."""
    if not node.is_in_port_connected(port):
        return conv
    n = spatial_rank(node, w)
    bias = node.in_port(port).get_source()
    if n is None:   # rank known only at run time: bias reshaped to [C, 1 x (rank - 2)]
        ones = b.Broadcast(np.array([1], np.int64), b.Subtract(b.ShapeOf(b.ShapeOf(conv)), np.array([2], np.int64)))
        target = b.Concat(np.array([-1], np.int64), ones, axis=0)
        return b.Add(conv, b.Reshape(bias, target, special_zero=False), name=node.name + "/bias")
    return b.Add(conv, channel_bias(b, bias, n), name=node.name + "/bias")


def same_transposed_pads(kernel: list[int], node) -> tuple[list[int], list[int]] | None:
    """Explicit pads of a transposed convolution with auto_pad SAME_*: the output is input*stride,
    so the total padding is dilated kernel + output_padding - stride, whatever the input size.
    None when some total is negative (explicit pads cannot extend the output)."""
    n = len(kernel)
    strides = node.strides or [1] * n
    dilations = node.dilations or [1] * n
    out_pad = node.output_padding or [0] * n
    total = [dilations[i] * (kernel[i] - 1) + 1 + out_pad[i] - strides[i] for i in range(n)]
    if min(total) < 0:
        return None
    small = [t // 2 for t in total]
    big = [t - t // 2 for t in total]
    return (small, big) if node.auto_pad == "same_upper" else (big, small)


class ConvTransposeToOpset(ReplaceOp):
    """ONNX ConvTranspose -> ConvolutionBackpropData or GroupConvolutionBackpropData (+ bias).

    ``output_shape`` becomes the op's output-shape input, from which the op derives the pads; for
    an odd total ONNX puts the extra pad at the end with SAME_UPPER and at the start otherwise,
    which are the op's ``same_lower`` and ``same_upper``. SAME_* without ``output_shape`` gets
    explicit pads when the kernel size is known, else the output shape input*stride."""

    op = "onnx::ConvTranspose"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        w = node.in_port(1).get_source()
        n = spatial_rank(node, w)
        attrs = {**window(node), "output_padding": node.output_padding}
        output_shape = None
        if node.output_shape:
            spatial = list(node.output_shape)
            output_shape = np.array(spatial[-n:] if n is not None else spatial, np.int64)
        elif node.auto_pad in ("same_upper", "same_lower"):
            kernel = kernel_shape(node, w)
            pads = None if kernel is None else same_transposed_pads(kernel, node)
            if pads is not None:
                attrs.update(auto_pad="explicit", pads_begin=pads[0], pads_end=pads[1])
            else:
                _, spatial = b.VariadicSplit(b.ShapeOf(x), np.array(0, np.int64), np.array([2, -1], np.int64),
                                             num_outputs=2)
                strides = np.array(node.strides, np.int64) if node.strides else np.array(1, np.int64)
                output_shape = b.Multiply(spatial, strides)
        if output_shape is not None:
            attrs.update(auto_pad="same_lower" if node.auto_pad == "same_upper" else "same_upper",
                         pads_begin=None, pads_end=None)
        if node.group == 1:
            conv = b.ConvolutionBackpropData(x, w, output_shape, name=node.name, **attrs)
        else:
            conv = b.GroupConvolutionBackpropData(x, grouped_weights(b, w, node.group), output_shape,
                                                  name=node.name, **attrs)
        return [add_bias(b, node, conv, w)]


class DeformConvToOpset(ReplaceOp):
    """DeformConv(X, W, offset, B, mask) -> DeformableConvolution(X, offset, W, mask) + bias."""

    op = "onnx::DeformConv"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        w = node.in_port(1).get_source()
        mask = node.in_port(4).get_source() if node.is_in_port_connected(4) else None
        conv = b.DeformableConvolution(node.in_port(0).get_source(), node.in_port(2).get_source(), w, mask,
                                       name=node.name, group=node.group, deformable_group=node.offset_group,
                                       bilinear_interpolation_pad=False, **window(node))
        return [add_bias(b, node, conv, w, port=3)]
