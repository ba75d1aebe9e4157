"""Extractor of the ATen convolutions and poolings."""
from __future__ import annotations

from extensions.front.pytorch import conv
from extensions.load.pytorch.arguments import PyTorchExtractor


class ConvolutionExtractor(PyTorchExtractor):
    """Convolutions, poolings and adaptive poolings."""

    lowerings = {conv.AtenConvolution: conv.CONVOLUTIONS, conv.AtenPool: conv.POOLS,
                 conv.AtenAdaptivePool: conv.ADAPTIVE_POOLS}
