"""Extractors of the ATen reductions, cumsum and sorting."""
from __future__ import annotations

from extensions.front.pytorch import reductions as rd
from extensions.front.pytorch.elementwise import AtenBinary
from extensions.load.pytorch.arguments import PyTorchExtractor


class ReductionExtractor(PyTorchExtractor):
    """Reductions, statistics, cumsum and sorting."""

    lowerings = {rd.AtenReduce: tuple(rd.SIMPLE), rd.AtenStatistic: rd.STATISTICS,
                 rd.AtenCumSum: ("aten::cumsum",), rd.AtenSort: ("aten::topk", "aten::sort", "aten::argsort")}


class MaxMinExtractor(PyTorchExtractor):
    """max / min: of two tensors (elementwise), of all elements, or along a dim with indices."""

    op_types = ("aten::max", "aten::min", "aten::argmax", "aten::argmin")

    @classmethod
    def extract(cls, node):
        types = node.get("arg_types") or ()
        binary = node.fw_op in ("aten::max", "aten::min") and len(types) == 2 and types[1] == "Tensor"
        (AtenBinary if binary else rd.AtenMaxMin).update_node(node)
