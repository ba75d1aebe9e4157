"""Front lowering of ONNX SwiGLU."""
from __future__ import annotations

from mo.graph.builder import OpBuilder
from mo.graph.building import scalar_like
from mo.pipeline.transform import ReplaceOp


class SwiGLUToOpset(ReplaceOp):
    """SwiGLU(a, b) -> Swish(a, alpha) * b."""

    op = "onnx::SwiGLU"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        a = node.in_port(0).get_source()
        gate = b.Swish(a, scalar_like(b, node.alpha, a))
        return [b.Multiply(gate, node.in_port(1).get_source(), name=node.name)]
