"""Extractors of the TensorFlow elementwise operations: activations, math, comparisons, logic,
Cast and BiasAdd."""
from __future__ import annotations

from extensions.load.tf.attributes import TfExtractor
from extensions.ops.tf_internal import TfBiasAddNCHW, TfMath, TfSelect

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

# TensorFlow elementwise ops built from several opset ops (extensions/front/tf/math_to_opset.py).
COMPOSITE = ("Rsqrt", "Reciprocal", "Inv", "Square", "Log1p", "Expm1", "Erfc", "Selu", "LeakyRelu", "DivNoNan",
             "FloorDiv", "Div", "TruncateDiv", "AddN", "ClipByValue", "ZerosLike", "OnesLike", "Relu6",
             "Xlogy", "Xdivy", "MulNoNan")


class OneToOneExtractor(TfExtractor):
    """Elementwise ops whose opset counterpart has the same inputs."""

    op_types = tuple(ONE_TO_ONE)

    @classmethod
    def extract(cls, node):
        node.graph.registry.op(ONE_TO_ONE[node.fw_op]).update_node(node)


class CompositeExtractor(TfExtractor):
    """Elementwise ops lowered to several opset ops; ``dtype`` types their constants."""

    op_types = COMPOSITE

    @classmethod
    def extract(cls, node):
        TfMath.update_node(node, {"dtype": cls.dtype(node) or "f32",
                                  "alpha": cls.attr(node, "alpha", 0.2)})


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
        node.graph.registry.op("Convert").update_node(node, {"destination_type": cls.dtype(node, "DstT")})


class BiasAddExtractor(TfExtractor):
    """BiasAdd: an Add along the last axis (NHWC), or along axis 1 for NCHW."""

    op_types = ("BiasAdd", "BiasAddV1")

    @classmethod
    def extract(cls, node):
        if cls.data_format(node).startswith("NC"):
            TfBiasAddNCHW.update_node(node)
        else:
            node.graph.registry.op("Add").update_node(node)


class SelectExtractor(TfExtractor):
    """Select (v1): the condition is either of the shape of the values or a vector over rows."""

    op_types = ("Select",)

    @classmethod
    def extract(cls, node):
        TfSelect.update_node(node)
