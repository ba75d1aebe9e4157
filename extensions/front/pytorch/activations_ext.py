"""Extractor of the ATen activations and softmaxes."""
from __future__ import annotations

from extensions.front.pytorch.activations import PLAIN, SOFTMAXES, WITH_ARGS, AtenActivation, AtenSoftmax
from extensions.load.pytorch.arguments import PyTorchExtractor


class ActivationExtractor(PyTorchExtractor):
    """Activations and softmaxes."""

    lowerings = {AtenActivation: tuple(PLAIN) + WITH_ARGS, AtenSoftmax: SOFTMAXES}
