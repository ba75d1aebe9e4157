"""TensorFlow FakeQuantWithMinMaxArgs / Vars / VarsPerChannel: FakeQuantize over TensorFlow's
nudged range.

TensorFlow moves [min, max] so that 0 is exactly representable: with quant_min 0 (1 when
``narrow_range``) and quant_max 2^num_bits - 1, scale = (max - min) / (quant_max - quant_min), the
zero point quant_min - min / scale clamped to [quant_min, quant_max] and rounded (halves away from
zero), and the range becomes [(quant_min - zero point) * scale, (quant_max - zero point) * scale].
The nudging is built as opset ops, so it folds for constant bounds and is computed for bounds the
model computes; the per-channel bounds [d] broadcast over the last dimension.

The CPU plugin drops a FakeQuantize of 65536 levels (16 bits, not narrow) as a stripped int16
quantize-dequantize pair: that one is built as arithmetic instead (TensorFlow's clamp, then
floor((x - min) / scale + 0.5) * scale + min)."""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert
from mo.graph.port import Port


class FakeQuantExtractor(TfExtractor):
    """num_bits (2..16) and narrow_range; the Args form's min and max."""

    op_types = ("FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel")

    @classmethod
    def extract(cls, node):
        bits = int(cls.attr(node, "num_bits", 8))
        if not 2 <= bits <= 16:
            raise ConversionError(f"{node.fw_op} '{node.name}' has num_bits {bits}; TensorFlow allows 2 to 16.")
        node.update({"num_bits": bits, "narrow_range": bool(cls.attr(node, "narrow_range", False)),
                     "min": float(cls.attr(node, "min", -6.0)), "max": float(cls.attr(node, "max", 6.0))})


def nudged_range(b: OpBuilder, low: Port, high: Port, quant_min: int, quant_max: int) -> tuple[Port, Port]:
    """TensorFlow's nudged [min, max] (f32) for the levels quant_min..quant_max."""
    qmin, qmax = np.float32(quant_min), np.float32(quant_max)
    scale = b.Divide(b.Subtract(high, low), np.float32(quant_max - quant_min))
    zero_from_min = b.Subtract(qmin, b.Divide(low, scale))
    zero = b.Round(b.Clamp(zero_from_min, min=float(quant_min), max=float(quant_max)), mode="half_away_from_zero")
    return b.Multiply(b.Subtract(qmin, zero), scale), b.Multiply(b.Subtract(qmax, zero), scale)


@translator("tf", *FakeQuantExtractor.op_types)
def fake_quant(node, b):
    x = node.in_port(0).get_source()
    if node.fw_op == "FakeQuantWithMinMaxArgs":
        if node.min >= node.max:
            raise ConversionError(f"its min {node.min} is not below its max {node.max}.")
        low, high = b.const(np.float32(node.min)), b.const(np.float32(node.max))
    else:
        low, high = (convert(b, node.in_port(i).get_source(), "f32") for i in (1, 2))
    quant_min, quant_max = (1 if node.narrow_range else 0), 2 ** node.num_bits - 1
    nudged_min, nudged_max = nudged_range(b, low, high, quant_min, quant_max)
    dtype = x.data.get_dtype()
    nudged_min, nudged_max = convert(b, nudged_min, dtype), convert(b, nudged_max, dtype)
    levels = quant_max - quant_min + 1
    if levels == 2 ** 16:
        scale = b.Divide(b.Subtract(nudged_max, nudged_min), convert(b, b.const(np.float32(levels - 1)), dtype))
        clamped = b.Minimum(b.Maximum(x, nudged_min), nudged_max)
        steps = b.Floor(b.Add(b.Divide(b.Subtract(clamped, nudged_min), scale), convert(b, b.const(np.float32(0.5)),
                                                                                           dtype)))
        return [b.Add(b.Multiply(steps, scale), nudged_min)]
    return [b.FakeQuantize(x, nudged_min, nudged_max, nudged_min, nudged_max, levels=levels, name=node.name)]
