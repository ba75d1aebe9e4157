"""Layer tests of the ATen lowerings that create tensors, convert types and read sizes."""
import pytest
import torch

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)
X = torch.randn(2, 3, 4)


class Creation(torch.nn.Module):
    def forward(self, x):
        n = x.size(1)
        return torch.arange(n), torch.arange(1, x.shape[2], 2), torch.arange(0.5, 3.0, 0.5), \
            torch.zeros(2, n), torch.ones_like(x), torch.full((2, 2), 3), torch.full((2,), 1.5), \
            torch.full_like(x, 7, dtype=torch.int32), x.new_zeros(3), x.new_ones((2, n)), x.new_full((2,), 2.0), \
            torch.zeros(x.shape[0], dtype=torch.long), torch.empty(2, 3).fill_(4.0), \
            torch.tensor([1.0, 2.0]) * x[0, 0, :2], \
            torch.arange(x.shape[2], dtype=torch.float32) + x


class Conversions(torch.nn.Module):
    def forward(self, x, i):
        return x.long(), x.to(torch.int32), i.float(), x.type_as(i), i.to(x.dtype), (x > 0).int(), \
            i.bool(), x.double(), x.to(i), i.to(torch.float32) / 2


class Sizes(torch.nn.Module):
    def forward(self, x):
        b, c, w = x.shape
        return torch.tensor(x.dim()) + x.numel() + 0 * x.sum(), x.reshape(b * c, w), \
            x.view(-1, x.size(-1) // 2, 2), x.new_zeros(x.size()), x.reshape(x.shape[:2] + (2, 2))


class Fills(torch.nn.Module):
    def forward(self, x):
        return torch.zeros_like(x, dtype=torch.int32), torch.empty_like(x).zero_(), x.new_empty(3).fill_(2), \
            torch.arange(5, dtype=torch.float32), x.clone().zero_(), \
            torch.empty(2, 3, dtype=torch.int64).fill_(x.shape[1]), torch.ones(x.shape[:2], dtype=torch.bool), \
            x.new_full((x.size(0), 2), 3, dtype=torch.int8), torch.zeros(2).copy_(x[0, 0, :2]), \
            torch.arange(0, 6, 2, dtype=torch.float32) * x[..., :3]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("module, inputs", [
    (Creation(), (X,)), (Conversions(), (X, torch.tensor([[1, -2], [3, 4]]))), (Sizes(), (X,)), (Fills(), (X,))],
    ids=["creation", "conversion", "sizes", "fills"])
def test_creation(module, inputs, path, tmp_path):
    check_module(module, inputs, tmp_path, path)
