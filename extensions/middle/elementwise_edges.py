"""Elementwise edge cases the opset ops leave undefined or compute differently.

* ONNX BitShift by a negative amount or by the bit width or more gives 0 (right shift of a
  negative signed value: -1); BitwiseLeftShift/RightShift leave it undefined.
* Mod and FloorMod of floats: the runtime gives NaN for an infinite divisor."""
from __future__ import annotations

import numpy as np

from extensions.middle.constant_folding import ConstantFolding
from mo.graph.builder import OpBuilder
from mo.graph.building import typed_const
from mo.pipeline.transform import Transform
from mo.utils.types import bit_width, is_float, np_dtype


def wrap_output(node, build) -> None:
    """Feed every consumer of ``node``'s output 0 from ``build(output port)`` instead."""
    connection = node.out_port(0).get_connection()
    connection.set_source(build(node.out_port(0)))


class _EdgeTransform(Transform):
    abstract = True
    phase = "middle"

    def run_before(self):
        return [ConstantFolding]


class BitShiftOutOfRange(_EdgeTransform):
    """Shifts of ONNX BitShift (``onnx_bitshift``) outside [0, bit width) give 0 (or -1)."""

    def find_and_replace_pattern(self, graph) -> None:
        for op in ("BitwiseLeftShift", "BitwiseRightShift"):
            for node in graph.nodes_by_op(op):
                if node.get("onnx_bitshift"):
                    node["onnx_bitshift"] = False
                    wrap_output(node, lambda out, n=node: self.bounded(n, out))

    @staticmethod
    def bounded(node, shifted):
        b = OpBuilder(node.graph, node.name)
        x = node.in_port(0).get_source()
        amount = node.in_port(1).get_source()
        dtype = np_dtype(x.data.get_dtype())
        zero = np.array(0, dtype)
        valid = b.LogicalAnd(b.GreaterEqual(amount, np.array(0, dtype)),
                             b.Less(amount, np.array(bit_width(x.data.get_dtype()), dtype)))
        fill = zero
        if node.op == "BitwiseRightShift" and np.issubdtype(dtype, np.signedinteger):
            fill = b.Select(b.Less(x, zero), np.array(-1, dtype), zero)
        return b.Select(valid, shifted, fill)


class FloatRemainders(_EdgeTransform):
    """Mod and FloorMod of floats, right for infinite operands:
    fmod = x where y is infinite and x finite, else Mod(x, y) (the runtime gives NaN there);
    floor remainder = fmod + y where fmod != 0 and sign(fmod) != sign(y)."""

    def find_and_replace_pattern(self, graph) -> None:
        for node in graph.nodes_by_op("Mod") + graph.nodes_by_op("FloorMod"):
            dtype = node.in_dtype(0)
            if not is_float(dtype) or node.get("inf_safe"):
                continue
            b = OpBuilder(graph, node.name)
            x, y = node.in_port(0).get_source(), node.in_port(1).get_source()
            r = b.Select(b.LogicalAnd(b.IsInf(y), b.IsFinite(x)), x, b.Mod(x, y, inf_safe=True))
            if node.op == "FloorMod":
                zero = typed_const(b, 0, dtype)
                wrong_sign = b.LogicalAnd(b.NotEqual(r, zero), b.NotEqual(b.Less(r, zero), b.Less(y, zero)))
                r = b.Add(r, b.Select(wrong_sign, y, zero))
            node.out_port(0).get_connection().set_source(r)
            r.node["name"] = node.name
            graph.remove_node(node.id)


class PowerMixedTypes(_EdgeTransform):
    """Power(x, y) with element types that differ (ONNX Pow allows it; the output has x's type):
    an integer base with a float exponent is raised in the exponent's type and converted back,
    otherwise the exponent is converted to the base's type."""

    def find_and_replace_pattern(self, graph) -> None:
        for node in graph.nodes_by_op("Power"):
            tx, ty = node.in_dtype(0), node.in_dtype(1)
            if tx is None or ty is None or tx == ty:
                continue
            b = OpBuilder(graph, node.name)
            x, y = node.in_port(0).get_source(), node.in_port(1).get_source()
            if is_float(tx) or not is_float(ty):
                b.Convert(y, destination_type=tx).connect(node.in_port(1))
                continue
            result = b.Convert(b.Power(b.Convert(x, destination_type=ty), y), destination_type=tx)
            node.out_port(0).get_connection().set_source(result)
            result.node["name"] = node.name
            graph.remove_node(node.id)


class PReluNumpySlope(_EdgeTransform):
    """ONNX PRelu (``numpy_slope``) broadcasts the slope with numpy rules; PRelu-1 reads a 1-D slope as per-channel
    when its length is that of dim 1. A slope that fits both dim 1 and the last dim (or dim 1 is
    dynamic) becomes [1, n] for data of rank > 2; one that only fits dim 1 stays per-channel, as
    old exporters meant it."""

    def find_and_replace_pattern(self, graph) -> None:
        for node in graph.nodes_by_op("PRelu"):
            x, slope = node.in_shape(0), node.in_shape(1)
            if not node.get("numpy_slope") or x is None or slope is None or len(slope) != 1 or len(x) <= 2:
                continue
            if slope[0] not in (1, -1) and slope[0] == x[-1] and x[1] in (slope[0], -1):
                b = OpBuilder(graph, node.name)
                b.Unsqueeze(node.in_port(1).get_source(), np.int64(0)).connect(node.in_port(1))
