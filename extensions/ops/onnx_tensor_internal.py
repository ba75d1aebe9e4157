"""ONNX tensor/shape/indexing operators kept as extracted until a transform lowers them.

Front-only ops are lowered shape-agnostically in ``extensions/front/onnx``; the others have an
``infer`` so partial inference passes them, and are lowered in ``extensions/middle`` where ranks,
static dims or element types are needed."""
from __future__ import annotations

import numpy as np

from extensions.ops.cumulative import cumulative
from extensions.ops.shape import pad_array
from mo.ops.internal import FrontOnlyOp
from mo.ops.op import Op
from mo.utils.shape import DYN, normalize_axes, normalize_axis


class OnnxShape(FrontOnlyOp):
    """Shape with ``start``/``end`` (opset 15)."""

    op = "onnx::Shape"


class OnnxSize(FrontOnlyOp):
    """Number of elements as an i64 scalar."""

    op = "onnx::Size"


class OnnxFlatten(FrontOnlyOp):
    """2-D view [prod(dims[:axis]), prod(dims[axis:])]."""

    op = "onnx::Flatten"


class OnnxConstantOfShape(FrontOnlyOp):
    """A tensor of the shape in input 0 filled with ``value``."""

    op = "onnx::ConstantOfShape"


class OnnxRange(FrontOnlyOp):
    """Range whose bounds may be [1]-shaped."""

    op = "onnx::Range"


class OnnxDropout(FrontOnlyOp):
    """Dropout at inference: the input and an all-true mask."""

    op = "onnx::Dropout"


class OnnxEyeLike(FrontOnlyOp):
    """Identity-like matrix of the shape of input 0, diagonal ``k``, element type ``dtype``
    (None: the input's)."""

    op = "onnx::EyeLike"


class OnnxTrilu(FrontOnlyOp):
    """Upper (``upper``) or lower triangle of the last two dims, diagonal offset input 1."""

    op = "onnx::Trilu"


class OnnxOneHot(FrontOnlyOp):
    """indices, depth, values = [off, on]; ``axis``."""

    op = "onnx::OneHot"


class OnnxCompress(FrontOnlyOp):
    """Slices of input 0 along ``axis`` (None: flattened) where condition (input 1) is true."""

    op = "onnx::Compress"


class OnnxTopK(FrontOnlyOp):
    """TopK with k as a 1-element tensor; ``largest``, ``sorted``, ``axis``."""

    op = "onnx::TopK"


class OnnxArgMinMax(FrontOnlyOp):
    """ArgMax / ArgMin (``mode`` max/min) with ``axis``, ``keepdims``, ``select_last_index``."""

    op = "onnx::ArgMinMax"


class OnnxSlice(FrontOnlyOp):
    """Slice with optional axes (input 3) and steps (input 4)."""

    op = "onnx::Slice"


def _ints(value) -> list[int]:
    return [int(v) for v in np.atleast_1d(value).reshape(-1)]


class OnnxSplit(Op):
    """Split into ``num_outputs`` parts of ceil(dim / n) (the last one smaller), as opset 18's
    ``num_outputs`` says; lowered in the middle phase where the dim is known."""

    op = "onnx::Split"
    type = None

    @classmethod
    def evaluate(cls, node, x, split=None):
        axis = normalize_axis(node.axis, x.ndim)
        lengths = split_lengths(x.shape[axis], cls.outputs_count(node))
        return np.split(x, np.cumsum(lengths)[:-1], axis=axis)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        n = cls.outputs_count(node)
        if shape is None:
            return [None] * n
        axis = normalize_axis(node.axis, len(shape))
        dim = shape[axis]
        if dim < 0:
            return [tuple(DYN if i == axis else d for i, d in enumerate(shape))] * n
        return [tuple(s if i == axis else d for i, d in enumerate(shape)) for s in split_lengths(dim, n)]


def split_lengths(dim: int, n: int) -> list[int]:
    """Chunks of ceil(dim / n), the last one what is left."""
    chunk = -(-dim // n)
    lengths = [min(chunk, max(dim - i * chunk, 0)) for i in range(n)]
    return lengths


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


class OnnxCumProd(Op):
    """Cumulative product along the axis in input 1 (``exclusive``, ``reverse``); lowered in the
    middle phase to a log-depth scan of Multiply, which needs the length of the axis."""

    op = "onnx::CumProd"
    type = None

    @classmethod
    def evaluate(cls, node, x, axis=None):
        axis = 0 if axis is None else normalize_axis(int(np.asarray(axis).reshape(-1)[0]), x.ndim)
        return cumulative(x, axis, node.exclusive, node.reverse, fn=np.cumprod, neutral=1)


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


class OnnxCol2Im(Op):
    """ONNX Col2Im: [N, C * prod(block_shape), L] -> [N, C, *image_shape] (inputs 1 and 2) with
    ``strides``, ``dilations``, ``pads_begin``/``pads_end`` (None: defaults); lowered in the
    middle phase, where the number of image dims is known, to Col2Im-15 (2-D) or to a scatter-add
    (other ranks)."""

    op = "onnx::Col2Im"
    type = None

    @classmethod
    def infer_shapes(cls, node):
        shape, image, block = node.in_shape(0), node.in_value(1), node.in_value(2)
        n = node.in_shape(1)
        if shape is None or n is None or n[0] < 0:
            return [None]
        channels = DYN if block is None or shape[1] < 0 else shape[1] // int(np.prod(block))
        spatial = (DYN,) * n[0] if image is None else tuple(_ints(image))
        return [(shape[0], channels) + spatial]
