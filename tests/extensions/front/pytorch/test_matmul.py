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


class GroupedProducts(torch.nn.Module):
    """Mixture-of-experts grouped products: rows sorted by their expert id, offsets counted at run
    time (transformers' grouped_mm_fallback and torch._grouped_mm, which a model compiled for GPUs
    calls), an expert no row picks included; _grouped_mm of a 3-D input, one product per expert."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 8, 12))

    def forward(self, x, experts):
        order = torch.sort(experts).indices
        counts = torch.histc(experts[order].float(), bins=4, min=0, max=3)
        offsets = torch.cumsum(counts, 0, dtype=torch.int32)
        rows = x[order]
        return torch.ops.transformers.grouped_mm_fallback(rows, self.w, offsets), \
            torch._grouped_mm(rows, self.w, offs=offsets), torch._grouped_mm(x[:8].reshape(4, 2, 8), self.w)


@pytest.mark.parametrize("path", PATHS)
def test_grouped_products(path, tmp_path):
    import transformers.integrations.moe  # noqa: F401  (registers transformers::grouped_mm_fallback)
    experts = torch.tensor([3, 0, 3, 1, 0, 3, 3, 0, 1])
    check_module(GroupedProducts(), (torch.randn(9, 8), experts), tmp_path, path)
