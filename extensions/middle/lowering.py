"""Base of the middle-phase lowerings: they run before constant folding, so constant subgraphs
they build are folded like the rest."""
from __future__ import annotations

from extensions.middle.constant_folding import ConstantFolding
from mo.errors import GraphError
from mo.pipeline.transform import ReplaceOp


class MiddleReplaceOp(ReplaceOp):
    """A ReplaceOp of the middle phase (shapes and types known) that runs before ConstantFolding."""

    abstract = True
    phase = "middle"

    def run_before(self):
        return [ConstantFolding]


def known_shape(node, port: int = 0) -> tuple:
    """The shape of input ``port`` of ``node``; a GraphError when even its rank is unknown."""
    shape = node.in_port(port).data.get_shape()
    if shape is None:
        raise GraphError(f"{node.get('fw_op') or node.op} '{node.name}' needs an input of known rank")
    return shape
