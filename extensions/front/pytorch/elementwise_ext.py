"""Extractor of the ATen elementwise operations."""
from __future__ import annotations

from extensions.front.pytorch import elementwise as ew
from extensions.load.pytorch.arguments import PyTorchExtractor


class ElementwiseExtractor(PyTorchExtractor):
    """Arithmetic, comparisons, logical ops, unary math, where, clamp."""

    lowerings = {
        ew.AtenBinary: tuple(k for k in ew.ARITHMETIC if k not in ("aten::max", "aten::min")),
        ew.AtenDivide: ew.DIVISIONS,
        ew.AtenTernary: ew.TERNARY,
        ew.AtenCompare: tuple(ew.COMPARISONS),
        ew.AtenLogical: tuple(ew.LOGICAL) + tuple(ew.BITWISE) + ("aten::logical_not", "aten::bitwise_not",
                                                                 "aten::__not__"),
        ew.AtenUnary: tuple(ew.UNARY) + tuple(ew.COMPOSED) + tuple(ew.PREDICATES) + ("aten::round",),
        ew.AtenWhere: ("aten::where", "aten::masked_fill"),
        ew.AtenClamp: ("aten::clamp", "aten::clip", "aten::clamp_min", "aten::clamp_max"),
    }
