"""Extractor of the ATen indexing operations."""
from __future__ import annotations

from extensions.front.pytorch import indexing as ix
from extensions.load.pytorch.arguments import PyTorchExtractor


class IndexingExtractor(PyTorchExtractor):
    """Slicing, advanced indexing, gathers, scatters, one_hot, nonzero."""

    lowerings = {
        ix.AtenSlice: ("aten::slice", "aten::select"),
        ix.AtenIndex: ("aten::index",),
        ix.AtenIndexPut: ("aten::index_put",),
        ix.AtenGather: ("aten::gather", "aten::index_select", "aten::embedding"),
        ix.AtenScatter: ("aten::scatter", "aten::scatter_add", "aten::scatter_reduce"),
        ix.AtenSliceScatter: ("aten::slice_scatter", "aten::select_scatter"),
        ix.AtenOneHot: ("aten::one_hot",),
        ix.AtenNonZero: ("aten::nonzero",),
    }
