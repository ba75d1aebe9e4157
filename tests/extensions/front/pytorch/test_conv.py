"""Layer tests of the ATen convolution and pooling lowerings."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)


class Convs(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 6, 3, padding=1)
        self.c2 = nn.Conv2d(4, 6, 3, stride=2, padding=(1, 2), dilation=(1, 2))
        self.dw = nn.Conv2d(4, 8, 3, groups=4, padding="same", bias=False)
        self.valid = nn.Conv2d(4, 2, (2, 3), padding="valid")
        self.c3 = nn.Conv3d(4, 2, 2)
        self.t1 = nn.ConvTranspose1d(4, 3, 3, stride=2, padding=1, output_padding=1)
        self.t2 = nn.ConvTranspose2d(4, 4, 3, stride=2, groups=2)

    def forward(self, x):
        seq = x.flatten(2)
        return self.c1(seq), self.c2(x), self.dw(x), self.valid(x), self.c3(x.unsqueeze(2).expand(-1, -1, 3, -1, -1)), \
            self.t1(seq), self.t2(x), self.c1(seq[0])


class Pools(nn.Module):
    def forward(self, x):
        seq = x.flatten(2)
        values, indices = F.max_pool2d(x, 3, 2, 1, return_indices=True)
        return F.max_pool2d(x, 2), F.max_pool2d(x, 3, stride=2, ceil_mode=True), values, indices, \
            F.max_pool1d(seq, 4), F.avg_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), \
            F.avg_pool2d(x, 2, ceil_mode=True), F.avg_pool1d(seq, 3), F.adaptive_avg_pool2d(x, 1), \
            F.adaptive_avg_pool2d(x, (2, 3)), F.adaptive_max_pool2d(x, (3, 2)), F.adaptive_avg_pool1d(seq, 5), \
            F.max_pool2d(x[0], 2), F.adaptive_avg_pool2d(x, (None, 2)), F.avg_pool2d(x, 12, ceil_mode=True)


X = torch.randn(2, 4, 7, 9)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("module", [Convs(), Pools()], ids=["conv", "pool"])
def test_conv(module, path, tmp_path):
    check_module(module, (X,), tmp_path, path)


class DivisorOverride(nn.Module):
    """avg_pool with divisor_override (padding, ceil_mode's last windows), of 3-D too."""

    def forward(self, x):
        return F.avg_pool2d(x, 2, divisor_override=3), F.avg_pool2d(x, 3, 2, 1, True, False, 2), \
            F.avg_pool3d(x.unsqueeze(2).expand(-1, -1, 3, -1, -1), 2, 1, 1, True, True, 5)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_avg_pool_divisor_override_and_integers(dtype, path, tmp_path):
    """Integers stay integers, divided with truncation toward zero as PyTorch does."""
    x = X * 10 if dtype == torch.float32 else (X * 10).to(dtype)
    check_module(DivisorOverride(), (x,), tmp_path, path)
    check_module(AveragePools(), (x,), tmp_path, path)


class AveragePools(nn.Module):
    def forward(self, x):
        return F.avg_pool1d(x.flatten(2), 3), F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), \
            F.avg_pool2d(x, 2, 1, 1, ceil_mode=True), F.avg_pool1d(x[0], 6, 3, 2, True, True)


class Blocks(torch.nn.Module):
    """F.unfold (im2col) and F.fold (col2im): strides, dilations, padding, unbatched inputs."""

    def forward(self, x):
        odd = dict(dilation=(1, 2), padding=(1, 0), stride=(2, 1))
        blocks = x.flatten(1)[:, :32].reshape(2, 4, 8)
        return F.unfold(x, 2), F.unfold(x, (3, 2), **odd), F.unfold(x[0], 3, padding=1, stride=2), \
            F.fold(F.unfold(x, 2), (5, 6), 2), F.fold(F.unfold(x, (3, 2), **odd), (5, 6), (3, 2), **odd), \
            F.fold(blocks, (4, 8), 2, stride=2), F.fold(blocks[0], (4, 8), 2, stride=2)


class Unpool(torch.nn.Module):
    def forward(self, x):
        y, i = F.max_pool2d(x, 2, return_indices=True)
        y2, i2 = F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
        return F.max_unpool2d(y, i, 2, output_size=(4, 6)), \
            F.max_unpool2d(y2, i2, 3, stride=2, padding=1, output_size=(5, 6)), \
            F.max_unpool2d(y[0], i[0], 2, output_size=(5, 7)), nn.MaxUnpool2d(2)(y, i, output_size=(5, 6))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("module", [Blocks(), Unpool()], ids=["fold-unfold", "unpool"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_blocks_and_unpooling(module, dtype, path, tmp_path):
    check_module(module, (torch.randn(2, 3, 5, 6, dtype=dtype),), tmp_path, path)


class FractionalMaxPools(torch.nn.Module):
    """fractional_max_pool2d / 3d with their random samples given (deterministic), a NaN in a window."""

    def forward(self, x, u, x3, u3):
        return (*torch.ops.aten.fractional_max_pool2d(x, [2, 3], [5, 4], u),
                *torch.ops.aten.fractional_max_pool3d(x3, [2, 2, 3], [3, 4, 3], u3))


@pytest.mark.parametrize("path", ["export", "trace"])
def test_fractional_max_pool(path, tmp_path):
    x, x3 = torch.randn(2, 3, 17, 13), torch.randn(2, 3, 9, 11, 10)
    x[0, 0, 1, 1] = float("nan")
    check_module(FractionalMaxPools(), (x, torch.rand(2, 3, 2), x3, torch.rand(2, 3, 3)), tmp_path, path)
