"""Quantization: FakeQuantize-1."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import broadcast_shapes

# fewer constant values than this are folded through a FakeQuantize (no weights worth storing as integers)
MIN_WEIGHTS = 16


def quantizes_weights(node) -> bool:
    """Whether a FakeQuantize node rounds constant weights onto at most 256 levels."""
    x = node.in_port(0).data.get_value() if node.is_in_port_connected(0) else None
    return x is not None and x.size >= MIN_WEIGHTS and int(node.levels) <= 256


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
    def infer(cls, node):
        """Folds like any op, except the quantization of constant weights (levels <= 256, at least
        16 values): the middle phase stores those as integers instead
        (``extensions/middle/quantization_fusions.py``), which a folded float constant would lose."""
        if quantizes_weights(node):
            for i, shape in enumerate(cls.infer_shapes(node)):
                node.out_port(i).data.set_shape(shape)
            return
        super().infer(node)

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
