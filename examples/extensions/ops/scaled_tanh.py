"""Internal op of the example: com.example::ScaledTanh, lowered in front (no IR type)."""
from mo.ops.internal import FrontOnlyOp


class ScaledTanh(FrontOnlyOp):
    """y = alpha * tanh(beta * x)."""

    op = "example::ScaledTanh"
