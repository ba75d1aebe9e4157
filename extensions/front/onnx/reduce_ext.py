"""Extractor of the ONNX Reduce* operators (axes as attribute before opset 13/18, as input after)."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.onnx_reduce import ONNX_REDUCTIONS, OnnxReduce


class ReduceExtractor(OnnxExtractor):
    op_types = ONNX_REDUCTIONS

    @classmethod
    def extract(cls, node):
        OnnxReduce.update_node(node, {
            "reduction": node.fw_op,
            "axes": cls.ints(node, "axes"),
            "keep_dims": bool(cls.attr(node, "keepdims", 1)),
            "noop_with_empty_axes": bool(cls.attr(node, "noop_with_empty_axes", 0)),
        })
