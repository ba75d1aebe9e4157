"""ConvertLike with a known target type becomes Convert."""
from __future__ import annotations

from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder


class ConvertLikeToConvert(MiddleReplaceOp):
    """ConvertLike(x, like) -> Convert(x) to the element type of ``like`` once it is known (x itself
    when it has that type already)."""

    op = "ConvertLike"

    def replace_op(self, graph, node):
        target = node.in_dtype(1)
        if target is None:
            return None
        if target == node.in_dtype(0):
            return [node.in_port(0).get_source()]
        return [OpBuilder(graph).Convert(node.in_port(0).get_source(), destination_type=target, name=node.name)]
