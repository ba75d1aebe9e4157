"""TensorFlow elementwise operations with an opset counterpart: activations, math,
comparisons, logic, Round, Cast (extractors that set the opset op), and BiasAdd and Select (v1),
whose translators adapt the bias or condition to the rank of the data."""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.front.translator import translator
from mo.graph.building import input_rank
from mo.pipeline.extract import mark_framework_op

# TensorFlow op type -> opset op with the same inputs and no attributes to translate.
ONE_TO_ONE = {
    "Abs": "Abs", "Acos": "Acos", "Acosh": "Acosh", "Asin": "Asin", "Asinh": "Asinh", "Atan": "Atan",
    "Atanh": "Atanh", "Ceil": "Ceiling", "Cos": "Cos", "Cosh": "Cosh", "Erf": "Erf", "Exp": "Exp",
    "Floor": "Floor", "Log": "Log", "Neg": "Negative", "Relu": "ReLU", "Sigmoid": "Sigmoid", "Sign": "Sign",
    "Sin": "Sin", "Sinh": "Sinh", "Sqrt": "Sqrt", "Tan": "Tan", "Tanh": "Tanh", "Softplus": "SoftPlus",
    "Softsign": "SoftSign", "Elu": "Elu", "IsNan": "IsNaN", "IsInf": "IsInf", "IsFinite": "IsFinite",
    "LogicalNot": "LogicalNot", "Invert": "BitwiseNot",
    "Add": "Add", "AddV2": "Add", "Sub": "Subtract", "Mul": "Multiply", "RealDiv": "Divide", "Pow": "Power",
    "Maximum": "Maximum", "Minimum": "Minimum", "SquaredDifference": "SquaredDifference",
    "FloorMod": "FloorMod", "Mod": "Mod", "TruncateMod": "Mod",
    "Equal": "Equal", "NotEqual": "NotEqual", "Less": "Less", "LessEqual": "LessEqual", "Greater": "Greater",
    "GreaterEqual": "GreaterEqual", "LogicalAnd": "LogicalAnd", "LogicalOr": "LogicalOr",
    "BitwiseAnd": "BitwiseAnd", "BitwiseOr": "BitwiseOr", "BitwiseXor": "BitwiseXor", "SelectV2": "Select",
}


class OneToOneExtractor(TfExtractor):
    """Elementwise ops whose opset counterpart has the same inputs."""

    op_types = tuple(ONE_TO_ONE)

    @classmethod
    def becomes(cls, op_type: str) -> list[str]:
        return [ONE_TO_ONE[op_type]]

    @classmethod
    def extract(cls, node):
        node.graph.registry.op(ONE_TO_ONE[node.fw_op]).update_node(node)


class RoundExtractor(TfExtractor):
    """Round: half to even, as TensorFlow rounds."""

    op_types = ("Round", "Rint")

    @classmethod
    def extract(cls, node):
        node.graph.registry.op("Round").update_node(node, {"mode": "half_to_even"})


class CastExtractor(TfExtractor):
    op_types = ("Cast",)

    @classmethod
    def extract(cls, node):
        if cls.dtype(node, "DstT") in ("complex64", "complex128"):
            mark_framework_op(node, "tf", "CastToComplex")    # extensions/front/tf/complex.py
            return
        node.graph.registry.op("Convert").update_node(node, {"destination_type": cls.dtype(node, "DstT")})


@translator("tf", "BiasAdd", "BiasAddV1")
def bias_add(node, b):
    """An Add along the last axis (NHWC); for NCHW, the bias [C] unsqueezed to [C, 1, ...] so it
    is added along axis 1."""
    x, bias = node.in_port(0).get_source(), node.in_port(1).get_source()
    if TfExtractor.data_format(node).startswith("NC"):
        axes = np.arange(1, input_rank(node, 0) - 1, dtype=np.int64)
        if axes.size:
            bias = b.Unsqueeze(bias, axes)
    return [b.Add(x, bias)]


@translator("tf", "Select")
def select(node, b):
    """Select (v1): the condition has the shape of the values, or is a vector over their rows
    (unsqueezed so it broadcasts along axis 0)."""
    cond, x, y = (node.in_port(i).get_source() for i in range(3))
    c_rank, x_rank = input_rank(node, 0), input_rank(node, 1)
    if c_rank == 1 and x_rank > 1:
        cond = b.Unsqueeze(cond, np.arange(1, x_rank, dtype=np.int64))
    return [b.Select(cond, x, y)]
