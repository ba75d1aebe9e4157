"""Layer tests of the ATen floating-point helpers (extensions/front/pytorch/numeric.py) and of
the ops OpenVINO's own PyTorch frontend leaves out (hypot, nan_to_num, isin, logit ...)."""
import pytest
import torch

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)


class FloatingPoint(torch.nn.Module):
    def forward(self, x, y, i):
        m, e = torch.frexp(x)
        return torch.hypot(x, y), torch.copysign(x, y), torch.signbit(y), torch.heaviside(x, y), \
            torch.ldexp(x, i), m, e, torch.nan_to_num(x), torch.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0), \
            torch.logit(torch.sigmoid(y)), torch.logit(x, eps=0.1), torch.isneginf(x), torch.isposinf(x), \
            torch.isreal(x), torch.isin(i, torch.tensor([0, 2, 5])), torch.isin(y, y[:3], invert=True), \
            torch.signbit(i)


@pytest.mark.parametrize("path", PATHS)
def test_floating_point_helpers(path, tmp_path):
    x = torch.tensor([0.0, -0.0, 1.5, -3.25, float("inf"), -float("inf"), float("nan"), 1e-3, 2.0 ** 20, 0.75])
    y = torch.tensor([1.0, -0.0, -2.0, 4.0, 0.5, -1.0, 2.0, -1e-3, 3.0, 0.0])
    check_module(FloatingPoint(), (x, y, torch.arange(-3, 7)), tmp_path, path)


class NextAfter(torch.nn.Module):
    def forward(self, x, y):
        return torch.nextafter(x, y)


@pytest.mark.parametrize("path", PATHS)
def test_nextafter(path, tmp_path):
    """Up and down from powers of two, other values, 0, the extremes and infinities, x == y, NaN;
    compared exactly (one unit in the last place is within any tolerance)."""
    big = torch.finfo(torch.float32).max
    x = torch.tensor([1.0, 1.0, -1.0, -1.0, 3.7, -3.7, 1e-3, 0.0, 0.0, big, big, float("inf"), -float("inf"),
                      2.5, float("nan"), 1.0, 2.0 ** -126, 6e4])
    y = torch.tensor([2.0, 0.0, -2.0, 0.0, -5.0, 5.0, 1.0, 1.0, -1.0, float("inf"), 0.0, 0.0, 0.0,
                      2.5, 1.0, float("nan"), 0.0, 7e4])
    check_module(NextAfter(), (x, y), tmp_path, path, rtol=0, atol=0)
