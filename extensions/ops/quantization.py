"""Quantization operations: FakeQuantize."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import broadcast_shapes


class FakeQuantize(Op):
    """x quantized to ``levels`` values between input_low and input_high, mapped linearly onto
    output_low..output_high; inputs x, input_low, input_high, output_low, output_high broadcast
    with numpy rules."""

    op = "FakeQuantize"
    defaults = {"levels": 256, "auto_broadcast": "numpy"}
    ir_attrs = ("levels", "auto_broadcast")
    same_type_inputs = (0, 1, 2, 3, 4)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        for i in range(1, 5):
            shape = broadcast_shapes(shape, node.in_shape(i))
        return [shape]

    @classmethod
    def evaluate(cls, node, x, in_low, in_high, out_low, out_high):
        """output_low where x <= min(input_low, input_high), output_high where x is above their
        max, else round((x - input_low) / (input_high - input_low) * (levels - 1)) / (levels - 1)
        * (output_high - output_low) + output_low (rounding halves to even)."""
        steps = node.levels - 1
        with np.errstate(all="ignore"):
            q = np.round((x - in_low) / (in_high - in_low) * steps) / steps * (out_high - out_low) + out_low
        q = np.where(x <= np.minimum(in_low, in_high), out_low, q)
        q = np.where(x > np.maximum(in_low, in_high), out_high, q)
        return q.astype(x.dtype)
