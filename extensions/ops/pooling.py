"""Pooling: MaxPool (opset14, with indices), AvgPool (opset16), AdaptiveAvgPool, AdaptiveMaxPool."""
from __future__ import annotations

import numpy as np

from extensions.ops.convolution import check_window_attrs, conv_output_dim, fill_window_defaults, window_pads, windows
from mo.ops.op import Op
from mo.utils.shape import DYN, normalize_axis


class PoolBase(Op):
    abstract = True
    defaults = {"kernel": None, "strides": None, "pads_begin": None, "pads_end": None,
                "rounding_type": "floor", "auto_pad": "explicit", "dilations": None}

    @classmethod
    def node_attrs(cls, attrs):
        result = super().node_attrs(attrs)
        if result.get("dilations") is None and result.get("kernel") is not None:
            result["dilations"] = [1] * len(result["kernel"])
        return result

    @classmethod
    def ir_data(cls, node):
        return fill_window_defaults(node, {k: node.get(k) for k in cls.ir_attrs}, len(node.kernel))

    @classmethod
    def _out_shape(cls, node, x=None):
        """Output shape for the input shape ``x`` (default: the inferred input shape)."""
        x = node.in_shape(0) if x is None else x
        if x is None:
            return None
        kernel = node.kernel
        n = len(kernel)
        if len(x) != n + 2:
            raise ValueError(f"the data has rank {len(x)}; a kernel of {n} dims slides over [N, C, {n} spatial dims]")
        check_window_attrs(node, n)
        strides, dilations = cls._steps(node)
        pb = node.pads_begin or [0] * n
        pe = node.pads_end or [0] * n
        ceil = node.rounding_type in ("ceil", "ceil_torch")
        spatial = []
        for i in range(n):
            reach = dilations[i] * (kernel[i] - 1) + 1
            padding = pb[i] + pe[i] if node.auto_pad == "explicit" else 0
            if node.auto_pad in ("explicit", "valid") and x[2 + i] >= 0 and reach > x[2 + i] + padding:
                raise ValueError(f"the window of {reach} along spatial dimension {i} is larger than the "
                                 f"padded input ({x[2 + i]} + {padding})")
            d = conv_output_dim(x[2 + i], kernel[i], strides[i], dilations[i], pb[i], pe[i], node.auto_pad, ceil)
            if node.rounding_type == "ceil" and x[2 + i] >= 0 and node.auto_pad == "explicit":
                eff = dilations[i] * (kernel[i] - 1) + 1
                d = -(-(x[2 + i] + pb[i] + pe[i] - eff) // strides[i]) + 1
            spatial.append(d)
        return (x[0], x[1], *spatial)

    @classmethod
    def _steps(cls, node) -> tuple[list[int], list[int]]:
        n = len(node.kernel)
        return node.strides or [1] * n, node.dilations or [1] * n

    @classmethod
    def _windows(cls, node, x: np.ndarray, fill) -> tuple[np.ndarray, list[int]]:
        """Windows [N, C, *out, *kernel] of x padded with ``fill``, and the pads before."""
        strides, dilations = cls._steps(node)
        pads_begin, _ = window_pads(node, x.shape[2:], node.kernel, strides, dilations)
        out = cls._out_shape(node, x.shape)[2:]
        return windows(x, out, node.kernel, strides, dilations, pads_begin, fill), pads_begin


class MaxPool(PoolBase):
    """Max pooling with a second output: flat indices of the maxima (``index_element_type``)."""

    op = "MaxPool"
    version = "opset14"
    defaults = {**PoolBase.defaults, "index_element_type": "i64", "axis": 0}
    ir_attrs = ("strides", "dilations", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad",
                "index_element_type", "axis")
    num_outputs = 2

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(0))
        node.out_port(1).data.set_dtype(node.index_element_type)

    @classmethod
    def infer_shapes(cls, node):
        shape = cls._out_shape(node)
        return [shape, shape]

    @classmethod
    def evaluate(cls, node, x):
        """Maxima of the windows (padding is the lowest finite value) and their indices in the
        input flattened from dimension ``axis`` on (0: over the whole tensor)."""
        lowest = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        win, pads_begin = cls._windows(node, x, lowest)
        n = len(node.kernel)
        flat = win.reshape(win.shape[:2 + n] + (-1,))
        best = np.argmax(flat, axis=-1)
        values = np.take_along_axis(flat, best[..., None], axis=-1)[..., 0]
        strides, dilations = cls._steps(node)
        offsets = np.unravel_index(best, tuple(node.kernel))
        # coordinates [batch, channel, spatial...] of each maximum, broadcast over the output
        coords = [np.arange(x.shape[0]).reshape((-1,) + (1,) * (n + 1)),
                  np.arange(x.shape[1]).reshape((-1,) + (1,) * n)]
        coords += [np.arange(o).reshape((-1,) + (1,) * (n - 1 - i)) * strides[i] - pads_begin[i]
                   + offsets[i] * dilations[i] for i, o in enumerate(win.shape[2:2 + n])]
        coords = np.broadcast_arrays(*coords)
        # a window wholly in the padding points at the start of its spatial plane
        inside = np.logical_and.reduce([(c >= 0) & (c < d) for c, d in zip(coords[2:], x.shape[2:])])
        coords = [*coords[:2], *(np.where(inside, c, 0) for c in coords[2:])]
        axis = normalize_axis(node.axis, x.ndim)
        return values, np.ravel_multi_index(coords[axis:], x.shape[axis:])


class AvgPool(PoolBase):
    op = "AvgPool"
    version = "opset16"
    defaults = {**PoolBase.defaults, "exclude-pad": True}
    ir_attrs = ("kernel", "strides", "pads_begin", "pads_end", "exclude-pad", "auto_pad", "rounding_type",
                "dilations")

    @classmethod
    def infer_shapes(cls, node):
        return [cls._out_shape(node)]

    @classmethod
    def evaluate(cls, node, x):
        """Means of the windows: with ``exclude-pad`` false and some padding, sums over the
        kernel size (padding and the ceil overhang count as zeros), else over the number of input
        values the window covers (as the OpenVINO CPU plugin computes it)."""
        win, pads_begin = cls._windows(node, x, 0)
        n = len(node.kernel)
        strides, dilations = cls._steps(node)
        axes = tuple(range(2 + n, 2 + 2 * n))
        _, pads_end = window_pads(node, x.shape[2:], node.kernel, strides, dilations)
        if not node["exclude-pad"] and any(pads_begin + pads_end):
            count = np.prod(node.kernel)
        else:
            count = windows(np.ones((1, 1) + x.shape[2:], x.dtype), win.shape[2:2 + n], node.kernel, strides,
                            dilations, pads_begin).sum(axis=axes)
        with np.errstate(invalid="ignore"):
            return (win.sum(axis=axes) / count).astype(x.dtype)


def adaptive_bins(x: np.ndarray, sizes) -> tuple[list[tuple[int, ...]], list[np.ndarray]]:
    """Per output position (over the spatial dims of x, sizes ``sizes``): the position, and the
    [N, C, bin elements] values of its bin; bin i of a dim of L spans floor(i*L/O) to ceil((i+1)*L/O)."""
    spatial = x.shape[2:]
    positions, values = [], []
    for pos in np.ndindex(*sizes):
        bounds = [(i * L // o, -(-(i + 1) * L // o)) for i, L, o in zip(pos, spatial, sizes)]
        positions.append(pos)
        values.append(x[(slice(None), slice(None), *(slice(b, e) for b, e in bounds))].reshape(x.shape[:2] + (-1,)))
    return positions, values


class AdaptiveAvgPool(Op):
    op = "AdaptiveAvgPool"
    version = "opset8"

    @classmethod
    def evaluate(cls, node, x, size):
        sizes = [int(v) for v in size.reshape(-1)]
        out = np.zeros(x.shape[:2] + tuple(sizes), x.dtype)
        for pos, part in zip(*adaptive_bins(x, sizes)):
            out[(slice(None), slice(None), *pos)] = part.mean(axis=-1)
        return out

    @classmethod
    def infer_shapes(cls, node):
        x = node.in_shape(0)
        size = node.in_value(1)
        if x is None:
            return [None]
        if size is None:
            return [(x[0], x[1]) + (DYN,) * (len(x) - 2)]
        return [(x[0], x[1], *[int(s) for s in size.reshape(-1)])]


class AdaptiveMaxPool(AdaptiveAvgPool):
    op = "AdaptiveMaxPool"
    version = "opset8"
    defaults = {"index_element_type": "i64"}
    ir_attrs = ("index_element_type",)
    num_outputs = 2

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(0))
        node.out_port(1).data.set_dtype(node.index_element_type)

    @classmethod
    def infer_shapes(cls, node):
        shape = super().infer_shapes(node)[0]
        return [shape, shape]

    @classmethod
    def evaluate(cls, node, x, size):
        """Maxima of the bins and their flat indices within the spatial dims."""
        sizes = [int(v) for v in size.reshape(-1)]
        values = np.zeros(x.shape[:2] + tuple(sizes), x.dtype)
        indices = np.zeros(values.shape, np.int64)
        spatial = x.shape[2:]
        for pos, part in zip(*adaptive_bins(x, sizes)):
            where = (slice(None), slice(None), *pos)
            best = np.argmax(part, axis=-1)
            values[where] = np.take_along_axis(part, best[..., None], axis=-1)[..., 0]
            starts = [i * L // o for i, L, o in zip(pos, spatial, sizes)]
            extents = [-(-(i + 1) * L // o) - b for i, L, o, b in zip(pos, spatial, sizes, starts)]
            coords = [c + b for c, b in zip(np.unravel_index(best, extents), starts)]
            indices[where] = np.ravel_multi_index(coords, spatial)
        return values, indices
