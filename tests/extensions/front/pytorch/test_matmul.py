"""Layer tests of the ATen matrix-product translators."""
import pytest
import torch

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)


class Products(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 6)
        self.fc_nobias = torch.nn.Linear(4, 3, bias=False)
        self.w = torch.nn.Parameter(torch.randn(4, 5))
        self.bias = torch.nn.Parameter(torch.randn(5))

    def forward(self, x, y):
        flat = x.reshape(-1, 4)
        return self.fc(x), self.fc_nobias(x), torch.addmm(self.bias, flat, self.w, beta=0.5, alpha=2.0), \
            torch.matmul(x, y), torch.bmm(x, y), torch.mm(flat, self.w), torch.baddbmm(x @ y, x, y, alpha=0.3), \
            torch.einsum("bij,bjk->bik", x, y), torch.einsum("bij->bji", x), x[0, 0] @ y[0, :, 0], \
            torch.nn.functional.linear(x, self.w[:, 0]), torch.addmm(self.bias, flat, self.w, beta=0)


@pytest.mark.parametrize("path", PATHS)
def test_products(path, tmp_path):
    check_module(Products(), (torch.randn(2, 3, 4), torch.randn(2, 4, 5)), tmp_path, path)


class Inner(torch.nn.Module):
    """inner (sums over the last dims; the result has x's leading dims, then y's), dot, mv."""

    def forward(self, x, y):
        v = y[0, 0]
        return torch.inner(x, y), torch.inner(x, y[0]), torch.inner(x, v), torch.inner(v, x), \
            torch.inner(v, v), torch.inner(x, torch.tensor(2.0)), torch.dot(x[0, 0], v), torch.mv(x[0], v)


@pytest.mark.parametrize("path", PATHS)
def test_inner(path, tmp_path):
    check_module(Inner(), (torch.randn(2, 3, 4), torch.randn(5, 6, 4)), tmp_path, path)


class MoreProducts(torch.nn.Module):
    """addmv, addr, addbmm, trace, kron, tensordot, multi_dot, vander, bilinear."""

    def forward(self, m, v, x):
        return torch.addmv(v[:3], m, v, beta=0.5, alpha=2), torch.addr(m, v[:3], v, alpha=3), \
            torch.addbmm(m, x, torch.ones(2, 4, 4), beta=0.5), torch.trace(m[:, :3]), torch.kron(m, v[:2]), \
            torch.tensordot(x, x, dims=([1, 2], [1, 2])), torch.linalg.multi_dot([m, m.T, v[:3]]), \
            torch.linalg.vander(v[:3], N=4), \
            torch.nn.functional.bilinear(x[0], x[1], torch.ones(5, 4, 4), torch.ones(5))


@pytest.mark.parametrize("path", PATHS)
def test_more_products(path, tmp_path):
    check_module(MoreProducts(), (torch.randn(3, 4), torch.randn(4), torch.randn(2, 3, 4)), tmp_path, path)
