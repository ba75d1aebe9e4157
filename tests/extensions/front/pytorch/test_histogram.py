"""Layer tests of the ATen counting lowerings: bincount, histogram, histogramdd."""
import pytest
import torch

from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import PATHS, check_module, convert_torch

torch.manual_seed(0)


class Bincount(torch.nn.Module):
    def forward(self, x, w):
        return torch.bincount(x), torch.bincount(x, weights=w, minlength=9), torch.bincount(x, weights=w.double())


class Histograms(torch.nn.Module):
    def forward(self, x, w):
        h, e = torch.histogram(x, bins=5, range=(-1.0, 2.0), weight=w)
        hd, ed = torch.histogram(x, bins=4, density=True)
        h2, e2 = torch.histogramdd(x.reshape(-1, 2), bins=[3, 2], range=[-1.0, 1.0, 0.0, 2.0])
        return h, e, hd, ed, h2, *e2


@pytest.mark.parametrize("path", PATHS)
def test_bincount(path, tmp_path):
    """The length follows the largest value at run time (minlength at least)."""
    x, w = torch.tensor([0, 3, 3, 1, 5]), torch.rand(5)
    xml = convert_torch(Bincount(), (x, w), str(tmp_path), path)
    for values in (x, torch.tensor([12, 0, 2, 2, 7]), torch.zeros(5, dtype=torch.long)):
        actual = run_ir(xml, [values.numpy(), w.numpy()])
        assert_close(actual, [t.numpy() for t in Bincount()(values, w)])


@pytest.mark.parametrize("path", PATHS)
def test_histograms(path, tmp_path):
    x = torch.randn(20)
    x[3] = 2.0      # on the rightmost edge: counted in the last bin
    check_module(Histograms(), (x, torch.rand(20)), tmp_path, path)
