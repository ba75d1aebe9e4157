"""ONNX neural-network operators kept as extracted until a transform lowers them to opset ops.

``OnnxMiddleOp`` ones wait for the middle phase, because the lowering needs the input rank or
shape; each infers the exact output shapes, so the graph downstream of it is right before the
lowering. ``FrontOnlyOp`` ones are lowered in the front phase."""
from __future__ import annotations

from mo.ops.op import Op


class OnnxMiddleOp(Op):
    """Base: internal op (no IR type) whose outputs default to the shape of input 0."""

    abstract = True
    type = None
