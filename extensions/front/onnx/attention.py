"""Front lowering of ONNX SwiGLU."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp


class SwiGLUToOpset(ReplaceOp):
    """SwiGLU(a, b) -> Swish(a, alpha) * b."""

    op = "onnx::SwiGLU"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        a = node.in_port(0).get_source()
        gate = b.Swish(a, b.ConvertLike(np.float32(node.alpha), a))
        return [b.Multiply(gate, node.in_port(1).get_source(), name=node.name)]
