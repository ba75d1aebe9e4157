"""Convolutions: Convolution, GroupConvolution, ConvolutionBackpropData,
GroupConvolutionBackpropData, DeformableConvolution."""
from __future__ import annotations

import math

from mo.ops.op import Op
from mo.utils.shape import DYN


def conv_output_dim(size: int, kernel: int, stride: int, dilation: int, pad_begin: int, pad_end: int,
                    auto_pad: str, ceil_mode: bool = False) -> int:
    """One spatial output dimension of a convolution or pooling window."""
    if size < 0 or kernel < 0:
        return DYN
    if auto_pad in ("same_upper", "same_lower"):
        return math.ceil(size / stride)
    if auto_pad == "valid":
        pad_begin = pad_end = 0
    effective = dilation * (kernel - 1) + 1
    span = size + pad_begin + pad_end - effective
    out = (math.ceil(span / stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + pad_begin:
        out -= 1
    return max(out, 0)


def same_pads(size: int, kernel: int, stride: int, dilation: int, upper: bool) -> tuple[int, int]:
    """(begin, end) padding of auto_pad same_upper / same_lower."""
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + dilation * (kernel - 1) + 1 - size, 0)
    small = total // 2
    return (small, total - small) if upper else (total - small, small)


def fill_window_defaults(node, data: dict, n_spatial: int | None) -> dict:
    """IR attributes of a windowed op with absent lists filled: strides/dilations 1, pads 0."""
    if n_spatial is None:
        return data
    for key, default in (("strides", 1), ("dilations", 1), ("pads_begin", 0), ("pads_end", 0)):
        if key in node.op_class.ir_attrs and data.get(key) is None:
            data[key] = [default] * n_spatial
    if data.get("auto_pad") in ("same_upper", "same_lower", "valid"):
        data["pads_begin"] = data["pads_end"] = [0] * n_spatial
    return {k: data[k] for k in node.op_class.ir_attrs if data.get(k) is not None}


class ConvolutionBase(Op):
    same_type_inputs = (0, 1)
    abstract = True
    defaults = {"strides": None, "dilations": None, "pads_begin": None, "pads_end": None, "auto_pad": "explicit"}
    ir_attrs = ("strides", "dilations", "pads_begin", "pads_end", "auto_pad")

    @classmethod
    def ir_data(cls, node):
        rank = node.in_port(0).data.get_rank()
        return fill_window_defaults(node, {k: node.get(k) for k in cls.ir_attrs}, None if rank is None else rank - 2)

    @classmethod
    def _spatial(cls, node, shape, kernel):
        n = len(kernel)
        strides = node.strides or [1] * n
        dilations = node.dilations or [1] * n
        pb = node.pads_begin or [0] * n
        pe = node.pads_end or [0] * n
        return [conv_output_dim(shape[2 + i], kernel[i], strides[i], dilations[i], pb[i], pe[i], node.auto_pad)
                for i in range(n)]


class Convolution(ConvolutionBase):
    """data [N, C, spatial...] * filters [C_out, C, kernel...]."""

    op = "Convolution"

    @classmethod
    def infer_shapes(cls, node):
        x, w = node.in_shape(0), node.in_shape(1)
        if x is None or w is None:
            return [None if x is None else (x[0], w[0] if w else DYN) + (DYN,) * (len(x) - 2)]
        if x[1] >= 0 and w[1] >= 0 and x[1] != w[1]:
            raise ValueError(f"input has {x[1]} channels but the filters expect {w[1]}")
        return [(x[0], w[0], *cls._spatial(node, x, w[2:]))]


class GroupConvolution(ConvolutionBase):
    """data [N, G*C, spatial...] * filters [G, C_out/G, C, kernel...]."""

    op = "GroupConvolution"

    @classmethod
    def infer_shapes(cls, node):
        x, w = node.in_shape(0), node.in_shape(1)
        if x is None or w is None:
            return [None]
        out_c = w[0] * w[1] if w[0] >= 0 and w[1] >= 0 else DYN
        return [(x[0], out_c, *cls._spatial(node, x, w[3:]))]


def deconv_output_dim(size, kernel, stride, dilation, pb, pe, out_pad):
    if size < 0 or kernel < 0:
        return DYN
    return stride * (size - 1) + dilation * (kernel - 1) + 1 - pb - pe + out_pad


class ConvolutionBackpropData(ConvolutionBase):
    """Transposed convolution: data [N, C_in, ...], filters [C_in, C_out, kernel...], optional
    output_shape (input 2)."""

    op = "ConvolutionBackpropData"
    defaults = {**ConvolutionBase.defaults, "output_padding": None}
    ir_attrs = ConvolutionBase.ir_attrs + ("output_padding",)
    out_channels_index = 1
    kernel_start = 2

    @classmethod
    def infer_shapes(cls, node):
        x, w = node.in_shape(0), node.in_shape(1)
        if x is None or w is None:
            return [None]
        if cls.kernel_start == 3:
            out_c = w[0] * w[2] if w[0] >= 0 and w[2] >= 0 else DYN
        else:
            out_c = w[1]
        kernel = w[cls.kernel_start:]
        n = len(kernel)
        spatial_value = node.in_value(2) if node.is_in_port_connected(2) else None
        if node.is_in_port_connected(2):
            if spatial_value is None:
                return [(x[0], out_c) + (DYN,) * n]
            return [(x[0], out_c, *[int(v) for v in spatial_value.reshape(-1)])]
        strides = node.strides or [1] * n
        dilations = node.dilations or [1] * n
        pb = node.pads_begin or [0] * n
        pe = node.pads_end or [0] * n
        op = node.output_padding or [0] * n
        if node.auto_pad in ("same_upper", "same_lower"):
            spatial = [DYN if x[2 + i] < 0 else x[2 + i] * strides[i] for i in range(n)]
        else:
            if node.auto_pad == "valid":
                pb = pe = [0] * n
            spatial = [deconv_output_dim(x[2 + i], kernel[i], strides[i], dilations[i], pb[i], pe[i], op[i])
                       for i in range(n)]
        return [(x[0], out_c, *spatial)]


class GroupConvolutionBackpropData(ConvolutionBackpropData):
    """Grouped transposed convolution: filters [G, C_in/G, C_out/G, kernel...]."""

    op = "GroupConvolutionBackpropData"
    type = "GroupConvolutionBackpropData"
    kernel_start = 3


class DeformableConvolution(ConvolutionBase):
    """data, offsets, filters[, mask] (opset8)."""

    same_type_inputs = (0, 1, 2)

    op = "DeformableConvolution"
    version = "opset8"
    defaults = {**ConvolutionBase.defaults, "group": 1, "deformable_group": 1, "bilinear_interpolation_pad": False}
    ir_attrs = ConvolutionBase.ir_attrs + ("group", "deformable_group", "bilinear_interpolation_pad")

    @classmethod
    def infer_shapes(cls, node):
        x, w = node.in_shape(0), node.in_shape(2)
        if x is None or w is None:
            return [None]
        return [(x[0], w[0], *cls._spatial(node, x, w[2:]))]
