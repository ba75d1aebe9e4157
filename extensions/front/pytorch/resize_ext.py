"""Extractor of the ATen resizes and paddings."""
from __future__ import annotations

from extensions.front.pytorch.resize import PADS, UPSAMPLES, AtenPad, AtenUpsample
from extensions.load.pytorch.arguments import PyTorchExtractor


class ResizeExtractor(PyTorchExtractor):
    """upsample_* and the paddings."""

    lowerings = {AtenUpsample: tuple(UPSAMPLES), AtenPad: tuple(PADS)}
