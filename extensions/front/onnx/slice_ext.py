"""Extractors of ONNX Slice and Split (attribute forms of old opsets become constant inputs)."""
from __future__ import annotations

from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.onnx_tensor_internal import OnnxSlice, OnnxSplit


class SliceExtractor(OnnxExtractor):
    """Slice: inputs (data, starts, ends, axes, steps) from opset 10, attributes before."""

    op_types = ("Slice",)

    @classmethod
    def extract(cls, node):
        if node.opset < 10:
            add_const_input(node, 1, cls.ints(node, "starts"), "starts")
            add_const_input(node, 2, cls.ints(node, "ends"), "ends")
            axes = cls.ints(node, "axes")
            if axes is not None:
                add_const_input(node, 3, axes, "axes")
        OnnxSlice.update_node(node)


class SplitExtractor(OnnxExtractor):
    """Split by the lengths in ``split`` (attribute before opset 13, input 1 after), or into equal
    parts, one per output (``num_outputs`` of opset 18 allows a smaller last part)."""

    op_types = ("Split",)

    @classmethod
    def extract(cls, node):
        split = cls.ints(node, "split")
        if split is not None and not node.is_in_port_connected(1):
            add_const_input(node, 1, split, "split")
        OnnxSplit.update_node(node, {"axis": int(cls.attr(node, "axis", 0)),
                                     "uneven": cls.attr(node, "num_outputs") is not None})
