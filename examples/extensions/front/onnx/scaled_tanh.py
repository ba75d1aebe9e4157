"""The custom ONNX op com.example::ScaledTanh (y = alpha * tanh(beta * x)): its extractor reads the
attributes, its translator builds the opset sub-graph."""
import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.types import np_dtype


class ScaledTanhExtractor(OnnxExtractor):
    """Reads ``alpha`` and ``beta`` (default 1.0)."""

    op_types = ("com.example::ScaledTanh",)

    @classmethod
    def extract(cls, node: Node) -> None:
        node.update({"alpha": float(cls.attr(node, "alpha", 1.0)), "beta": float(cls.attr(node, "beta", 1.0))})


@translator("onnx", "com.example::ScaledTanh")
def scaled_tanh(node: Node, b: OpBuilder) -> list[Port]:
    """Multiply(Tanh(Multiply(x, beta)), alpha), the constants in x's element type."""
    x = node.in_port(0).get_source()
    dtype = np_dtype(x.data.get_dtype())
    scaled = b.Multiply(x, np.array(node.beta, dtype))
    return [b.Multiply(b.Tanh(scaled), np.array(node.alpha, dtype))]
