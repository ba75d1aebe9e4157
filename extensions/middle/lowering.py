"""Base of the middle-phase lowerings: they run before constant folding, so constant subgraphs
they build are folded like the rest."""
from __future__ import annotations

from extensions.middle.constant_folding import ConstantFolding
from mo.pipeline.transform import ReplaceOp


class MiddleReplaceOp(ReplaceOp):
    """A ReplaceOp of the middle phase (shapes and types known) that runs before ConstantFolding."""

    abstract = True
    phase = "middle"

    def run_before(self):
        return [ConstantFolding]
