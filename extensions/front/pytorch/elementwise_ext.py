"""Extractors of the ATen elementwise operations."""
from __future__ import annotations

from extensions.front.pytorch.elementwise import (
    ARITHMETIC,
    BITWISE,
    COMPARISONS,
    COMPOSED,
    DIVISIONS,
    LOGICAL,
    PREDICATES,
    UNARY,
    AtenBinary,
    AtenClamp,
    AtenCompare,
    AtenDivide,
    AtenLogical,
    AtenUnary,
    AtenWhere,
)
from extensions.load.pytorch.arguments import PyTorchExtractor


class BinaryExtractor(PyTorchExtractor):
    op_types = tuple(k for k in ARITHMETIC if k not in ("aten::max", "aten::min"))
    op_class = AtenBinary


class DivideExtractor(PyTorchExtractor):
    op_types = DIVISIONS
    op_class = AtenDivide


class CompareExtractor(PyTorchExtractor):
    op_types = tuple(COMPARISONS)
    op_class = AtenCompare


class LogicalExtractor(PyTorchExtractor):
    op_types = tuple(LOGICAL) + tuple(BITWISE) + ("aten::logical_not", "aten::bitwise_not", "aten::__not__")
    op_class = AtenLogical


class UnaryExtractor(PyTorchExtractor):
    op_types = tuple(UNARY) + tuple(COMPOSED) + tuple(PREDICATES) + ("aten::round",)
    op_class = AtenUnary


class WhereExtractor(PyTorchExtractor):
    op_types = ("aten::where", "aten::masked_fill")
    op_class = AtenWhere


class ClampExtractor(PyTorchExtractor):
    op_types = ("aten::clamp", "aten::clip", "aten::clamp_min", "aten::clamp_max")
    op_class = AtenClamp
