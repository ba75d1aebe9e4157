"""Quantization: FakeQuantize-1."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import broadcast_shapes


class FakeQuantize(Op):
    """Element-wise linear quantization of x (input 0) onto ``levels`` values: x at or below
    min(input_low, input_high) (inputs 1, 2) gives output_low (input 3), x above their max
    output_high (input 4), else round((x - input_low) / (input_high - input_low) * (levels - 1))
    / (levels - 1) * (output_high - output_low) + output_low. The bounds broadcast to x (numpy
    rules). The reference rounds halves to even."""

    op = "FakeQuantize"
    version = "opset1"
    defaults = {"levels": 256, "auto_broadcast": "numpy"}
    ir_attrs = ("levels", "auto_broadcast")
    same_type_inputs = "all"
    # the ranges define the quantization grid: rounded to f16 they would move every step
    precision_sensitive_inputs = (1, 2, 3, 4)

    @classmethod
    def infer_shapes(cls, node):
        if int(node.levels) < 2:
            raise ValueError(f"FakeQuantize needs at least 2 levels, not {node.levels}")
        return [broadcast_shapes(*(node.in_shape(i) for i in range(5)))]

    @classmethod
    def evaluate(cls, node, x, in_low, in_high, out_low, out_high):
        steps = int(node.levels) - 1
        with np.errstate(all="ignore"):
            q = np.round((x - in_low) / (in_high - in_low) * steps) / steps * (out_high - out_low) + out_low
        y = np.where(x <= np.minimum(in_low, in_high), out_low, np.where(x > np.maximum(in_low, in_high), out_high, q))
        return y.astype(x.dtype)
