"""TensorFlow operations kept as extracted until a transform lowers them to opset ops.

Front-only ops are lowered shape-agnostically in ``extensions/front/tf``; the few that need the
input rank have an ``infer`` so partial inference passes them, and are lowered in
``extensions/middle/tf_*.py``. ``dtype`` on a node is the element type of its TensorFlow ``T``
attribute (for typed constants in lowerings).
"""
from __future__ import annotations

import numpy as np

from extensions.front.tf.layout import channels_last, spatial, window_attrs
from extensions.ops.convolution import conv_output_dim
from extensions.ops.space_batch import block_batch_shape
from mo.ops.internal import FrontOnlyOp
from mo.ops.op import Op
from mo.utils.shape import DYN, broadcast_shapes


class TfIdentity(FrontOnlyOp):
    """Identity, IdentityN, StopGradient, PlaceholderWithDefault...: output i is input i."""

    op = "tf::Identity"


class TfNoOp(FrontOnlyOp):
    """NoOp: control dependencies only, no data."""

    op = "tf::NoOp"
    num_outputs = 0


class TfMath(FrontOnlyOp):
    """An elementwise TensorFlow op without an opset counterpart (``fw_op``),
    built from opset ops."""

    op = "tf::Math"


class TfConv(Op):
    """Conv2D, Conv3D, DepthwiseConv2dNative: ``strides``, ``dilations``, ``padding``,
    ``explicit_paddings``, ``data_format`` as in TensorFlow; ``depthwise``. Lowered where the
    input channels are known (a filter with fewer makes a grouped convolution)."""

    op = "tf::Conv"
    type = None

    @classmethod
    def infer_shapes(cls, node):
        x, w = node.in_shape(0), node.in_shape(1)
        if x is None or w is None:
            return [None if x is None else (DYN,) * len(x)]
        n = len(x) - 2
        attrs = window_attrs(node)
        sizes = spatial(x, node.data_format)
        out = [conv_output_dim(sizes[i], w[i], attrs["strides"][i], attrs["dilations"][i], attrs["pads_begin"][i],
                               attrs["pads_end"][i], attrs["auto_pad"]) for i in range(n)]
        channels = w[n + 1] if not node.depthwise else (DYN if w[n] < 0 or w[n + 1] < 0 else w[n] * w[n + 1])
        if channels_last(node.data_format):
            return [(x[0], *out, channels)]
        return [(x[0], channels, *out)]


class TypedByInput(Op):
    """An internal op whose output has the element type of input ``typed_by``."""

    abstract = True
    type = None
    typed_by = 0

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(cls.typed_by))


class TfConvBackpropInput(TypedByInput):
    """Conv2DBackpropInput, Conv3DBackpropInputV2: inputs (output sizes, filter, data); lowered
    where the data shape is known (the padding depends on it)."""

    op = "tf::ConvBackpropInput"
    typed_by = 2

    @classmethod
    def infer_shapes(cls, node):
        sizes = node.in_value(0)
        if sizes is not None:
            return [tuple(int(v) for v in np.reshape(sizes, -1))]
        return [(DYN,) * node.rank]


class TfPool(FrontOnlyOp):
    """MaxPool(V2), AvgPool, MaxPool3D, AvgPool3D: ``pool`` max/avg, ``ksize``, ``strides``
    (attributes, or inputs 1 and 2 for MaxPoolV2), ``padding``, ``data_format``."""

    op = "tf::Pool"


class TfFusedBatchNorm(FrontOnlyOp):
    """FusedBatchNorm(V2/V3) at inference: x, scale, offset, mean, variance; ``epsilon``,
    ``data_format``."""

    op = "tf::FusedBatchNorm"


class TfResize(FrontOnlyOp):
    """ResizeBilinear / ResizeNearestNeighbor / ResizeBicubic (images NHWC, size [h, w]) with
    ``mode``, ``align_corners``, ``half_pixel_centers``."""

    op = "tf::Resize"


class TfDepthSpace(FrontOnlyOp):
    """DepthToSpace / SpaceToDepth with ``block_size`` and ``data_format``; ``to_space``."""

    op = "tf::DepthSpace"


class TfConcat(FrontOnlyOp):
    """ConcatV2 (axis last) or Concat (axis first); ``axis_port``."""

    op = "tf::Concat"


class TfPack(FrontOnlyOp):
    """Pack: stack the inputs along a new ``axis``."""

    op = "tf::Pack"


class TfUnpack(FrontOnlyOp):
    """Unpack: ``num`` outputs along ``axis``, which disappears."""

    op = "tf::Unpack"


class TfSplit(FrontOnlyOp):
    """Split (axis, value) with ``num_split`` or SplitV (value, size_splits, axis); ``variadic``."""

    op = "tf::Split"


class TfPad(FrontOnlyOp):
    """Pad, PadV2 (constant value input 2), MirrorPad (``mode``): paddings [rank, 2]."""

    op = "tf::Pad"


class TfSlice(FrontOnlyOp):
    """Slice(input, begin, size), size -1 meaning to the end."""

    op = "tf::Slice"


class TfSqueeze(FrontOnlyOp):
    """Squeeze with ``squeeze_dims`` (empty: every dimension of size 1)."""

    op = "tf::Squeeze"


class TfGather(FrontOnlyOp):
    """Gather (v1): params[indices] along axis 0."""

    op = "tf::Gather"


class TfReverse(FrontOnlyOp):
    """ReverseV2(tensor, axis): the elements of the given axes in reverse order."""

    op = "tf::Reverse"


class TfWhere(FrontOnlyOp):
    """Where(condition): the coordinates [count, rank] of the true (non-zero) elements."""

    op = "tf::Where"


class TfFill(FrontOnlyOp):
    """Fill(dims, value)."""

    op = "tf::Fill"


class TfShapeCount(FrontOnlyOp):
    """Size (element count) or Rank (``fw_op``) as a scalar of ``out_type``."""

    op = "tf::ShapeCount"


class TfArgMinMax(FrontOnlyOp):
    """ArgMax / ArgMin(input, dimension) with ``output_type``; ``mode`` max/min."""

    op = "tf::ArgMinMax"


class TfWhile(FrontOnlyOp):
    """While / StatelessWhile: bodies ``body`` and ``cond`` run on the loop variables."""

    op = "tf::While"


class TfIf(FrontOnlyOp):
    """If / StatelessIf: input 0 is the condition, the others feed both branches."""

    op = "tf::If"


class TfTensorList(FrontOnlyOp):
    """A TensorList operation (``fw_op``); only the patterns of loops over
    sequences are converted (see the While lowering)."""

    op = "tf::TensorList"


class TfBiasAddNCHW(Op):
    """BiasAdd with data_format NCHW: bias [C] added along axis 1 (lowered where the rank is
    known)."""

    op = "tf::BiasAddNCHW"
    type = None


class TfSelect(TypedByInput):
    """Select (v1): a rank-1 condition picks whole rows of the other inputs (lowered where the
    ranks are known)."""

    op = "tf::Select"
    typed_by = 1

    @classmethod
    def infer_shapes(cls, node):
        return [broadcast_shapes(node.in_shape(1), node.in_shape(2))]


class TfSpaceBatch(Op):
    """SpaceToBatchND (``to_batch``) / BatchToSpaceND: block_shape [M], paddings or crops
    [M, 2] over the M dimensions after the batch (lowered where the rank is known)."""

    op = "tf::SpaceBatch"
    type = None

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        block, pads = node.in_value(1), node.in_value(2)
        if shape is None:
            return [None]
        if block is None or pads is None:
            return [(DYN,) * len(shape)]
        block, begin, end = full_block(np.reshape(block, -1), np.reshape(pads, (-1, 2)), len(shape))
        return [block_batch_shape(shape, list(block), list(begin), list(end), node.to_batch)]


def full_block(block: np.ndarray, pads: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Block shape and pads over every dim of a rank-``rank`` tensor from TensorFlow's [M] block
    and [M, 2] paddings: 1 and 0 for the batch and the dims after the blocked ones."""
    tail = rank - 1 - block.size
    ones, zeros = np.ones(tail, np.int64), np.zeros(tail, np.int64)
    return (np.concatenate([[1], block.astype(np.int64), ones]),
            np.concatenate([[0], pads[:, 0].astype(np.int64), zeros]),
            np.concatenate([[0], pads[:, 1].astype(np.int64), zeros]))
