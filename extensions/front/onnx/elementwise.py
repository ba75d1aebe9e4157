"""ONNX elementwise operators: those that map one-to-one to an opset op (extractors), and the
translators of the ones whose meaning needs a few opset ops (variadic Max/Min/Sum/Mean, Pow with
mixed types, BitShift out of range, Reciprocal, ai.onnx.ml Binarizer)."""
from __future__ import annotations

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.elementwise import FloorMod, IsInf, Mod
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, input_sources, scalar_like
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.types import bit_width, is_float, np_dtype

# ONNX op type -> opset op; the attributes these ops have in ONNX need no translation.
ONE_TO_ONE = {
    "Abs": "Abs", "Acos": "Acos", "Acosh": "Acosh", "Asin": "Asin", "Asinh": "Asinh", "Atan": "Atan",
    "Atanh": "Atanh", "Ceil": "Ceiling", "Cos": "Cos", "Cosh": "Cosh", "Erf": "Erf", "Exp": "Exp",
    "Floor": "Floor", "Log": "Log", "Neg": "Negative", "Relu": "ReLU", "Sigmoid": "Sigmoid",
    "Sign": "Sign", "Sin": "Sin", "Sinh": "Sinh", "Sqrt": "Sqrt", "Tan": "Tan", "Tanh": "Tanh",
    "Softplus": "SoftPlus", "Softsign": "SoftSign", "Mish": "Mish", "HardSwish": "HSwish",
    "Not": "LogicalNot", "BitwiseNot": "BitwiseNot", "IsNaN": "IsNaN", "Identity": "Identity", "Round": "Round",
    "Sub": "Subtract", "Mul": "Multiply", "Div": "Divide",
    "Equal": "Equal", "Less": "Less", "LessOrEqual": "LessEqual", "Greater": "Greater",
    "GreaterOrEqual": "GreaterEqual", "And": "LogicalAnd", "Or": "LogicalOr", "Xor": "LogicalXor",
    "BitwiseAnd": "BitwiseAnd", "BitwiseOr": "BitwiseOr", "BitwiseXor": "BitwiseXor",
    "Where": "Select", "Add": "Add", "MatMul": "MatMul",
}


class OneToOneExtractor(OnnxExtractor):
    """ONNX ops whose OpenVINO counterpart has the same inputs and no attributes to translate."""

    op_types = tuple(ONE_TO_ONE)

    @classmethod
    def becomes(cls, op_type: str) -> list[str]:
        return [ONE_TO_ONE[op_type]]

    @classmethod
    def extract(cls, node):
        node.graph.registry.op(ONE_TO_ONE[node.fw_op]).update_node(node)


class IsInfExtractor(OnnxExtractor):
    op_types = ("IsInf",)

    @classmethod
    def extract(cls, node):
        IsInf.update_node(node, {"detect_negative": bool(cls.attr(node, "detect_negative", 1)),
                                 "detect_positive": bool(cls.attr(node, "detect_positive", 1))})


class ModExtractor(OnnxExtractor):
    """Mod: fmod=1 is C fmod (sign of the dividend, Mod); fmod=0 the sign of the divisor (FloorMod).
    Floats with an infinite operand are set right by ``extensions/middle/elementwise_edges.py``."""

    op_types = ("Mod",)

    @classmethod
    def extract(cls, node):
        (Mod if int(cls.attr(node, "fmod", 0)) else FloorMod).update_node(node)


# Max/Min/Sum -> the binary opset op they repeat.
_VARIADIC = {"Max": "Maximum", "Min": "Minimum", "Sum": "Add"}


def _fold(b: OpBuilder, inputs: list[Port], op: str) -> Port:
    """The inputs combined pairwise with ``op``, broadcasting; one input is an Identity of it."""
    if len(inputs) == 1:
        return b.Identity(inputs[0])
    result = inputs[0]
    for other in inputs[1:]:
        result = b.op(op, result, other)
    return result


@translator("onnx", "Max", "Min", "Sum")
def variadic(node: Node, b: OpBuilder) -> list[Port]:
    """Max/Min/Sum of any number of inputs: Maximum/Minimum/Add of each next input."""
    return [_fold(b, input_sources(node), _VARIADIC[node.fw_op])]


@translator("onnx", "Mean")
def mean(node: Node, b: OpBuilder) -> list[Port]:
    """The sum of the inputs divided by their count."""
    inputs = input_sources(node)
    total = _fold(b, inputs, "Add")
    if len(inputs) == 1:
        return [total]
    return [b.Divide(total, scalar_like(b, float(len(inputs)), inputs[0]))]


@translator("onnx", "Pow")
def power(node: Node, b: OpBuilder) -> list[Port]:
    """Power; ONNX lets the exponent's type differ from the base's (the output has the base's
    type): an integer base with a float exponent is raised in the exponent's type and converted
    back, otherwise the exponent is converted to the base's type."""
    x, y = node.in_port(0).get_source(), node.in_port(1).get_source()
    tx, ty = x.data.get_dtype(), y.data.get_dtype()
    if tx == ty:
        return [b.Power(x, y)]
    if is_float(tx) or not is_float(ty):
        return [b.Power(x, convert(b, y, tx))]
    return [b.Convert(b.Power(b.Convert(x, destination_type=ty), y), destination_type=tx)]


@translator("onnx", "BitShift")
def bit_shift(node: Node, b: OpBuilder) -> list[Port]:
    """BitwiseLeftShift/RightShift (``direction``). A shift by a negative amount or by the bit
    width or more gives 0 (a right shift of a negative signed value: -1), which the opset ops
    leave undefined."""
    x, amount = node.in_port(0).get_source(), node.in_port(1).get_source()
    left = OnnxExtractor.attr(node, "direction") == "LEFT"
    shifted = b.BitwiseLeftShift(x, amount) if left else b.BitwiseRightShift(x, amount)
    dtype = np_dtype(x.data.get_dtype())
    zero = np.array(0, dtype)
    valid = b.LogicalAnd(b.GreaterEqual(amount, zero), b.Less(amount, np.array(bit_width(x.data.get_dtype()), dtype)))
    fill = zero
    if not left and np.issubdtype(dtype, np.signedinteger):
        fill = b.Select(b.Less(x, zero), np.array(-1, dtype), zero)
    return [b.Select(valid, shifted, fill)]


@translator("onnx", "Reciprocal")
def reciprocal(node: Node, b: OpBuilder) -> list[Port]:
    x = node.in_port(0).get_source()
    return [b.Divide(scalar_like(b, 1.0, x), x)]


@translator("onnx", "ai.onnx.ml::Binarizer")
def binarizer(node: Node, b: OpBuilder) -> list[Port]:
    """1 where x > ``threshold``, else 0, in x's type."""
    x = node.in_port(0).get_source()
    threshold = float(OnnxExtractor.attr(node, "threshold", 0.0))
    return [b.Convert(b.Greater(x, scalar_like(b, threshold, x)), destination_type=x.data.get_dtype())]
