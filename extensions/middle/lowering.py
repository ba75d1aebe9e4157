"""Base of the middle-phase lowerings: they run before constant folding, so constant subgraphs
they build are folded like the rest."""
from __future__ import annotations

import numpy as np

from extensions.middle.constant_folding import ConstantFolding
from mo.graph.builder import OpBuilder
from mo.graph.port import Port
from mo.pipeline.transform import ReplaceOp
from mo.utils.types import np_dtype


class MiddleReplaceOp(ReplaceOp):
    """A ReplaceOp of the middle phase (shapes and types known) that runs before ConstantFolding."""

    abstract = True
    phase = "middle"

    def run_before(self):
        return [ConstantFolding]


def input_rank(node, idx: int = 0) -> int:
    """The rank of input ``idx`` of ``node``; a lowering that needs it fails clearly without it."""
    rank = node.in_port(idx).data.get_rank()
    if rank is None:
        raise ValueError(f"{node.get('fw_op') or node.op} '{node.name}' needs the rank of its input {idx}, "
                         f"which is not known")
    return rank


def typed_const(b: OpBuilder, value, element_type: str) -> Port:
    """A Const of ``value`` with the element type ``element_type`` (which may be one numpy has no
    dtype for, such as bf16: the value is held in its container dtype)."""
    return b.const(np.asarray(value, np_dtype(element_type)), element_type=element_type)
