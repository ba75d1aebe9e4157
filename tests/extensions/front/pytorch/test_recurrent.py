"""Layer tests of the ATen recurrent lowerings (LSTM, GRU, RNN)."""
import pytest
import torch
import torch.nn as nn

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
