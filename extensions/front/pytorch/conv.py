"""Lowering of the ATen convolutions (conv1d/2d/3d, convolution, _convolution, conv_transpose*)
and pooling (max / avg / adaptive); inputs without a batch dim get one for the op."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import AtenOp, convert, rank_of
from mo.errors import ConversionError

CONVOLUTIONS = ("aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::convolution", "aten::_convolution",
                "aten::_convolution_mode",
                "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d")
POOLS = ("aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d", "aten::max_pool1d_with_indices",
         "aten::max_pool2d_with_indices", "aten::max_pool3d_with_indices", "aten::avg_pool1d", "aten::avg_pool2d",
         "aten::avg_pool3d")
ADAPTIVE_POOLS = ("aten::adaptive_avg_pool1d", "aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool3d",
                  "aten::adaptive_max_pool1d", "aten::adaptive_max_pool2d", "aten::adaptive_max_pool3d",
                  "aten::_adaptive_avg_pool2d", "aten::_adaptive_avg_pool3d")


def _spatial_count(kind: str) -> int | None:
    for n in (1, 2, 3):
        if f"{n}d" in kind:
            return n
    return None


def _expand(values, n: int, name: str) -> list[int]:
    """A window argument (int or list; one value applies to every spatial dim) as n ints."""
    values = [int(v) for v in np.atleast_1d(values)]
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise ConversionError(f"{name} {values} does not match {n} spatial dimensions.")
    return values


def _batched(b, x, n: int, node):
    """x with a batch dim (added when the input has only [C, spatial...]) and whether one was added."""
    rank = rank_of(x, node)
    if rank == n + 1:
        return b.Unsqueeze(x, b.const(np.int64(0))), True
    if rank != n + 2:
        raise ConversionError(f"{node.fw_op} of a rank-{rank} input is not supported ({node.name}).")
    return x, False


def _unbatched(b, y, added: bool):
    return b.Squeeze(y, b.const(np.array([0], np.int64))) if added else y


def _grouped(b, weight, groups: int, node):
    """Weights [A, B, k...] as [groups, A / groups, B, k...] (A is C_out, or C_in when transposed)."""
    shape = weight.data.get_shape()
    if shape is None or any(d < 0 for d in shape):
        raise ConversionError(f"Grouped convolution weights of unknown shape are not supported ({node.name}).")
    target = [groups, shape[0] // groups] + list(shape[1:])
    return b.Reshape(weight, b.const(np.array(target, np.int64)), special_zero=False)


class AtenConvolution(AtenOp):
    """Convolution / GroupConvolution and their transposed (backprop-data) forms, bias added per
    channel. String padding "same" pads as PyTorch does (the extra pixel at the end)."""

    op = "pytorch::Convolution"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        weight = a.tensor("weight")
        n = rank_of(weight, node) - 2
        x, added = _batched(b, a.tensor("input"), n, node)
        et = x.data.get_dtype()
        weight = convert(b, weight, et)
        transposed = "transpose" in kind or (a.has("transposed") and bool(a.const("transposed")))
        groups = int(a.const("groups", 1))
        strides = _expand(a.const("stride", 1), n, "stride")
        dilations = _expand(a.const("dilation", 1), n, "dilation")
        padding = a.const("padding", 0)
        auto_pad = "explicit"
        if isinstance(padding, str):
            auto_pad, pads = {"valid": "valid", "same": "same_upper"}[padding], [0] * n
        else:
            pads = _expand(padding, n, "padding")
        attrs = dict(strides=strides, dilations=dilations, pads_begin=pads, pads_end=pads, auto_pad=auto_pad)
        if transposed:
            attrs["output_padding"] = _expand(a.const("output_padding", 0), n, "output_padding")
            if groups == 1:
                y = b.ConvolutionBackpropData(x, weight, **attrs)
            else:
                y = b.GroupConvolutionBackpropData(x, _grouped(b, weight, groups, node), **attrs)
        elif groups == 1:
            y = b.Convolution(x, weight, **attrs)
        else:
            y = b.GroupConvolution(x, _grouped(b, weight, groups, node), **attrs)
        if not a.is_none("bias"):
            bias = convert(b, a.tensor("bias"), et)
            y = b.Add(y, b.Reshape(bias, b.const(np.array([1, -1] + [1] * n, np.int64)), special_zero=False))
        return [_unbatched(b, y, added)]


class AtenPool(AtenOp):
    """max_pool (with indices within each channel's spatial block) and avg_pool; ceil_mode uses
    PyTorch's rule (a window must start inside the input or its left padding)."""

    op = "pytorch::Pool"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        n = _spatial_count(kind)
        x, added = _batched(b, a.tensor(0), n, node)
        kernel = _expand(a.const("kernel_size"), n, "kernel_size")
        stride = a.const("stride", None)
        strides = kernel if stride is None or stride == [] else _expand(stride, n, "stride")
        pads = _expand(a.const("padding", 0), n, "padding")
        rounding = "ceil_torch" if a.const("ceil_mode", False) else "floor"
        shape = x.data.get_shape()
        # a window larger than the padded input (allowed with ceil_mode) covers all of it
        kernel = [k if shape[2 + i] < 0 else min(k, shape[2 + i] + 2 * pads[i]) for i, k in enumerate(kernel)]
        if "max_pool" in kind:
            dilations = _expand(a.const("dilation", 1), n, "dilation")
            values, indices = b.MaxPool(x, kernel=kernel, strides=strides, pads_begin=pads, pads_end=pads,
                                        dilations=dilations, rounding_type=rounding, index_element_type="i32",
                                        axis=2)   # the CPU plugin computes i32 indices; PyTorch's are i64
            outputs = [_unbatched(b, values, added), _unbatched(b, convert(b, indices, "i64"), added)]
            return outputs if kind.endswith("with_indices") else outputs[:1]
        if a.has("divisor_override") and a.const("divisor_override", None) is not None:
            raise ConversionError(f"avg_pool with divisor_override is not supported ({node.name}).")
        y = b.AvgPool(x, kernel=kernel, strides=strides, pads_begin=pads, pads_end=pads, rounding_type=rounding,
                      **{"exclude-pad": not bool(a.const("count_include_pad", True))})
        return [_unbatched(b, y, added)]


class AtenAdaptivePool(AtenOp):
    """adaptive_avg_pool / adaptive_max_pool to ``output_size`` (None keeps an input dim)."""

    op = "pytorch::AdaptivePool"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        n = _spatial_count(kind)
        x, added = _batched(b, a.tensor(0), n, node)
        sizes = [d for d in np.atleast_1d(np.asarray(a.const("output_size"), dtype=object))]
        sizes = sizes * n if len(sizes) == 1 else sizes
        shape = x.data.get_shape()
        target = [int(shape[2 + i]) if s is None else int(s) for i, s in enumerate(sizes)]
        if any(t < 0 for t in target):
            raise ConversionError(f"adaptive pooling keeping a dynamic dimension is not supported ({node.name}).")
        size = b.const(np.array(target, np.int64))
        if "max" in kind:
            values, indices = b.AdaptiveMaxPool(x, size, index_element_type="i32")
            return [_unbatched(b, values, added), _unbatched(b, convert(b, indices, "i64"), added)]
        return [_unbatched(b, b.AdaptiveAvgPool(x, size), added)]
