"""Lowering of ONNX MaxPool / AveragePool to opset MaxPool / AvgPool."""
from __future__ import annotations

from extensions.front.onnx.conv_to_opset import window
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp


class PoolToOpset(ReplaceOp):
    """ONNX MaxPool / AveragePool -> MaxPool / AvgPool (global pools are lowered in middle)."""

    op = "onnx::Pool"

    def replace_op(self, graph, node):
        if node.get("global_pool"):
            return None
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        attrs = {**window(node), "kernel": node.kernel,
                 "rounding_type": "ceil_torch" if node.ceil_mode else "floor"}
        if node.pool == "max":
            values, indices = b.MaxPool(x, name=node.name, **attrs)
            return [values, indices]
        return [b.AvgPool(x, name=node.name, **attrs, **{"exclude-pad": node.exclude_pad})]
