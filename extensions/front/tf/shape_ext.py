"""Extractors of the TensorFlow shape and data movement operations."""
from __future__ import annotations

from extensions.load.tf.attributes import TfExtractor
from extensions.ops.tf_internal import (
    TfConcat,
    TfFill,
    TfGather,
    TfPack,
    TfPad,
    TfReverse,
    TfShapeCount,
    TfSlice,
    TfSplit,
    TfSqueeze,
    TfUnpack,
    TfWhere,
)

# TensorFlow op type -> opset op with the same inputs and no attributes to translate.
SAME_INPUTS = {"Reshape": "Reshape", "ExpandDims": "Unsqueeze", "Transpose": "Transpose", "Tile": "Tile",
               "BroadcastTo": "Broadcast", "GatherNd": "GatherND"}


def _op(node, name: str):
    return node.graph.registry.op(name)


class SameInputsExtractor(TfExtractor):
    op_types = tuple(SAME_INPUTS)

    @classmethod
    def extract(cls, node):
        attrs = {"batch_dims": 0} if node.fw_op == "GatherNd" else {}
        _op(node, SAME_INPUTS[node.fw_op]).update_node(node, attrs)


class ShapeExtractor(TfExtractor):
    op_types = ("Shape",)

    @classmethod
    def extract(cls, node):
        _op(node, "ShapeOf").update_node(node, {"output_type": cls.dtype(node, "out_type") or "i32"})


class ShapeCountExtractor(TfExtractor):
    """Size and Rank: scalars computed from the shape."""

    op_types = ("Size", "Rank")

    @classmethod
    def extract(cls, node):
        TfShapeCount.update_node(node, {"out_type": cls.dtype(node, "out_type") or "i32"})


class GatherV2Extractor(TfExtractor):
    op_types = ("GatherV2", "ResourceGather")

    @classmethod
    def extract(cls, node):
        _op(node, "Gather").update_node(node, {"batch_dims": int(cls.attr(node, "batch_dims", 0))})


class GatherExtractor(TfExtractor):
    op_types = ("Gather",)

    @classmethod
    def extract(cls, node):
        TfGather.update_node(node)


class StridedSliceExtractor(TfExtractor):
    """StridedSlice: the masks are bit fields in TensorFlow and lists of 0/1 in the opset, one
    entry per element of begin (the index spec)."""

    op_types = ("StridedSlice",)
    masks = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")

    @classmethod
    def extract(cls, node):
        begin = node.in_port(1).data.get_value()
        bits = {m: int(cls.attr(node, m, 0)) for m in cls.masks}
        width = max([begin.size if begin is not None else 1] + [b.bit_length() for b in bits.values()])
        attrs = {m: [(bits[m] >> i) & 1 for i in range(width)] for m in cls.masks}
        _op(node, "StridedSlice").update_node(node, attrs)


class SliceExtractor(TfExtractor):
    op_types = ("Slice",)

    @classmethod
    def extract(cls, node):
        TfSlice.update_node(node)


class SqueezeExtractor(TfExtractor):
    op_types = ("Squeeze",)

    @classmethod
    def extract(cls, node):
        TfSqueeze.update_node(node, {"squeeze_dims": list(cls.attr(node, "squeeze_dims", []) or [])})


class ConcatExtractor(TfExtractor):
    """ConcatV2 (values..., axis) and Concat (axis, values...)."""

    op_types = ("ConcatV2", "Concat")

    @classmethod
    def extract(cls, node):
        n = len(node.in_ports())
        TfConcat.update_node(node, {"axis_port": n - 1 if node.fw_op == "ConcatV2" else 0})


class PackExtractor(TfExtractor):
    op_types = ("Pack",)

    @classmethod
    def extract(cls, node):
        TfPack.update_node(node, {"axis": int(cls.attr(node, "axis", 0))})


class UnpackExtractor(TfExtractor):
    op_types = ("Unpack",)

    @classmethod
    def extract(cls, node):
        TfUnpack.update_node(node, {"axis": int(cls.attr(node, "axis", 0)), "num_outputs": int(cls.attr(node, "num"))})


class SplitExtractor(TfExtractor):
    """Split (axis, value) and SplitV (value, size_splits, axis)."""

    op_types = ("Split", "SplitV")

    @classmethod
    def extract(cls, node):
        TfSplit.update_node(node, {"num_outputs": int(cls.attr(node, "num_split")), "variadic": node.fw_op == "SplitV"})


class PadExtractor(TfExtractor):
    op_types = ("Pad", "PadV2", "MirrorPad")

    @classmethod
    def extract(cls, node):
        mode = str(cls.attr(node, "mode", "CONSTANT")).lower()
        TfPad.update_node(node, {"pad_mode": mode})


class ReverseExtractor(TfExtractor):
    op_types = ("ReverseV2",)

    @classmethod
    def extract(cls, node):
        TfReverse.update_node(node)


class WhereExtractor(TfExtractor):
    op_types = ("Where",)

    @classmethod
    def extract(cls, node):
        TfWhere.update_node(node)


class FillExtractor(TfExtractor):
    op_types = ("Fill",)

    @classmethod
    def extract(cls, node):
        TfFill.update_node(node)


class RangeExtractor(TfExtractor):
    op_types = ("Range",)

    @classmethod
    def extract(cls, node):
        _op(node, "Range").update_node(node, {"output_type": cls.dtype(node, "Tidx") or "i32"})


class CumsumExtractor(TfExtractor):
    op_types = ("Cumsum",)

    @classmethod
    def extract(cls, node):
        _op(node, "CumSum").update_node(node, {"exclusive": bool(cls.attr(node, "exclusive", False)),
                                               "reverse": bool(cls.attr(node, "reverse", False))})


class OneHotExtractor(TfExtractor):
    """OneHot(indices, depth, on_value, off_value): negative indices give all-off rows."""

    op_types = ("OneHot",)

    @classmethod
    def extract(cls, node):
        _op(node, "OneHot").update_node(node, {"axis": int(cls.attr(node, "axis", -1)),
                                               "negative_indices_mode": "ignore_negative"})
