"""TensorFlow FakeQuantWithMinMaxArgs / Vars / VarsPerChannel (FakeQuantize over TensorFlow's
nudged range) and QuantizeAndDequantizeV2 / V3 / V4 (FakeQuantize over the symmetric range).

TensorFlow moves [min, max] so that 0 is exactly representable: with quant_min 0 (1 when
``narrow_range``) and quant_max 2^num_bits - 1, scale = (max - min) / (quant_max - quant_min), the
zero point quant_min - min / scale clamped to [quant_min, quant_max] and rounded (halves away from
zero), and the range becomes [(quant_min - zero point) * scale, (quant_max - zero point) * scale].
The nudging is built as opset ops, so it folds for constant bounds and is computed for bounds the
model computes; the per-channel bounds [d] broadcast over the last dimension.

The CPU plugin drops a FakeQuantize of 65536 levels (16 bits, not narrow) as a stripped int16
quantize-dequantize pair: that one is built as arithmetic instead (clamp, then
round((x - min) / scale) * scale + min, with TensorFlow's rounding). Elsewhere FakeQuantize rounds
ties to even where TensorFlow may round them up: values exactly halfway between two levels may
differ by one level."""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, i64, input_rank, norm_axis, scalar_like
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


def fake_quantize(b: OpBuilder, node, x: Port, low: Port, high: Port, levels: int, half_up: bool) -> Port:
    """x clamped to [low, high] (in x's type) and rounded to the nearest of ``levels`` evenly
    spaced values: FakeQuantize, or arithmetic for 65536 levels, which the CPU plugin strips
    (ties there round up with ``half_up``, else to even)."""
    dtype = x.data.get_dtype()
    low, high = convert(b, low, dtype), convert(b, high, dtype)
    if levels != 2 ** 16:
        return b.FakeQuantize(x, low, high, low, high, levels=levels, name=node.name)
    scale = b.Divide(b.Subtract(high, low), scalar_like(b, levels - 1, x))
    steps = b.Divide(b.Subtract(b.Minimum(b.Maximum(x, low), high), low), scale)
    steps = b.Floor(b.Add(steps, scalar_like(b, 0.5, x))) if half_up else b.Round(steps, mode="half_to_even")
    return b.Add(b.Multiply(steps, scale), low)


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
    return [fake_quantize(b, node, x, nudged_min, nudged_max, quant_max - quant_min + 1, half_up=True)]


# ---------------------------------------------------------------------------- QuantizeAndDequantize
QDQ = ("QuantizeAndDequantizeV2", "QuantizeAndDequantizeV3", "QuantizeAndDequantizeV4")


class QuantizeAndDequantizeExtractor(TfExtractor):
    """signed_input, num_bits (V3: a constant input), range_given, round_mode, narrow_range, axis."""

    op_types = QDQ

    @classmethod
    def extract(cls, node):
        mode = cls.attr(node, "round_mode", "HALF_TO_EVEN")
        if mode not in ("HALF_TO_EVEN", "HALF_UP"):
            raise ConversionError(f"{node.fw_op} '{node.name}' has round_mode '{mode}'.")
        node.update({"signed_input": bool(cls.attr(node, "signed_input", True)),
                     "num_bits": int(cls.attr(node, "num_bits", 8)), "range_given": bool(cls.attr(node, "range_given",
                                                                                                  False)),
                     "half_up": mode == "HALF_UP", "narrow_range": bool(cls.attr(node, "narrow_range", False)),
                     "axis": int(cls.attr(node, "axis", -1))})


@translator("tf", *QDQ)
def quantize_and_dequantize(node, b):
    """Symmetric quantization to num_bits (signed: [-2^(n-1) (+1 when narrow), 2^(n-1) - 1],
    unsigned: [0, 2^n - 1]) of the range given or of the input's own min and max (per slice of
    ``axis`` when it is set): the scale is the largest that keeps both ends representable and the
    end that does not fix it moves to the last representable value. A given range clamps x and is
    a FakeQuantize over the adjusted range; a range taken from the input does not clamp
    (TensorFlow leaves an unsigned quantization's negative values unclamped then), and f64 data
    is quantized in f32: round(x * scale) / scale as arithmetic."""
    x = node.in_port(0).get_source()
    bits = node.num_bits
    if node.fw_op == "QuantizeAndDequantizeV3":
        value = node.in_port(3).data.get_value()
        if value is None:
            raise ConversionError("its num_bits input is not constant.")
        bits = int(np.reshape(value, -1)[0])
    if not 1 <= bits <= 63:
        raise ConversionError(f"its num_bits is {bits}.")
    rank = input_rank(node)
    axis = None if node.axis == -1 else norm_axis(node.axis, rank, node)
    if node.signed_input:
        quant_min, quant_max = -(2 ** (bits - 1)) + (1 if node.narrow_range else 0), 2 ** (bits - 1) - 1
    else:
        quant_min, quant_max = 0, 2 ** bits - 1
    dtype = x.data.get_dtype()
    data = convert(b, x, "f32")
    if node.range_given:
        low, high = (convert(b, node.in_port(i).get_source(), "f32") for i in (1, 2))
        if axis is not None and axis < rank - 1:
            low, high = (b.Unsqueeze(v, i64(range(1, rank - axis))) for v in (low, high))
        scale, inverse, low, high = _symmetric_scale(b, low, high, quant_min, quant_max)
        if dtype != "f64":      # (the CPU plugin cannot run a FakeQuantize between f64 Converts)
            return [fake_quantize(b, node, x, low, high, quant_max - quant_min + 1, half_up=node.half_up)]
        data = b.Minimum(b.Maximum(data, low), high)
    else:
        axes = i64([a for a in range(rank) if a != axis])
        low, high = (b.op(op, data, axes, keep_dims=axis is not None) for op in ("ReduceMin", "ReduceMax"))
        scale, inverse, _, _ = _symmetric_scale(b, low, high, quant_min, quant_max)
    scaled = b.Multiply(data, scale)
    steps = b.Floor(b.Add(scaled, np.float32(0.5))) if node.half_up else b.Round(scaled, mode="half_to_even")
    return [convert(b, b.Multiply(steps, inverse), dtype)]


def _symmetric_scale(b: OpBuilder, low: Port, high: Port, quant_min: int, quant_max: int) -> tuple[Port, ...]:
    """TensorFlow's scale for [low, high], its inverse and the adjusted range: the scale is the
    smaller of quant_min / low and quant_max / high (a side whose product is not positive does
    not count), the other end becomes quant_min or quant_max divided by it."""
    qmin, qmax, huge = np.float32(quant_min), np.float32(quant_max), np.float32(np.finfo(np.float32).max)
    from_min = b.Select(b.Greater(b.Multiply(low, qmin), np.float32(0)), b.Divide(qmin, low), huge)
    from_max = b.Select(b.Greater(b.Multiply(high, qmax), np.float32(0)), b.Divide(qmax, high), huge)
    min_side = b.Less(from_min, from_max)
    inverse = b.Select(min_side, b.Divide(low, qmin), b.Divide(high, qmax))
    return (b.Select(min_side, from_min, from_max), inverse, b.Select(min_side, low, b.Multiply(inverse, qmin)),
            b.Select(min_side, b.Multiply(inverse, qmax), high))
