"""Extractors of the ONNX operators that only rearrange or describe a tensor's shape: Reshape,
Shape, Size, Flatten, Squeeze, Unsqueeze, Concat, Transpose, Expand, Tile, ConstantOfShape, Range,
ReverseSequence, DepthToSpace, SpaceToDepth, Dropout."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.onnx_tensor_internal import (
    OnnxConstantOfShape,
    OnnxDropout,
    OnnxFlatten,
    OnnxRange,
    OnnxShape,
    OnnxSize,
)
from extensions.ops.rearrange import DepthToSpace, SpaceToDepth
from extensions.ops.shape import (
    Broadcast,
    Concat,
    Reshape,
    ReverseSequence,
    ShapeOf,
    Squeeze,
    Tile,
    Transpose,
    Unsqueeze,
)


class ReshapeExtractor(OnnxExtractor):
    """Reshape: 0 copies the input dimension unless ``allowzero`` (opset 14) is set; before
    opset 5 the target is the ``shape`` attribute."""

    op_types = ("Reshape",)

    @classmethod
    def extract(cls, node):
        if node.opset < 5:
            add_const_input(node, 1, cls.ints(node, "shape", []), "shape")
        Reshape.update_node(node, {"special_zero": not bool(cls.attr(node, "allowzero", 0))})


class ShapeExtractor(OnnxExtractor):
    """Shape, optionally of the dims [start, end) (opset 15)."""

    op_types = ("Shape",)

    @classmethod
    def extract(cls, node):
        start, end = cls.attr(node, "start"), cls.attr(node, "end")
        if start in (None, 0) and end is None:
            ShapeOf.update_node(node, {"output_type": "i64"})
        else:
            OnnxShape.update_node(node, {"start": int(start or 0), "end": end})


class SizeExtractor(OnnxExtractor):
    op_types = ("Size",)

    @classmethod
    def extract(cls, node):
        OnnxSize.update_node(node)


class FlattenExtractor(OnnxExtractor):
    op_types = ("Flatten",)

    @classmethod
    def extract(cls, node):
        OnnxFlatten.update_node(node, {"axis": int(cls.attr(node, "axis", 1))})


class SqueezeExtractor(OnnxExtractor):
    """Squeeze / Unsqueeze: ``axes`` is an attribute before opset 13, an input after."""

    op_types = ("Squeeze", "Unsqueeze")

    @classmethod
    def extract(cls, node):
        axes = cls.ints(node, "axes")
        if node.opset < 13 and axes is not None:
            add_const_input(node, 1, axes, "axes")
        (Squeeze if node.fw_op == "Squeeze" else Unsqueeze).update_node(node)


class ConcatExtractor(OnnxExtractor):
    op_types = ("Concat",)

    @classmethod
    def extract(cls, node):
        Concat.update_node(node, {"axis": int(cls.attr(node, "axis", 0))})


class TransposeExtractor(OnnxExtractor):
    """Transpose by ``perm``; without it the dims are reversed (TransposeDefaultOrder adds the
    order once the rank is known)."""

    op_types = ("Transpose",)

    @classmethod
    def extract(cls, node):
        perm = cls.ints(node, "perm")
        if perm is not None:
            add_const_input(node, 1, perm, "perm")
        Transpose.update_node(node)


class ExpandExtractor(OnnxExtractor):
    op_types = ("Expand",)

    @classmethod
    def extract(cls, node):
        Broadcast.update_node(node, {"mode": "bidirectional"})


class TileExtractor(OnnxExtractor):
    op_types = ("Tile",)

    @classmethod
    def extract(cls, node):
        Tile.update_node(node)


class ConstantOfShapeExtractor(OnnxExtractor):
    """ConstantOfShape: ``value`` is a one-element tensor, float 0 by default."""

    op_types = ("ConstantOfShape",)

    @classmethod
    def extract(cls, node):
        value, et = cls.attr(node, "value", (np.zeros((), np.float32), "f32"))
        OnnxConstantOfShape.update_node(node, {"value": value.reshape(()), "element_type": et})


class RangeExtractor(OnnxExtractor):
    """Range: the output element type is that of ``start`` (known after type inference)."""

    op_types = ("Range",)

    @classmethod
    def extract(cls, node):
        OnnxRange.update_node(node)


class ReverseSequenceExtractor(OnnxExtractor):
    op_types = ("ReverseSequence",)

    @classmethod
    def extract(cls, node):
        ReverseSequence.update_node(node, {"batch_axis": int(cls.attr(node, "batch_axis", 1)),
                                           "seq_axis": int(cls.attr(node, "time_axis", 0))})


class DepthSpaceExtractor(OnnxExtractor):
    """DepthToSpace / SpaceToDepth: ONNX mode DCR is blocks_first, CRD depth_first."""

    op_types = ("DepthToSpace", "SpaceToDepth")

    @classmethod
    def extract(cls, node):
        mode = cls.attr(node, "mode", "DCR")
        if mode not in ("DCR", "CRD"):
            raise ValueError(f"unknown mode '{mode}'")
        op = DepthToSpace if node.fw_op == "DepthToSpace" else SpaceToDepth
        op.update_node(node, {"block_size": int(cls.attr(node, "blocksize")),
                              "mode": "blocks_first" if mode == "DCR" else "depth_first"})


class DropoutExtractor(OnnxExtractor):
    """Dropout is the identity at inference (the converter does not emit training graphs)."""

    op_types = ("Dropout",)

    @classmethod
    def extract(cls, node):
        OnnxDropout.update_node(node)
