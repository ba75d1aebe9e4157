"""ONNX tensor/shape/indexing operators kept as extracted until a transform lowers them.

Front-only ops are lowered shape-agnostically in ``extensions/front/onnx``; the others have an
``infer`` so partial inference passes them, and are lowered in ``extensions/middle`` where ranks,
static dims or element types are needed."""
from __future__ import annotations

import math

import numpy as np

from extensions.ops.shape import pad_array
from mo.graph.port import Port
from mo.ops.op import Op
from mo.utils.shape import DYN, normalize_axes


def _ints(value) -> list[int]:
    return [int(v) for v in np.atleast_1d(value).reshape(-1)]


class OnnxPad(Op):
    """ONNX Pad (opset 11+ inputs: data, pads, constant_value, axes) whose form needs the rank:
    ``axes`` given or ``mode`` wrap; lowered in the middle phase."""

    op = "onnx::Pad"
    type = None

    @classmethod
    def full_pads(cls, node, rank: int) -> tuple[list[int], list[int]] | None:
        pads = node.in_value(1)
        if pads is None:
            return None
        pads = _ints(pads)
        n = len(pads) // 2
        axes = node.in_value(3) if node.is_in_port_connected(3) else np.arange(n)
        if axes is None:
            return None
        begin, end = [0] * rank, [0] * rank
        for a, b, e in zip(normalize_axes(np.atleast_1d(axes), rank), pads[:n], pads[n:]):
            begin[a], end[a] = b, e
        return begin, end

    @classmethod
    def evaluate(cls, node, x, pads, value=None, axes=None):
        begin, end = cls.full_pads(node, x.ndim)
        if value is None:
            value = node.get("value")
        return pad_array(x, begin, end, node.mode, value if node.mode == "constant" else None)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None]
        pads = cls.full_pads(node, len(shape))
        if pads is None:
            return [(DYN,) * len(shape)]
        return [tuple(DYN if d < 0 else d + b + e for d, b, e in zip(shape, *pads))]


class OnnxResize(Op):
    """ONNX Resize / Upsample: scales in input ``scales_port``, sizes in input ``sizes_port``
    (None for the old forms), attributes as Interpolate's plus ``axes``, ``exclude_outside``,
    ``keep_aspect_ratio_policy``; lowered to Interpolate in the middle phase."""

    op = "onnx::Resize"
    type = None

    @classmethod
    def target(cls, node, key: str) -> Port | None:
        """The output port feeding the scales or sizes, or None when absent or empty."""
        port = node.get(key)
        if port is None or not node.is_in_port_connected(port):
            return None
        shape = node.in_shape(port)
        return None if shape is not None and shape == (0,) else node.in_port(port).get_source()

    @classmethod
    def axes(cls, node, rank: int) -> list[int]:
        axes = node.get("axes")
        return list(range(rank)) if axes is None else normalize_axes(axes, rank)

    @classmethod
    def output_sizes(cls, node, shape) -> list[int] | None:
        """Sizes of the resized axes when the scales or sizes are constant, else None."""
        dims = [shape[a] for a in cls.axes(node, len(shape))]
        sizes = cls.target(node, "sizes_port")
        if sizes is not None:
            sizes = sizes.data.get_value()
            if sizes is None:
                return None
            sizes = _ints(sizes)
            if node.keep_aspect_ratio_policy == "stretch":
                return sizes
            if any(d < 0 for d in dims):
                return None
            pick = min if node.keep_aspect_ratio_policy == "not_larger" else max
            scale = pick(s / d for s, d in zip(sizes, dims))
            return [int(math.floor(scale * d + 0.5)) for d in dims]
        scales = cls.target(node, "scales_port")
        scales = None if scales is None else scales.data.get_value()
        if scales is None:
            return None
        return [DYN if d < 0 else int(math.floor(d * float(s) + 1e-5)) for d, s in zip(dims, scales.reshape(-1))]

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None]
        sizes = cls.output_sizes(node, shape)
        out = list(shape)
        for i, a in enumerate(cls.axes(node, len(shape))):
            out[a] = DYN if sizes is None else sizes[i]
        return [tuple(out)]


class OnnxCenterCropPad(Op):
    """Crops or zero-pads the ``axes`` (all by default) of input 0, centred, to the sizes in
    input 1; lowered in the middle phase where the rank is known."""

    op = "onnx::CenterCropPad"
    type = None

    @classmethod
    def evaluate(cls, node, x, sizes):
        axes = list(range(x.ndim)) if node.get("axes") is None else normalize_axes(node.axes, x.ndim)
        begin, end = [0] * x.ndim, [0] * x.ndim
        for a, size in zip(axes, sizes.reshape(-1).tolist()):
            diff = int(size) - x.shape[a]
            begin[a] = -((-diff) // 2) if diff < 0 else diff // 2
            end[a] = diff - begin[a]
        return pad_array(x, begin, end, "constant")

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None]
        axes = node.get("axes")
        axes = list(range(len(shape))) if axes is None else normalize_axes(axes, len(shape))
        sizes = node.in_value(1)
        out = list(shape)
        for i, a in enumerate(axes):
            out[a] = DYN if sizes is None else int(sizes.reshape(-1)[i])
        return [tuple(out)]
