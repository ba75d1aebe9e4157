"""Layer tests of the ATen normalization lowerings."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)


def _randomized(bn):
    bn.running_mean.uniform_(-1, 1)
    bn.running_var.uniform_(0.5, 2)
    bn.weight.data.uniform_(0.5, 1.5)
    bn.bias.data.uniform_(-0.5, 0.5)
    return bn


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = _randomized(nn.BatchNorm2d(4))
        self.bn1 = _randomized(nn.BatchNorm1d(4))
        self.bn_plain = nn.BatchNorm2d(4, affine=False)
        self.ln = nn.LayerNorm([7, 6])
        self.ln_plain = nn.LayerNorm(6, elementwise_affine=False)
        self.gn = nn.GroupNorm(2, 4)
        self.inorm = nn.InstanceNorm2d(4, affine=True)
        self.rms = nn.RMSNorm(6, eps=1e-6)

    def forward(self, x):
        return self.bn(x), self.bn1(x.flatten(2)), self.bn_plain(x), self.ln(x), self.ln_plain(x), self.gn(x), \
            self.inorm(x), self.rms(x), F.normalize(x, dim=1), F.layer_norm(x, (6,), eps=1e-3)


@pytest.mark.parametrize("path", PATHS)
def test_normalization(path, tmp_path):
    check_module(Norms(), (torch.randn(2, 4, 7, 6) * 2 + 1,), tmp_path, path)


class WeightNormConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.utils.parametrizations.weight_norm(nn.Conv1d(4, 6, 3, padding=1), dim=2)
        self.legacy = nn.utils.weight_norm(nn.Linear(4, 3))

    def forward(self, x):
        return self.conv(x), self.legacy(x.transpose(1, 2))


@pytest.mark.parametrize("path", PATHS)
def test_weight_norm(path, tmp_path):
    check_module(WeightNormConv(), (torch.randn(2, 4, 9),), tmp_path, path)
