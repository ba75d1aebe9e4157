"""Middle lowering of ONNX CausalConvWithState, which needs the kernel size."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder
from mo.graph.building import channel_bias


class CausalConvWithStateToOpset(MiddleReplaceOp):
    """padded = [past_state (or k - 1 zeros), input] along the length; output = depthwise
    GroupConvolution of padded (+ bias, SiLU when asked); present_state = the last k - 1
    positions of padded."""

    op = "onnx::CausalConvWithState"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        w = node.in_port(1).get_source()
        w_shape = w.data.get_shape()
        if w_shape is None or w_shape[2] < 0:
            raise ValueError(f"CausalConvWithState '{node.name}' needs a static kernel size")
        k = w_shape[2]
        if node.is_in_port_connected(3):
            padded = b.Concat(node.in_port(3).get_source(), x, axis=2)
        else:
            padded = b.Pad(x, np.array([0, 0, k - 1], np.int64), np.zeros(3, np.int64), pad_mode="constant")
        filters = b.Unsqueeze(w, np.array([1], np.int64))          # [C, 1, 1, k]: one group per channel
        y = b.GroupConvolution(padded, filters, strides=[1], dilations=[1], pads_begin=[0], pads_end=[0],
                               auto_pad="explicit")
        if node.is_in_port_connected(2):
            y = b.Add(y, channel_bias(b, node.in_port(2).get_source(), 1))
        if node.activation in ("silu", "swish"):
            y = b.Swish(y)
        y.node["name"] = node.name
        start = np.array([1 - k if k > 1 else np.iinfo(np.int64).max], np.int64)
        state = b.Slice(padded, start, np.array([np.iinfo(np.int64).max], np.int64), np.array([1], np.int64),
                        np.array([2], np.int64))
        return [y, state]
