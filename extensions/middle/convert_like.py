"""ConvertLike with a known target type becomes Convert."""
from __future__ import annotations

from extensions.middle.constant_folding import ConstantFolding
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp


class ConvertLikeToConvert(ReplaceOp):
    """ConvertLike(x, like) -> Convert(x) to the element type of ``like`` once it is known (x itself
    when it has that type already)."""

    phase = "middle"
    op = "ConvertLike"

    def run_before(self):
        return [ConstantFolding]     # the constant pieces it builds get folded

    def replace_op(self, graph, node):
        target = node.in_dtype(1)
        if target is None:
            return None
        if target == node.in_dtype(0):
            return [node.in_port(0).get_source()]
        return [OpBuilder(graph).Convert(node.in_port(0).get_source(), destination_type=target, name=node.name)]
