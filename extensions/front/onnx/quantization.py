"""Front lowering of ONNX DynamicQuantizeLinear: the u8 scale and zero point come from the range
of the input (extended to include 0)."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp


class DynamicQuantizeLinearToOpset(ReplaceOp):
    """scale = (max(x, 0) - min(x, 0)) / 255, zero_point = clamp(round(-min / scale), 0, 255),
    y = clamp(round(x / scale) + zero_point, 0, 255), all rounding half to even."""

    op = "onnx::DynamicQuantizeLinear"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        flat = b.Reshape(x, np.array([-1], np.int64), special_zero=False)
        axis = np.array([0], np.int64)
        low = b.Minimum(b.ReduceMin(flat, axis), np.float32(0))
        high = b.Maximum(b.ReduceMax(flat, axis), np.float32(0))
        scale = b.Divide(b.Subtract(high, low), np.float32(255), name=node.name + "/scale")
        zero = b.Clamp(b.Round(b.Divide(b.Negative(low), scale), mode="half_to_even"), min=0.0, max=255.0)
        y = b.Clamp(b.Add(b.Round(b.Divide(x, scale), mode="half_to_even"), zero), min=0.0, max=255.0)
        return [b.Convert(y, destination_type="u8", name=node.name), scale,
                b.Convert(zero, destination_type="u8", name=node.name + "/zero_point")]
