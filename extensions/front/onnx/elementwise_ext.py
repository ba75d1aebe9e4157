"""Extractors of ONNX operators that map one-to-one to an op without attributes to translate."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.elementwise import PRelu

# ONNX op type -> internal op; the attributes these ops have in ONNX need no translation.
ONE_TO_ONE = {
    "Abs": "Abs", "Acos": "Acos", "Acosh": "Acosh", "Asin": "Asin", "Asinh": "Asinh", "Atan": "Atan",
    "Atanh": "Atanh", "Ceil": "Ceiling", "Cos": "Cos", "Cosh": "Cosh", "Erf": "Erf", "Exp": "Exp",
    "Floor": "Floor", "Log": "Log", "Neg": "Negative", "Relu": "ReLU", "Sigmoid": "Sigmoid",
    "Sign": "Sign", "Sin": "Sin", "Sinh": "Sinh", "Sqrt": "Sqrt", "Tan": "Tan", "Tanh": "Tanh",
    "Softplus": "SoftPlus", "Softsign": "SoftSign", "Mish": "Mish", "HardSwish": "HSwish",
    "Not": "LogicalNot", "BitwiseNot": "BitwiseNot", "IsNaN": "IsNaN", "Identity": "Identity", "Round": "Round",
    "Sub": "Subtract", "Mul": "Multiply", "Div": "Divide", "Pow": "Power",
    "Equal": "Equal", "Less": "Less", "LessOrEqual": "LessEqual", "Greater": "Greater",
    "GreaterOrEqual": "GreaterEqual", "And": "LogicalAnd", "Or": "LogicalOr", "Xor": "LogicalXor",
    "BitwiseAnd": "BitwiseAnd", "BitwiseOr": "BitwiseOr", "BitwiseXor": "BitwiseXor",
    "Where": "Select", "Add": "Add",
    "MatMul": "MatMul", "MatMulInteger": "onnx::MatMulInteger", "Det": "onnx::Det",
}


class OneToOneExtractor(OnnxExtractor):
    """ONNX ops whose OpenVINO counterpart has the same inputs and no attributes to translate."""

    op_types = tuple(ONE_TO_ONE)

    @classmethod
    def extract(cls, node):
        registry = node.graph.registry
        registry.op(ONE_TO_ONE[node.fw_op]).update_node(node)


class PReluExtractor(OnnxExtractor):
    """PRelu: the slope broadcasts with numpy rules (``numpy_slope``)."""

    op_types = ("PRelu",)

    @classmethod
    def extract(cls, node):
        PRelu.update_node(node, {"numpy_slope": True})
