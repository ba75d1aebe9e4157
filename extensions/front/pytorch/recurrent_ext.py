"""Extractor of the ATen recurrent layers."""
from __future__ import annotations

from extensions.front.pytorch.recurrent import RECURRENT, AtenRecurrent
from extensions.load.pytorch.arguments import PyTorchExtractor


class RecurrentExtractor(PyTorchExtractor):
    """LSTM, GRU and RNN layers."""

    lowerings = {AtenRecurrent: tuple(RECURRENT)}
