"""Extractors of ONNX Softmax, LogSoftmax and Hardmax.

From opset 13 Softmax/LogSoftmax work along one axis (default -1): Softmax-8 / LogSoftmax-5.
Before 13 they flatten the input to 2-D at ``axis`` (default 1); that form and Hardmax are kept
as onnx::Softmax for the middle phase."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.softmax import LogSoftmax, OnnxSoftmax, Softmax

_OPSET = {"Softmax": Softmax, "LogSoftmax": LogSoftmax}


class SoftmaxExtractor(OnnxExtractor):
    op_types = ("Softmax", "LogSoftmax", "Hardmax")

    @classmethod
    def extract(cls, node):
        flatten = node.opset < 13
        axis = int(cls.attr(node, "axis", 1 if flatten else -1))
        if not flatten and node.fw_op in _OPSET:
            _OPSET[node.fw_op].update_node(node, {"axis": axis})
        else:
            OnnxSoftmax.update_node(node, {"variant": node.fw_op, "axis": axis, "flatten": flatten})
