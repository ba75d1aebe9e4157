"""TensorFlow elementwise ops without an opset counterpart, built from opset ops (constants in
the op's element type ``dtype``)."""
from __future__ import annotations

from functools import reduce

import numpy as np

from extensions.front.tf.lowering import TfLowering
from mo.graph.builder import OpBuilder
from mo.utils.types import is_int, np_dtype

SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805


def _divide(b, node, x, y, name):
    """TensorFlow Div / TruncateDiv: integer division truncates."""
    return b.Divide(x, y, m_pythondiv=False, name=name)


def _floor_divide(b, node, x, y, name):
    """Integers: (x - floormod(x, y)) / y, an exact division (the runtime's Python-style
    Divide rounds some negative quotients towards zero)."""
    if is_int(node.dtype):
        return b.Divide(b.Subtract(x, b.FloorMod(x, y)), y, name=name)
    return b.Floor(b.Divide(x, y), name=name)


def _unless_zero(b, node, test, value, name):
    """0 where ``test`` is 0, else ``value``."""
    zero = np.array(0, np_dtype(node.dtype))
    return b.Select(b.Equal(test, zero), zero, value, name=name)


BUILDERS = {
    "Rsqrt": lambda b, n, c, x, name: b.Divide(c(1), b.Sqrt(x[0]), name=name),
    "Reciprocal": lambda b, n, c, x, name: b.Divide(c(1), x[0], name=name),
    "Inv": lambda b, n, c, x, name: b.Divide(c(1), x[0], name=name),
    "Square": lambda b, n, c, x, name: b.Multiply(x[0], x[0], name=name),
    "Log1p": lambda b, n, c, x, name: b.Log(b.Add(x[0], c(1)), name=name),
    "Expm1": lambda b, n, c, x, name: b.Subtract(b.Exp(x[0]), c(1), name=name),
    "Erfc": lambda b, n, c, x, name: b.Subtract(c(1), b.Erf(x[0]), name=name),
    "Selu": lambda b, n, c, x, name: b.Selu(x[0], c(SELU_ALPHA), c(SELU_SCALE), name=name),
    "LeakyRelu": lambda b, n, c, x, name: b.PRelu(x[0], c([n.alpha]), name=name),
    "Relu6": lambda b, n, c, x, name: b.Clamp(x[0], min=0.0, max=6.0, name=name),
    "Div": lambda b, n, c, x, name: _divide(b, n, x[0], x[1], name),
    "TruncateDiv": lambda b, n, c, x, name: _divide(b, n, x[0], x[1], name),
    "FloorDiv": lambda b, n, c, x, name: _floor_divide(b, n, x[0], x[1], name),
    "DivNoNan": lambda b, n, c, x, name: _unless_zero(b, n, x[1], b.Divide(x[0], x[1]), name),
    "MulNoNan": lambda b, n, c, x, name: _unless_zero(b, n, x[1], b.Multiply(x[0], x[1]), name),
    "Xdivy": lambda b, n, c, x, name: _unless_zero(b, n, x[0], b.Divide(x[0], x[1]), name),
    "Xlogy": lambda b, n, c, x, name: _unless_zero(b, n, x[0], b.Multiply(x[0], b.Log(x[1])), name),
    "AddN": lambda b, n, c, x, name: reduce(lambda acc, t: b.Add(acc, t), x[1:], x[0]) if len(x) > 1 else x[0],
    "ClipByValue": lambda b, n, c, x, name: b.Minimum(b.Maximum(x[0], x[1]), x[2], name=name),
    "ZerosLike": lambda b, n, c, x, name: b.Broadcast(c(0), b.ShapeOf(x[0]), mode="numpy", name=name),
    "OnesLike": lambda b, n, c, x, name: b.Broadcast(c(1), b.ShapeOf(x[0]), mode="numpy", name=name),
}


class TfMathToOpset(TfLowering):
    """tf::Math -> the opset ops its TensorFlow op type (``fw_op``) stands for."""

    op = "tf::Math"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        inputs = [node.in_port(i).get_source() for i in sorted(node.in_ports())]
        dtype = np_dtype(node.dtype) if node.dtype != "string" else np.float32

        def const(value):
            return b.const(np.array(value, dtype))
        return [BUILDERS[node.fw_op](b, node, const, inputs, node.name)]
