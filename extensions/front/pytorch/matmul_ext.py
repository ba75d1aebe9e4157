"""Extractor of the ATen matrix products and attention."""
from __future__ import annotations

from extensions.front.pytorch.matmul import PRODUCTS, AtenAttention, AtenEinsum, AtenLinear
from extensions.load.pytorch.arguments import PyTorchExtractor


class MatMulExtractor(PyTorchExtractor):
    """Matrix products, einsum and attention."""

    lowerings = {AtenLinear: ("aten::linear", "aten::addmm", "aten::baddbmm") + PRODUCTS,
                 AtenEinsum: ("aten::einsum",), AtenAttention: ("aten::scaled_dot_product_attention",)}
