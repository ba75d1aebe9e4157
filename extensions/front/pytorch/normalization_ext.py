"""Extractor of the ATen normalizations."""
from __future__ import annotations

from extensions.front.pytorch.normalization import (
    BATCH_NORMS,
    OTHER_NORMS,
    WEIGHT_NORMS,
    AtenBatchNorm,
    AtenNorm,
    AtenWeightNorm,
)
from extensions.load.pytorch.arguments import PyTorchExtractor


class NormalizationExtractor(PyTorchExtractor):
    """Batch, layer, group, instance, RMS and weight norms."""

    lowerings = {AtenBatchNorm: BATCH_NORMS, AtenNorm: OTHER_NORMS, AtenWeightNorm: WEIGHT_NORMS}
