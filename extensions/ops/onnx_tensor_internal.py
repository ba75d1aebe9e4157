"""ONNX tensor/shape/indexing operators kept as extracted until a transform lowers them.

Front-only ops are lowered shape-agnostically in ``extensions/front/onnx``; the others have an
``infer`` so partial inference passes them, and are lowered in ``extensions/middle`` where ranks,
static dims or element types are needed."""
from __future__ import annotations

import numpy as np

from extensions.ops.cumulative import cumulative
from mo.ops.internal import FrontOnlyOp
from mo.ops.op import Op
from mo.utils.shape import DYN, normalize_axis


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


class OnnxCumProd(Op):
    """Cumulative product along the axis in input 1 (``exclusive``, ``reverse``); lowered in the
    middle phase to a log-depth scan of Multiply, which needs the length of the axis."""

    op = "onnx::CumProd"
    type = None

    @classmethod
    def evaluate(cls, node, x, axis=None):
        axis = 0 if axis is None else normalize_axis(int(np.asarray(axis).reshape(-1)[0]), x.ndim)
        return cumulative(x, axis, node.exclusive, node.reverse, fn=np.cumprod, neutral=1)


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
