"""ATen convolutions (conv1d/2d/3d, convolution, _convolution, conv_transpose*), poolings (max /
avg / adaptive / fractional), sliding blocks (im2col / col2im) and max_unpool2d / 3d: their
translators. Inputs without a batch dim get one for the op."""
from __future__ import annotations

import itertools

import numpy as np

from extensions.front.pytorch.aten import (
    const,
    convert,
    dim_size,
    int_list_port,
    is_float_type,
    rank_of,
    shape_of,
)
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import INT64_MAX, channel_bias, dims_slice, grouped_weights, i64


def _spatial_count(kind: str) -> int:
    """The spatial rank an ATen pooling name says (max_pool2d: 2)."""
    return next(n for n in (1, 2, 3) if f"{n}d" in kind)


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
        return b.Unsqueeze(x, np.int64(0)), True
    if rank != n + 2:
        raise ConversionError(f"A rank-{rank} input is not supported (expected rank {n + 1} or {n + 2}).")
    return x, False


def _unbatched(b, y, added: bool):
    return b.Squeeze(y, i64(0)) if added else y


# ---------------------------------------------------------------------------- convolutions


def _convolution(node, a, b, transposed: bool):
    """Convolution / GroupConvolution or their transposed (backprop-data) forms, the bias added per
    channel. String padding "same" pads as PyTorch does (the extra pixel at the end)."""
    weight = a.tensor("weight")
    n = rank_of(weight, node) - 2
    x, added = _batched(b, a.tensor("input"), n, node)
    et = x.data.get_dtype()
    weight = convert(b, weight, et)
    groups = int(a.const("groups", 1))
    padding = a.const("padding", 0)
    if isinstance(padding, str):
        auto_pad, pads = {"valid": "valid", "same": "same_upper"}[padding], [0] * n
    else:
        auto_pad, pads = "explicit", _expand(padding, n, "padding")
    attrs = dict(strides=_expand(a.const("stride", 1), n, "stride"),
                 dilations=_expand(a.const("dilation", 1), n, "dilation"),
                 pads_begin=pads, pads_end=pads, auto_pad=auto_pad)
    if transposed:
        attrs["output_padding"] = _expand(a.const("output_padding", 0), n, "output_padding")
        y = b.ConvolutionBackpropData(x, weight, **attrs) if groups == 1 else \
            b.GroupConvolutionBackpropData(x, grouped_weights(b, weight, groups), **attrs)
    else:
        y = b.Convolution(x, weight, **attrs) if groups == 1 else \
            b.GroupConvolution(x, grouped_weights(b, weight, groups), **attrs)
    if not a.is_none("bias"):
        y = b.Add(y, channel_bias(b, convert(b, a.tensor("bias"), et), n))
    return [_unbatched(b, y, added)]


@aten("aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::_convolution_mode")
def conv(node, a, b):
    """conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups); padding may be
    "valid" / "same" (also in _convolution_mode)."""
    return _convolution(node, a, b, transposed=False)


@aten("aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d")
def conv_transpose(node, a, b):
    """conv_transpose{1,2,3}d(input, weight, bias, stride, padding, output_padding, groups, dilation)."""
    return _convolution(node, a, b, transposed=True)


@aten("aten::convolution", "aten::_convolution")
def convolution(node, a, b):
    """convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
    groups): either direction, as ``transposed`` says."""
    return _convolution(node, a, b, transposed=bool(a.const("transposed")))


# ---------------------------------------------------------------------------- poolings


def _window(a, x, n: int) -> dict:
    """The attributes a MaxPool / AvgPool shares (kernel, strides, pads, rounding) of pooling
    arguments; ceil_mode uses PyTorch's rule (a window must start inside the input or its left
    padding)."""
    kernel = _expand(a.const("kernel_size"), n, "kernel_size")
    stride = a.const("stride", None)
    strides = kernel if stride is None or stride == [] else _expand(stride, n, "stride")
    pads = _expand(a.const("padding", 0), n, "padding")
    shape = x.data.get_shape()
    # a window larger than the padded input (allowed with ceil_mode) covers all of it
    kernel = [k if shape[2 + i] < 0 else min(k, shape[2 + i] + 2 * pads[i]) for i, k in enumerate(kernel)]
    return dict(kernel=kernel, strides=strides, pads_begin=pads, pads_end=pads,
                rounding_type="ceil_torch" if a.const("ceil_mode", False) else "floor")


def _max_pool(node, a, b):
    """Values and indices (within each channel's spatial block, i64) of max_pool*."""
    n = _spatial_count(node.fw_op)
    x, added = _batched(b, a.tensor(0), n, node)
    attrs = _window(a, x, n)
    values, indices = b.MaxPool(x, dilations=_expand(a.const("dilation", 1), n, "dilation"),
                                index_element_type="i32", axis=2, **attrs)
    # the CPU plugin computes i32 indices; PyTorch's are i64
    return [_unbatched(b, values, added), _unbatched(b, convert(b, indices, "i64"), added)]


@aten("aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d")
def max_pool(node, a, b):
    """max_pool{1,2,3}d(input, kernel_size, stride, padding, dilation, ceil_mode)."""
    return _max_pool(node, a, b)[:1]


@aten("aten::max_pool1d_with_indices", "aten::max_pool2d_with_indices", "aten::max_pool3d_with_indices")
def max_pool_with_indices(node, a, b):
    """max_pool{1,2,3}d_with_indices: the values and their indices."""
    return _max_pool(node, a, b)


@aten("aten::avg_pool1d", "aten::avg_pool2d", "aten::avg_pool3d")
def avg_pool(node, a, b):
    """avg_pool{1,2,3}d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override)."""
    n = _spatial_count(node.fw_op)
    x, added = _batched(b, a.tensor(0), n, node)
    given = x.data.get_dtype()
    if not is_float_type(given):        # averaged in f32, truncated toward zero as PyTorch's integer division
        x = convert(b, x, "f32")
    et = x.data.get_dtype()
    attrs = _window(a, x, n)
    override = a.const("divisor_override", None) if a.has("divisor_override") else None
    include_pad = bool(a.const("count_include_pad", True))
    last_windows_clipped = include_pad and attrs["rounding_type"] != "floor" and any(attrs["pads_begin"]) and \
        all(d >= 0 for d in x.data.get_shape()[2:])
    if override is not None:
        y = b.Divide(_window_sums(node, b, x, attrs), const(b, float(override), et))
    elif last_windows_clipped:    # ceil_mode's last windows count the padding but not beyond it, as OpenVINO does not
        ones = const(b, np.ones([1, 1, *x.data.get_shape()[2:]]), et)     # the divisors fold to a constant
        y = b.Divide(_window_sums(node, b, x, attrs), _window_sums(node, b, ones, attrs, pad_value=1))
    else:
        y = b.AvgPool(x, **attrs, **{"exclude-pad": not include_pad})
    if given != et:
        y = convert(b, b.Select(b.Less(y, const(b, 0, et)), b.Ceiling(y), b.Floor(y)), given)
    return [_unbatched(b, y, added)]


def _window_sums(node, b, x, attrs: dict, pad_value: float = 0):
    """The sums of the pooling windows of ``attrs``: an average over windows wholly inside the
    explicitly padded input (by ``pad_value``; further by zeros at the end for ceil_mode's last
    windows, by static sizes) times the window size."""
    kernel, strides, pads = attrs["kernel"], attrs["strides"], attrs["pads_begin"]
    extra = [0] * len(kernel)
    if attrs["rounding_type"] != "floor":
        shape = x.data.get_shape()
        for i, (k, s, p) in enumerate(zip(kernel, strides, pads)):
            size = shape[2 + i]
            if size is None or size < 0:
                raise ConversionError("avg_pool with divisor_override and ceil_mode needs static spatial dims.")
            count = -(-(size + 2 * p - k) // s) + 1
            if (count - 1) * s >= size + p:
                count -= 1
            extra[i] = max(0, (count - 1) * s + k - (size + 2 * p))
    et = x.data.get_dtype()
    padded = b.Pad(x, i64(0, 0, *pads), i64(0, 0, *pads), const(b, pad_value, et), pad_mode="constant")
    if any(extra):
        padded = b.Pad(padded, i64([0] * (2 + len(extra))), i64(0, 0, *extra), const(b, 0, et), pad_mode="constant")
    zeros = [0] * len(kernel)
    mean = b.AvgPool(padded, kernel=kernel, strides=strides, pads_begin=zeros, pads_end=zeros, rounding_type="floor",
                     **{"exclude-pad": False})
    return b.Multiply(mean, const(b, float(np.prod(kernel)), et))


def _adaptive_input(node, a, b):
    """The batched input of an adaptive pooling, whether a batch dim was added, and the output
    size as a 1-D i64 tensor (a None size keeps the input's dim, read as the model computes it)."""
    n = _spatial_count(node.fw_op)
    x, added = _batched(b, a.tensor(0), n, node)
    sizes = list(np.atleast_1d(np.asarray(a.const("output_size"), dtype=object)))
    sizes = sizes * n if len(sizes) == 1 else sizes
    size = int_list_port(b, [dim_size(b, x, 2 + i) if s is None else int(s) for i, s in enumerate(sizes)])
    return x, added, size


@aten("aten::adaptive_avg_pool1d", "aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool3d",
      "aten::_adaptive_avg_pool1d", "aten::_adaptive_avg_pool2d", "aten::_adaptive_avg_pool3d")
def adaptive_avg_pool(node, a, b):
    """adaptive_avg_pool{1,2,3}d(input, output_size)."""
    x, added, size = _adaptive_input(node, a, b)
    return [_unbatched(b, b.AdaptiveAvgPool(x, size), added)]


@aten("aten::adaptive_max_pool1d", "aten::adaptive_max_pool2d", "aten::adaptive_max_pool3d")
def adaptive_max_pool(node, a, b):
    """adaptive_max_pool{1,2,3}d(input, output_size): the values and their (i64) indices."""
    x, added, size = _adaptive_input(node, a, b)
    values, indices = b.AdaptiveMaxPool(x, size, index_element_type="i32")
    return [_unbatched(b, values, added), _unbatched(b, convert(b, indices, "i64"), added)]


# ---------------------------------------------------------------------------- sliding blocks, unpooling


def _block_args(a) -> dict:
    """The kernel, dilation, padding and stride pairs of im2col / col2im."""
    return {k: _expand(a.const(k), 2, k) for k in ("kernel_size", "dilation", "padding", "stride")}


@aten("aten::im2col")
def im2col(node, a, b):
    """im2col(input [N, C, H, W], kernel_size, dilation, padding, stride) (F.unfold): the blocks
    as [N, C * kh * kw, L], one strided slice of the zero-padded input per kernel position."""
    x, added = _batched(b, a.tensor(0), 2, node)
    args = _block_args(a)
    (kh, kw), (dh, dw), pads, strides = (args[k] for k in ("kernel_size", "dilation", "padding", "stride"))
    if any(pads):
        x = b.Pad(x, i64(0, 0, *pads), i64(0, 0, *pads), const(b, 0, x.data.get_dtype()),
                  pad_mode="constant")
    patches = []
    for i in range(kh):
        for j in range(kw):
            ends = [-(kh - 1 - i) * dh or INT64_MAX, -(kw - 1 - j) * dw or INT64_MAX]
            patch = b.Slice(x, i64(i * dh, j * dw), i64(*ends), i64(*strides), i64(2, 3))
            patches.append(b.Unsqueeze(patch, i64(2)))
    blocks = b.Concat(*patches, axis=2) if len(patches) > 1 else patches[0]   # [N, C, kh * kw, oh, ow]
    count = b.Multiply(dim_size(b, blocks, 3), dim_size(b, blocks, 4))
    rows = b.Multiply(dim_size(b, blocks, 1), np.int64(kh * kw))     # not -1: an empty batch leaves it open
    y = b.Reshape(blocks, int_list_port(b, [dim_size(b, blocks, 0), rows, count]), special_zero=False)
    return [_unbatched(b, y, added)]


@aten("aten::col2im")
def col2im(node, a, b):
    """col2im(input [N, C * kh * kw, L], output_size, kernel_size, dilation, padding, stride)
    (F.fold) as Col2Im-15."""
    x = a.tensor(0)
    if rank_of(x, node) not in (2, 3):
        raise ConversionError(f"fold of a rank-{x.data.get_rank()} input: it takes [N, C * kh * kw, L] or "
                              f"[C * kh * kw, L].")
    args = _block_args(a)
    size = int_list_port(b, a.int_list("output_size"))
    return [b.Col2Im(x, size, i64(*args["kernel_size"]), strides=args["stride"], dilations=args["dilation"],
                     pads_begin=args["padding"], pads_end=args["padding"])]


@aten("aten::max_unpool2d", "aten::max_unpool3d")
def max_unpool(node, a, b):
    """max_unpool2d / 3d(input [N, C, *spatial] or [C, *spatial], indices, output_size, ...): each
    value written at its index in its channel's output (flattened spatial dims), zeros elsewhere."""
    x, indices = a.tensor(0), convert(b, a.tensor(1), "i64")
    rank = rank_of(x, node)
    size = list(a.int_list("output_size"))
    spatial = 3 if node.fw_op == "aten::max_unpool3d" else 2
    size = size[-spatial:]
    if rank not in (spatial + 1, spatial + 2) or len(size) != spatial:
        raise ConversionError(f"{node.fw_op} of a rank-{rank} input with output size {len(size)} dims: it takes "
                              f"[N, C, *spatial] or [C, *spatial] with {spatial} spatial dims.")
    leading = dims_slice(b, shape_of(b, x), 0, rank - spatial)
    flat = i64(*[0] * (rank - spatial), -1)
    volume = b.ReduceProd(int_list_port(b, size), i64([0]), keep_dims=True)
    zeros = b.Broadcast(const(b, 0, x.data.get_dtype()), b.Concat(leading, volume, axis=0))
    y = b.ScatterElementsUpdate(zeros, b.Reshape(indices, flat, special_zero=True),
                                b.Reshape(x, flat, special_zero=True), np.int64(rank - spatial))
    return [b.Reshape(y, b.Concat(leading, int_list_port(b, size), axis=0), special_zero=False)]


# ---------------------------------------------------------------------------- fractional max pooling


def _fractional_starts(b, samples, d: int, size: int, out: int, pool: int):
    """The window starts of spatial dim ``d`` per batch and channel, [N, C, out], from the random
    samples [N, C, 1] as PyTorch's generate_intervals: int((i + u) * alpha) - int(u * alpha) with
    alpha = (size - pool) / (out - 1) in f32, the last window at size - pool."""
    last = i64([size - pool])
    if out == 1:
        return b.Broadcast(last, b.Concat(dims_slice(b, shape_of(b, samples), 0, 2), i64([1]), axis=0))
    alpha = const(b, np.float32(size - pool) / np.float32(out - 1), "f32")
    steps = const(b, np.arange(out - 1, dtype=np.float32), "f32")
    # floor((i + u) * alpha) for i = 0 .. out - 2, less the first
    floors = b.Floor(b.Multiply(b.Add(steps, samples), alpha))
    starts = b.Subtract(floors, b.Slice(floors, i64([0]), i64([1]), i64([1]), i64([2])))
    starts = convert(b, starts, "i64")
    return b.Concat(starts, b.Broadcast(last, b.Concat(dims_slice(b, shape_of(b, starts), 0, 2), i64([1]), axis=0)),
                    axis=2)


@aten("aten::fractional_max_pool2d", "aten::fractional_max_pool3d")
def fractional_max_pool(node, a, b):
    """fractional_max_pool2d / 3d(input, kernel_size, output_size, random_samples [N, C, n]): the
    maximum (and its flat index in the input plane) of windows of kernel_size whose starts the
    random samples place (see ``_fractional_starts``; a 2-D sample is (w, h), a 3-D one (t, h, w)):
    the window values gathered at each kernel offset, the first maximum kept (NaN wins)."""
    n = _spatial_count(node.fw_op)
    x, added = _batched(b, a.tensor(0), n, node)
    shape = x.data.get_shape()
    sizes = list(shape[2:]) if shape is not None else [-1]
    if any(s < 0 for s in sizes):
        raise ConversionError(f"{node.fw_op} needs static spatial input dims.")
    pool = _expand(a.const("kernel_size"), n, "kernel_size")
    out = _expand(a.const("output_size"), n, "output_size")
    samples = convert(b, a.tensor("random_samples"), "f32")
    if samples.data.get_rank() == 2:
        samples = b.Unsqueeze(samples, np.int64(0))
    # the CPU plugin evaluates a subgraph of a RandomUniform (torch.rand's samples) and constants
    # once per reader, with different draws: adding a 0 the input computes ties them to one draw
    zero = b.Multiply(convert(b, b.ReduceLogicalOr(b.IsNaN(convert(b, x, "f32")), i64(list(range(n + 2))),
                                                   keep_dims=False), "f32"), const(b, 0.0, "f32"))
    samples = b.Add(samples, zero)
    order = [1, 0] if n == 2 else [0, 1, 2]
    strides = [int(np.prod(sizes[d + 1:])) for d in range(n)]
    starts = []
    for d in range(n):
        column = b.Gather(samples, i64([order[d]]), np.int64(2))
        s = _fractional_starts(b, column, d, sizes[d], out[d], pool[d])
        starts.append(b.Unsqueeze(s, i64([2 + k for k in range(n) if k != d])))     # along axis 2 + d
    lead = dims_slice(b, shape_of(b, x), 0, 2)
    planes = b.Reshape(x, i64([0, 0, -1]), special_zero=True)
    best = where = None
    for offsets in itertools.product(*(range(k) for k in pool)):
        index = None
        for d in range(n):
            term = b.Multiply(b.Add(starts[d], np.int64(offsets[d])), np.int64(strides[d]))
            index = term if index is None else b.Add(index, term)
        index = b.Reshape(b.Broadcast(index, b.Concat(lead, i64(out), axis=0)), i64([0, 0, -1]), special_zero=True)
        value = b.GatherElements(planes, index, axis=2)
        if best is None:
            best, where = value, index
            continue
        take = b.Greater(value, best)
        if x.data.get_dtype() in ("f32", "f64", "f16", "bf16"):
            # the CPU plugin's Greater is true against a NaN: a NaN kept is kept explicitly
            take = b.LogicalOr(b.LogicalAnd(take, b.LogicalNot(b.IsNaN(best))), b.IsNaN(value))
        best, where = b.Select(take, value, best), b.Select(take, index, where)
    full = b.Concat(lead, i64(out), axis=0)
    return [_unbatched(b, b.Reshape(v, full, special_zero=False), added) for v in (best, where)]
