"""Quantize -> dequantize pairs become FakeQuantize, the form OpenVINO's low-precision
transformations run in int8.

The ONNX translators (and every other quantizer that builds on ``extensions/front/common/
quantization.py``) write a quantization as arithmetic, exact for a tensor that stays quantized:

    q = Convert<int>(Clamp<qmin, qmax>(Round(x / s_q) [+ zp_q]))

and a dequantization as ``(Convert<float>(q) [- zp_d]) [* s_d]``. Where such a q is dequantized
with constant parameters, the pair is one FakeQuantize of x with ``qmax - qmin + 1`` levels: input
range [(qmin - zp_q) * s_q, (qmax - zp_q) * s_q], output range [(qmin - zp_d) * s_d, (qmax - zp_d)
* s_d]. The CPU plugin executes a Convolution or MatMul fed by such FakeQuantizes (and weights kept
as integer constants) in u8/i8; the arithmetic form it would run in float. Values exactly halfway
between two steps may round to the other neighbour (within one quantum).
"""
from __future__ import annotations

import numpy as np

from extensions.middle.constant_folding import ConstantFolding
from extensions.middle.scale_shift_fusions import BatchNormToScaleShift
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.pipeline.transform import Transform
from mo.utils.types import is_int

# integer types whose grid a FakeQuantize of f32 arithmetic represents exactly
QUANT_GRID = {"u8": (0, 255), "i8": (-128, 127), "u4": (0, 15), "i4": (-8, 7)}
FLOAT_TYPES = ("f32", "f16", "bf16", "f64")


def _other(node: Node, port: Port) -> int:
    """The input index of ``node`` not fed by ``port`` (node has two inputs)."""
    return 1 if node.in_port(0).get_source() == port else 0


def _sole_consumer(port: Port) -> Node | None:
    dests = port.get_destinations()
    return dests[0].node if len(dests) == 1 else None


def quantizer(q_convert: Node) -> tuple[Port, np.ndarray, np.ndarray, int, int] | None:
    """(x, scale, zero point, qmin, qmax) of ``Convert<int>(Clamp(Round(x / s) [+ zp]))``, the
    arithmetic quantization of x; None for anything else."""
    grid = QUANT_GRID.get(q_convert.destination_type)
    clamp = q_convert.in_port(0).get_source().node
    if grid is None or clamp.op != "Clamp" or (float(clamp.min), float(clamp.max)) != grid:
        return None
    inner = clamp.in_port(0).get_source().node
    zero_point = np.zeros((), np.float32)
    if inner.op == "Add":
        rounded = next((inner.in_port(i).get_source() for i in (0, 1)
                        if inner.in_port(i).get_source().node.op == "Round"), None)
        if rounded is None or inner.in_value(_other(inner, rounded)) is None:
            return None
        zero_point = inner.in_value(_other(inner, rounded))
        inner = rounded.node
    if inner.op != "Round" or inner.get("mode") != "half_to_even":
        return None
    divide = inner.in_port(0).get_source().node
    if divide.op != "Divide" or divide.in_value(1) is None or divide.in_port(0).data.get_value() is not None:
        return None
    return divide.in_port(0).get_source(), divide.in_value(1), zero_point, grid[0], grid[1]


def dequantizer(convert: Node) -> tuple[Port, np.ndarray, np.ndarray] | None:
    """(output, scale, zero point) of ``[Convert<float>] -> [Subtract(zp)] -> [Multiply(s)]`` after
    ``convert`` (a Convert to float), the constants' defaults 1 and 0; the chain stops at the first
    op that is not one of these with a constant operand."""
    scale, zero_point = np.ones((), np.float32), np.zeros((), np.float32)
    out = convert.out_port(0)
    nxt = _sole_consumer(out)
    if nxt is not None and nxt.op == "Subtract" and nxt.in_port(0).get_source() == out and nxt.in_value(1) is not None:
        zero_point, out = nxt.in_value(1), nxt.out_port(0)
        nxt = _sole_consumer(out)
    if nxt is not None and nxt.op == "Multiply" and nxt.in_value(_other(nxt, out)) is not None:
        scale, out = nxt.in_value(_other(nxt, out)), nxt.out_port(0)
    return out, scale, zero_point


def grid_bounds(scale: np.ndarray, zero_point: np.ndarray, qmin: int, qmax: int, dtype) -> tuple[np.ndarray, ...]:
    """(low, high): the real values of the grid's ends, (qmin - zp) * s and (qmax - zp) * s."""
    scale, zero_point = np.asarray(scale, np.float64), np.asarray(zero_point, np.float64)
    return ((qmin - zero_point) * scale).astype(dtype), ((qmax - zero_point) * scale).astype(dtype)


class QuantizeDequantizeToFakeQuantize(Transform):
    """Convert<int>(Clamp(Round(x / s_q) + zp_q)) -> Convert<float> [- zp_d] [* s_d], the constants
    known, becomes FakeQuantize(x) with the two grids' bounds (one per dequantization of q)."""

    phase = "middle"

    def run_after(self):
        return [ConstantFolding]

    def find_and_replace_pattern(self, graph) -> None:
        fused = False
        for convert in graph.nodes_by_op("Convert"):
            if convert.id not in graph or convert.destination_type not in FLOAT_TYPES:
                continue
            layout, q_port = layout_chain(convert.in_port(0).get_source())
            if q_port is None or q_port.node.op != "Convert" or not is_int(q_port.data.get_dtype()):
                continue
            found = quantizer(q_port.node)
            if found is None:
                continue
            x, s_q, zp_q, qmin, qmax = found
            out, s_d, zp_d = dequantizer(convert)
            dtype = x.data.get_dtype()
            if dtype not in FLOAT_TYPES or out.data.get_dtype() != dtype:
                continue
            if layout and (np.asarray(s_d).size > 1 or np.asarray(zp_d).size > 1):
                continue       # per-channel parameters do not follow a reshape
            np_type = np.float16 if dtype == "f16" else np.float64 if dtype == "f64" else np.float32
            in_low, in_high = grid_bounds(s_q, zp_q, qmin, qmax, np_type)
            out_low, out_high = grid_bounds(s_d, zp_d, qmin, qmax, np_type)
            b = OpBuilder(graph, convert.name)
            fq = b.FakeQuantize(x, in_low, in_high, out_low, out_high, levels=qmax - qmin + 1,
                                name=out.node.name if not layout else f"{q_port.node.name}/fake_quantize")
            if layout:      # the layout ops, repeated, move the dequantized values
                fq = replay(b, layout, fq)
            out.get_connection().set_source(fq)
            fused = True
        if fused:
            graph.remove_dead_nodes(keep=[p.id for p in graph.nodes_by_op("Parameter")])


# ops that move a quantized tensor's integers without changing them
LAYOUT_OPS = frozenset({"Reshape", "Squeeze", "Unsqueeze", "Transpose"})


def layout_chain(port: Port) -> tuple[list[Node], Port | None]:
    """(the layout ops ``port`` comes out of, nearest first; the port they start from)."""
    chain = []
    while port is not None and port.node.op in LAYOUT_OPS:
        chain.append(port.node)
        port = port.node.in_port(0).get_source()
    return chain, port


def replay(b: OpBuilder, chain: list[Node], port: Port) -> Port:
    """``port`` through copies of the layout ops of ``chain`` (nearest first, as layout_chain
    gives them): same other inputs, same attributes."""
    for node in reversed(chain):
        others = [node.in_port(i).get_source() for i in sorted(node.in_ports()) if i > 0]
        attrs = {k: node[k] for k in node.op_class.ir_attrs if k in node}
        port = b.op(node.op, port, *others, **attrs)
    return port


def integer_grid(node: Node) -> tuple[np.ndarray, np.ndarray] | None:
    """(integers, step) with FakeQuantize(w) == integers * step for a FakeQuantize ``node`` of constant
    weights w and constant ranges whose output grid holds 0 (its low end a whole number of steps
    from 0, as every quantizer with an integer zero point gives); None otherwise."""
    values = [node.in_value(i) for i in range(5)]
    if any(v is None for v in values):
        return None
    w, in_low, in_high, out_low, out_high = (np.asarray(v, np.float64) for v in values)
    levels = int(node.levels)
    step = (out_high - out_low) / (levels - 1)
    if np.any(step == 0) or np.any(in_high == in_low):
        return None
    offset = out_low / step
    if np.any(np.abs(offset - np.round(offset)) > 1e-3):
        return None
    with np.errstate(all="ignore"):
        k = np.round((w - in_low) / (in_high - in_low) * (levels - 1))
    k = np.where(w <= np.minimum(in_low, in_high), 0, np.where(w > np.maximum(in_low, in_high), levels - 1, k))
    return k + np.round(offset), step


class FakeQuantizedWeightsToIntegers(Transform):
    """FakeQuantize of constant weights (QAT models: PyTorch fake_quantize, TensorFlow FakeQuant of
    a kernel) -> the weights as i8 (or u8) integers, Convert (not folded) and Multiply by the step:
    the form OpenVINO's low-precision transformations run in int8, at a quarter of the float size.
    A grid without 0 on it (no integer zero point) keeps its FakeQuantize."""

    phase = "middle"

    def run_after(self):
        return [ConstantFolding]

    def run_before(self):
        return [BatchNormToScaleShift]

    def find_and_replace_pattern(self, graph) -> None:
        for fq in graph.nodes_by_op("FakeQuantize"):
            dtype = fq.out_port(0).data.get_dtype()
            if dtype not in FLOAT_TYPES or fq.in_value(0) is None:
                continue
            found = integer_grid(fq)
            if found is None:
                continue
            integers, step = found
            out = fq.out_port(0)
            reader = _sole_consumer(out)
            perm = reader.in_value(1) if reader is not None and reader.op == "Transpose" else None
            if perm is not None:      # the weights of a channels-last layer: stored in the layer's order
                integers = np.transpose(integers, perm)
                step = np.transpose(np.broadcast_to(step, (1,) * (integers.ndim - step.ndim) + step.shape), perm)
                out = reader.out_port(0)
            np_type = np.float16 if dtype == "f16" else np.float64 if dtype == "f64" else np.float32
            b = OpBuilder(graph, fq.name)
            stored, zero_point = integer_storage(b, integers, step, f"{fq.name}/quantized")
            real = b.Convert(stored, destination_type=dtype, foldable=False)
            if zero_point is not None:
                real = b.Subtract(real, zero_point.astype(np_type))
            weights = b.Multiply(real, step.astype(np_type), name=fq.name)
            out.get_connection().set_source(weights)
            for node in (reader, fq) if perm is not None else (fq,):
                graph.remove_node(node.id)


def integer_storage(b: OpBuilder, integers: np.ndarray, step: np.ndarray, name: str) -> tuple[Port, np.ndarray | None]:
    """(the integers as an i8 or u8 Const, None), or, when they fit neither type as they are (a
    grid not centred on 0), (i8 integers shifted to start at -128, minus the shift as a zero point
    of the step's shape: per channel where the step is). i8 weights with a zero point are what the
    CPU plugin computes exactly; u8 ones with a per-channel zero point it does not."""
    low, high = integers.min(), integers.max()
    if low >= -128 and high <= 127:
        return b.const(integers.astype(np.int8), name=name), None
    if low >= 0 and high <= 255:
        return b.const(integers.astype(np.uint8), name=name), None
    full = (1,) * (integers.ndim - step.ndim) + step.shape
    axes = tuple(d for d in range(integers.ndim) if full[d] == 1)
    shift = integers.min(axis=axes, keepdims=True) + 128
    return b.const((integers - shift).astype(np.int8), name=name), -shift


def _single(value) -> float | None:
    value = np.asarray(value)
    return float(value.reshape(-1)[0]) if value.size and np.all(value == value.reshape(-1)[0]) else None


class WidenFakeQuantizeLevels(Transform):
    """FakeQuantize of activations onto fewer than 255 levels (PyTorch's x86 QAT default quantizes
    activations to 0..127, "reduce_range") -> Clamp to its input range, then FakeQuantize onto
    256 levels of the same step: the same values (the first levels of the wider grid are the
    narrow grid's, and the clamp keeps the rest unused), in the 8-bit form the CPU's low-precision
    transformations execute in int8 (they leave other level counts in float)."""

    phase = "middle"

    def run_after(self):
        return [FakeQuantizedWeightsToIntegers]

    def find_and_replace_pattern(self, graph) -> None:
        for fq in graph.nodes_by_op("FakeQuantize"):
            levels = int(fq.levels)
            if not 2 < levels < 255 or fq.in_port(0).data.get_value() is not None:
                continue
            bounds = [_single(fq.in_value(i)) if fq.in_value(i) is not None else None for i in range(1, 5)]
            if any(v is None for v in bounds):
                continue
            in_low, in_high, out_low, out_high = bounds
            if not in_low < in_high:
                continue
            dtype = fq.in_port(0).data.get_dtype()
            np_type = np.float16 if dtype == "f16" else np.float64 if dtype == "f64" else np.float32
            wide_in = in_low + (in_high - in_low) / (levels - 1) * 255
            wide_out = out_low + (out_high - out_low) / (levels - 1) * 255
            b = OpBuilder(graph, fq.name)
            clamped = b.Clamp(fq.in_port(0).get_source(), min=in_low, max=in_high)
            clamped.connect(fq.in_port(0))
            b.const(np_type(wide_in)).connect(fq.in_port(2))
            b.const(np_type(wide_out)).connect(fq.in_port(4))
            fq["levels"] = 256
