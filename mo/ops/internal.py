"""Base class of framework-level ops that front transforms replace before inference."""
from __future__ import annotations

from mo.ops.op import Op


class FrontOnlyOp(Op):
    """An op that exists only between extraction and the end of the front phase: a front
    transform replaces every node of it with opset ops. It has no IR type and reaching
    inference with one is a converter bug."""

    abstract = True
    type = None

    @classmethod
    def infer(cls, node):
        raise RuntimeError(f"op {cls.op} should have been replaced in the front phase")
