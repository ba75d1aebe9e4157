"""Lowering of ONNX BitCast. The opset has no bit reinterpretation; between integer (or boolean)
types of one width it is a Convert, which wraps around like two's complement. Float <-> integer
reinterpretation is refused."""
from __future__ import annotations

from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder
from mo.utils.types import bit_width, is_int


class BitCastToConvert(MiddleReplaceOp):
    op = "onnx::BitCast"

    def replace_op(self, graph, node):
        source, target = node.in_dtype(0), node.destination_type
        if source == target:
            return [node.in_port(0).get_source()]
        integral = all(is_int(t) or t == "boolean" for t in (source, target))
        if not integral or bit_width(source) != bit_width(target):
            raise ValueError(f"BitCast '{node.name}' from {source} to {target}: OpenVINO has no bit "
                             f"reinterpretation between these types")
        return [OpBuilder(graph).Convert(node.in_port(0).get_source(), destination_type=target, name=node.name)]
