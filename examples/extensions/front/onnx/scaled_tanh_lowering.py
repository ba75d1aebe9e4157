"""Lowers example::ScaledTanh to opset ops: Multiply(Tanh(Multiply(x, beta)), alpha)."""
import numpy as np

from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp


class ScaledTanhLowering(ReplaceOp):
    """One ScaledTanh node -> three opset ops."""

    op = "example::ScaledTanh"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        scaled = b.Multiply(x, np.array(node.beta, np.float32))
        return [b.Multiply(b.Tanh(scaled), np.array(node.alpha, np.float32), name=node.name)]
