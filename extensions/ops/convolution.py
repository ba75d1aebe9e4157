"""Convolutions: Convolution, GroupConvolution, ConvolutionBackpropData,
GroupConvolutionBackpropData, DeformableConvolution."""
from __future__ import annotations

import math

import numpy as np

from extensions.ops.shape import pad_array
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


def check_window_attrs(node, n_spatial: int) -> None:
    """Refuse window attributes that do not fit ``n_spatial`` spatial dims: lists of another
    length, strides/dilations/kernel below 1, negative pads (the runtime refuses such an IR)."""
    for key, least in (("kernel", 1), ("strides", 1), ("dilations", 1), ("pads_begin", 0), ("pads_end", 0),
                       ("output_padding", 0)):
        values = node.get(key)
        if values is None or (key in ("pads_begin", "pads_end") and node.auto_pad != "explicit"):
            continue
        if len(values) != n_spatial:
            raise ValueError(f"'{key}' has {len(values)} values for {n_spatial} spatial dimensions")
        if any(int(v) < least for v in values):
            raise ValueError(f"'{key}' is {list(values)}; each value must be at least {least}")


def window_pads(node, spatial, kernel, strides, dilations) -> tuple[list[int], list[int]]:
    """(pads_begin, pads_end) a windowed op applies around the spatial dims ``spatial``: none for
    ``valid``, the split of ``same_upper``/``same_lower``, else the explicit attributes."""
    n = len(kernel)
    if node.auto_pad in ("same_upper", "same_lower"):
        pairs = [same_pads(spatial[i], kernel[i], strides[i], dilations[i], node.auto_pad == "same_upper")
                 for i in range(n)]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    if node.auto_pad == "valid":
        return [0] * n, [0] * n
    return list(node.pads_begin or [0] * n), list(node.pads_end or [0] * n)


def windows(x: np.ndarray, out, kernel, strides, dilations, pads_begin, fill=0) -> np.ndarray:
    """The values each output position of a windowed op reads: a [N, C, *out, *kernel] array of
    ``x`` padded with ``fill`` (``pads_begin`` before, as much as the last window needs after)."""
    n = len(kernel)
    if min(out, default=1) <= 0:
        return np.zeros(x.shape[:2] + tuple(max(o, 0) for o in out) + tuple(kernel), x.dtype)
    extent = [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]
    reach = [(o - 1) * s + e for o, s, e in zip(out, strides, extent)]
    end = [r - b - size for r, b, size in zip(reach, pads_begin, x.shape[2:])]
    padded = pad_array(x, [0, 0, *pads_begin], [0, 0, *end], "constant", np.asarray(fill, x.dtype))
    view = np.lib.stride_tricks.sliding_window_view(padded, extent, axis=tuple(range(2, 2 + n)))
    return view[(slice(None),) * 2 + tuple(slice(None, None, s) for s in strides)
                + tuple(slice(None, None, d) for d in dilations)]


def correlate(win: np.ndarray, w: np.ndarray) -> np.ndarray:
    """[N, C_out, *out] from windows [N, C, *out, *kernel] and filters [C_out, C, *kernel]."""
    n = w.ndim - 2
    y = np.tensordot(win, w, axes=([1, *range(2 + n, 2 + 2 * n)], [1, *range(2, 2 + n)]))
    return np.moveaxis(y, -1, 1)


def transposed_correlate(x: np.ndarray, w: np.ndarray, strides, dilations, pads_begin, size) -> np.ndarray:
    """Transposed convolution of x [N, C_in, *spatial] by filters [C_in, C_out, *kernel]: input
    position i adds x[i] * w[k] at output position i * stride + k * dilation, then ``pads_begin``
    is cropped and the result cut (or zero-extended) to the spatial ``size``."""
    spatial = x.shape[2:]
    full = [(s_ - 1) * st + d * (k - 1) + 1 for s_, st, d, k in zip(spatial, strides, dilations, w.shape[2:])]
    reach = [max(f, b + o) for f, b, o in zip(full, pads_begin, size)]
    out = np.zeros((x.shape[0], w.shape[1], *reach), np.result_type(x, w))
    for k in np.ndindex(*w.shape[2:]):
        contribution = np.moveaxis(np.tensordot(x, w[(slice(None), slice(None), *k)], axes=([1], [0])), -1, 1)
        where = tuple(slice(ki * d, ki * d + (s_ - 1) * st + 1, st)
                      for ki, d, s_, st in zip(k, dilations, spatial, strides))
        out[(slice(None), slice(None), *where)] += contribution
    return out[(slice(None), slice(None), *(slice(b, b + o) for b, o in zip(pads_begin, size)))]


def grouped(evaluate, x: np.ndarray, w: np.ndarray, groups: int) -> np.ndarray:
    """``evaluate(x_g, w_g)`` per group g of the channels of x and of the first axis of w,
    concatenated along the channels."""
    parts = np.split(x, groups, axis=1)
    return np.concatenate([evaluate(part, w[g]) for g, part in enumerate(parts)], axis=1)


class ConvolutionBase(Op):
    same_type_inputs = (0, 1)
    abstract = True
    # the filters have this many more dims than the data (1 for the grouped forms)
    filter_rank_offset = 0
    defaults = {"strides": None, "dilations": None, "pads_begin": None, "pads_end": None, "auto_pad": "explicit"}
    ir_attrs = ("strides", "dilations", "pads_begin", "pads_end", "auto_pad")

    @classmethod
    def ir_data(cls, node):
        rank = node.in_port(0).data.get_rank()
        return fill_window_defaults(node, {k: node.get(k) for k in cls.ir_attrs}, None if rank is None else rank - 2)

    @classmethod
    def _check_ranks(cls, x: tuple | None, w: tuple | None) -> None:
        """Data [N, C, spatial...] and filters of the matching rank, as the specification asks."""
        if x is not None and len(x) < 3:
            raise ValueError(f"the data has rank {len(x)}; it needs a batch, a channel and spatial dimensions")
        if x is not None and w is not None and len(w) != len(x) + cls.filter_rank_offset:
            raise ValueError(f"filters of rank {len(w)} do not fit data of rank {len(x)} "
                             f"(rank {len(x) + cls.filter_rank_offset} expected)")

    @classmethod
    def _spatial(cls, node, shape, kernel):
        n = len(kernel)
        check_window_attrs(node, n)
        strides = node.strides or [1] * n
        dilations = node.dilations or [1] * n
        pb = node.pads_begin or [0] * n
        pe = node.pads_end or [0] * n
        for i in range(n):
            reach = dilations[i] * (kernel[i] - 1) + 1
            padding = pb[i] + pe[i] if node.auto_pad == "explicit" else 0
            if node.auto_pad in ("explicit", "valid") and shape[2 + i] >= 0 and kernel[i] >= 0 \
                    and reach > shape[2 + i] + padding:
                raise ValueError(f"the kernel reaches {reach} along spatial dimension {i}, more than the padded "
                                 f"input ({shape[2 + i]} + {padding})")
        return [conv_output_dim(shape[2 + i], kernel[i], strides[i], dilations[i], pb[i], pe[i], node.auto_pad)
                for i in range(n)]

    @classmethod
    def _windows(cls, node, x: np.ndarray, kernel) -> np.ndarray:
        """Windows [N, C, *out, *kernel] of x, zero padded, that the filters slide over."""
        n = len(kernel)
        strides = node.strides or [1] * n
        dilations = node.dilations or [1] * n
        pads_begin, _ = window_pads(node, x.shape[2:], kernel, strides, dilations)
        return windows(x, cls._spatial(node, x.shape, kernel), kernel, strides, dilations, pads_begin)


class Convolution(ConvolutionBase):
    """data [N, C, spatial...] * filters [C_out, C, kernel...]."""

    op = "Convolution"

    @classmethod
    def evaluate(cls, node, x, w):
        return correlate(cls._windows(node, x, w.shape[2:]), w)

    @classmethod
    def infer_shapes(cls, node):
        x, w = node.in_shape(0), node.in_shape(1)
        cls._check_ranks(x, w)
        if x is None or w is None:
            return [None if x is None else (x[0], w[0] if w else DYN) + (DYN,) * (len(x) - 2)]
        if x[1] >= 0 and w[1] >= 0 and x[1] != w[1]:
            raise ValueError(f"input has {x[1]} channels but the filters expect {w[1]}")
        return [(x[0], w[0], *cls._spatial(node, x, w[2:]))]


class GroupConvolution(ConvolutionBase):
    """data [N, G*C, spatial...] * filters [G, C_out/G, C, kernel...]."""

    op = "GroupConvolution"
    filter_rank_offset = 1

    @classmethod
    def evaluate(cls, node, x, w):
        return grouped(lambda part, wg: correlate(cls._windows(node, part, wg.shape[2:]), wg), x, w, w.shape[0])

    @classmethod
    def infer_shapes(cls, node):
        x, w = node.in_shape(0), node.in_shape(1)
        cls._check_ranks(x, w)
        if x is None or w is None:
            return [None]
        if x[1] >= 0 and w[0] >= 0 and w[2] >= 0 and x[1] != w[0] * w[2]:
            raise ValueError(f"input has {x[1]} channels but {w[0]} groups of filters expect {w[0] * w[2]}")
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
    def evaluate(cls, node, x, w, output_shape=None):
        kernel = w.shape[cls.kernel_start:]
        n = len(kernel)
        strides = node.strides or [1] * n
        dilations = node.dilations or [1] * n
        out_pad = node.output_padding or [0] * n
        full = [(x.shape[2 + i] - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1 + out_pad[i] for i in range(n)]
        explicit = node.auto_pad not in ("same_upper", "same_lower", "valid")
        begin = list(node.pads_begin or [0] * n) if explicit else [0] * n
        if output_shape is None:
            # same_* pads only apply to a given output shape
            end = list(node.pads_end or [0] * n) if explicit else [0] * n
            size = [f - b - e for f, b, e in zip(full, begin, end)]
        else:
            size = [int(v) for v in output_shape.reshape(-1)]
            if node.auto_pad in ("same_upper", "same_lower"):
                # the padding is what the output size leaves, its odd part at the start for same_upper
                total = [max(f - s_, 0) for f, s_ in zip(full, size)]
                begin = [t - t // 2 if node.auto_pad == "same_upper" else t // 2 for t in total]
        def transposed(xg, wg):
            return transposed_correlate(xg, wg, strides, dilations, begin, size)
        if cls.kernel_start == 3:
            return grouped(transposed, x, w, w.shape[0])
        return transposed(x, w)

    @classmethod
    def infer_shapes(cls, node):
        x, w = node.in_shape(0), node.in_shape(1)
        cls._check_ranks(x, w)
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
        if node.auto_pad in ("same_upper", "same_lower", "valid"):
            pb = pe = [0] * n       # same_* pads only apply to a given output shape
        spatial = [deconv_output_dim(x[2 + i], kernel[i], strides[i], dilations[i], pb[i], pe[i], op[i])
                   for i in range(n)]
        return [(x[0], out_c, *spatial)]


class GroupConvolutionBackpropData(ConvolutionBackpropData):
    """Grouped transposed convolution: filters [G, C_in/G, C_out/G, kernel...]."""

    op = "GroupConvolutionBackpropData"
    type = "GroupConvolutionBackpropData"
    filter_rank_offset = 1
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
        cls._check_ranks(x, w)
        if x is None or w is None:
            return [None]
        return [(x[0], w[0], *cls._spatial(node, x, w[2:]))]

    @classmethod
    def evaluate(cls, node, x, offsets, w, mask=None):
        """Kernel tap k of output (h, w) reads x bilinearly at its place in the window moved by
        the offsets (y, x) of its deformable group (times the mask), zero outside the image (with
        ``bilinear_interpolation_pad``: zero padding, so within one pixel outside partly)."""
        n, channels, height, width = x.shape
        kh, kw = w.shape[2:]
        out_h, out_w = offsets.shape[2:]
        strides, dilations = node.strides or [1, 1], node.dilations or [1, 1]
        pads_begin, _ = window_pads(node, x.shape[2:], (kh, kw), strides, dilations)
        groups = node.deformable_group
        offsets = offsets.astype(np.float64).reshape(n, groups, kh * kw, 2, out_h, out_w)
        base_y = (np.arange(out_h) * strides[0] - pads_begin[0])[:, None]
        base_x = (np.arange(out_w) * strides[1] - pads_begin[1])[None, :]
        columns = np.zeros((n, channels, kh * kw, out_h, out_w))
        per_group = channels // groups
        for k in range(kh * kw):
            i, j = divmod(k, kw)
            ys = base_y + i * dilations[0] + offsets[:, :, k, 0]           # [N, groups, Ho, Wo]
            xs = base_x + j * dilations[1] + offsets[:, :, k, 1]
            sampled = deformable_sample(x.astype(np.float64), np.repeat(ys, per_group, axis=1),
                                        np.repeat(xs, per_group, axis=1), node.bilinear_interpolation_pad)
            if mask is not None:
                sampled = sampled * np.repeat(mask.reshape(n, groups, kh * kw, out_h, out_w)[:, :, k], per_group,
                                              axis=1)
            columns[:, :, k] = sampled
        taps = np.moveaxis(columns.reshape(n, channels, kh, kw, out_h, out_w), (2, 3), (4, 5))
        grouped_w = w.astype(np.float64).reshape((node.group, -1) + w.shape[1:])
        return grouped(correlate, taps, grouped_w, node.group).astype(x.dtype)


def deformable_sample(x: np.ndarray, ys: np.ndarray, xs: np.ndarray, pad: bool) -> np.ndarray:
    """x [N, C, H, W] sampled bilinearly at [N, C, Ho, Wo] positions. With ``pad`` the image is
    zero padded (a position less than one pixel outside reads zeros in part); otherwise a
    position outside [0, H) x [0, W) reads zero and a corner past the last row or column reads
    the edge (as the OpenVINO CPU plugin computes it)."""
    n, channels, height, width = x.shape
    if pad:
        far = (ys <= -1) | (ys >= height) | (xs <= -1) | (xs >= width)
    else:
        far = (ys < 0) | (ys >= height) | (xs < 0) | (xs >= width)
    y0, x0 = np.floor(ys), np.floor(xs)
    fy, fx = ys - y0, xs - x0
    batch = np.arange(n)[:, None, None, None]
    chan = np.arange(channels)[None, :, None, None]
    total = np.zeros(ys.shape)
    for dy, wy in ((0, 1 - fy), (1, fy)):
        for dx, wx in ((0, 1 - fx), (1, fx)):
            r, c = (y0 + dy).astype(np.int64), (x0 + dx).astype(np.int64)
            inside = (r >= 0) & (r < height) & (c >= 0) & (c < width) if pad else True
            value = x[batch, chan, np.clip(r, 0, height - 1), np.clip(c, 0, width - 1)]
            total += np.where(inside, value, 0) * wy * wx
    return np.where(far, 0, total)
