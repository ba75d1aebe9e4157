"""Layer tests of the ATen recurrent lowerings (LSTM, GRU, RNN)."""
import pytest
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 5, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(4, 3)
        self.rnn = nn.RNN(4, 3, nonlinearity="relu", bias=False, bidirectional=True)
        self.lstm_tanh = nn.LSTM(4, 6)
        self.rnn_tanh = nn.RNN(4, 3, num_layers=2)

    def forward(self, x, h0, c0):
        y, (h, c) = self.lstm(x)
        z, hz = self.gru(x.transpose(0, 1))
        r, hr = self.rnn(x)
        w, (hw, cw) = self.lstm_tanh(x, (h0, c0))
        t, ht = self.rnn_tanh(x)
        return y, h, c, z, hz, r, hr, w, hw, cw, t, ht


@pytest.mark.parametrize("path", PATHS)
def test_recurrent(path, tmp_path):
    inputs = (torch.randn(2, 7, 4), torch.randn(1, 7, 6), torch.randn(1, 7, 6))
    check_module(Recurrent(), inputs, tmp_path, path)


class Packed(nn.Module):
    """pack_padded_sequence around a recurrent layer and pad_packed_sequence after it (torch.export
    cannot capture them: the export path would fall back to tracing, so it is not tested)."""

    def __init__(self, layer, batch_first, bidirectional, layers, padding_value=0.0, total_length=None,
                 enforce_sorted=False):
        super().__init__()
        self.rnn = layer(4, 5, batch_first=batch_first, bidirectional=bidirectional, num_layers=layers)
        self.batch_first, self.padding_value, self.total_length = batch_first, padding_value, total_length
        self.enforce_sorted = enforce_sorted

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=self.batch_first, enforce_sorted=self.enforce_sorted)
        out, states = self.rnn(packed)
        y, out_lengths = pad_packed_sequence(out, batch_first=self.batch_first, padding_value=self.padding_value,
                                             total_length=self.total_length)
        return y, out_lengths, states


@pytest.mark.parametrize("path", ["trace", "ts_file"])
@pytest.mark.parametrize("module, lengths", [
    (Packed(nn.LSTM, True, False, 1), [5, 2, 4]), (Packed(nn.GRU, True, True, 2), [6, 1, 3]),
    (Packed(nn.LSTM, False, True, 2, padding_value=-1.0, total_length=7), [5, 2, 4]),
    (Packed(nn.RNN, True, False, 1, padding_value=0.5, total_length=6), [3, 3, 2]),
    (Packed(nn.LSTM, True, False, 1, enforce_sorted=True), [5, 4, 2])],
    ids=["lstm", "gru-bidirectional", "lstm-time-major-total-length", "rnn-padding-value", "sorted"])
def test_packed_sequences(module, lengths, path, tmp_path):
    """Each sequence runs for its own length (the longest may be shorter than the input); the
    outputs are padded with padding_value to total_length (or the longest length)."""
    x = torch.randn(3, 6, 4) if module.batch_first else torch.randn(6, 3, 4)
    check_module(module, (x, torch.tensor(lengths)), tmp_path, path)


@pytest.mark.parametrize("module, lengths", [
    (Packed(nn.LSTM, True, True, 2), [5, 2, 4]), (Packed(nn.GRU, False, False, 1, total_length=7), [6, 1, 3])],
    ids=["lstm-bidirectional", "gru-time-major"])
def test_packed_sequences_of_dynamic_shape(module, lengths, tmp_path):
    """With dynamic input shapes the layers step through time in a Loop (OpenVINO's CPU plugin
    ignores the sequence lengths of its sequence ops when a shape is dynamic)."""
    x = torch.randn(3, 6, 4) if module.batch_first else torch.randn(6, 3, 4)
    check_module(module, (x, torch.tensor(lengths)), tmp_path, "ts_file", input="x[?,?,4],lengths[?]")
    assert "Loop" in open(next(tmp_path.glob("*.xml"))).read()
