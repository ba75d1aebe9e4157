"""Layer tests of the ATen matrix-product and attention lowerings."""
import pytest
import torch
import torch.nn.functional as F

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
            torch.einsum("bij,bjk->bik", x, y), torch.einsum("bij->bji", x), x[0, 0] @ y[0, :, 0]


class Attention(torch.nn.Module):
    def forward(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v), \
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask > 0), \
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.3), \
            F.scaled_dot_product_attention(q, k, v, is_causal=True)


@pytest.mark.parametrize("path", PATHS)
def test_products(path, tmp_path):
    check_module(Products(), (torch.randn(2, 3, 4), torch.randn(2, 4, 5)), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_attention(path, tmp_path):
    q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 8)
    mask = torch.randn(2, 1, 5, 6)
    mask[..., 0] = 1.0
    check_module(Attention(), (q, k, v, mask), tmp_path, path)
