"""Layer tests of the ATen indexing lowerings."""
import pytest
import torch
import torch.nn.functional as F

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)
X = torch.randn(3, 4, 5)
IDX = torch.tensor([2, 0, 1, 2])


class Slicing(torch.nn.Module):
    def forward(self, x, idx):
        n = x.shape[2]
        return x[1], x[:, 1:3], x[..., ::2], x[:, -1], x[1:, :, 1:n - 1], x[:, None, 2], x[idx], x[:, idx], \
            x[idx, :, idx[:1] + 1], x[:, idx, idx + 1], x[x > 0], x.index_select(2, idx), \
            torch.gather(x, 1, idx[:3].view(3, 1, 1).expand(3, 2, 5)), x[idx[-1]]


class Writes(torch.nn.Module):
    def forward(self, x, idx):
        y = x.clone()
        y[idx[:2]] = 0.5
        y[y > 1] = 1.0
        z = torch.zeros(3, 4, 5).scatter(1, idx[:3].view(3, 1, 1).expand(3, 1, 5), x)
        w = torch.ones(3, 4, 5).scatter_add(2, torch.zeros(3, 4, 2, dtype=torch.long), x[..., :2])
        v = x.index_put((idx[:2],), torch.ones(5), accumulate=True)
        s = torch.slice_scatter(x, torch.zeros(3, 2, 5), dim=1, start=1, end=3)
        t = torch.select_scatter(x, torch.zeros(3, 5), 1, -1)
        r = x.scatter_reduce(2, torch.tensor([[[0, 1, 0, 1, 0]]]).expand(3, 4, 5), x, reduce="amax")
        return y, z, w, v, s, t, r


class MoreWrites(torch.nn.Module):
    def forward(self, x, idx):
        index = idx[:3].view(3, 1, 1).expand(3, 2, 5)
        return torch.zeros(3, 4, 5).scatter(1, index, 2.0), x.scatter(1, index, x, reduce="add"), \
            x.scatter_reduce(1, index, x[:, :3], "sum", include_self=False), \
            x.select(1, idx[3]), torch.select_scatter(x, torch.ones(3, 4), 2, idx[0]), \
            torch.slice_scatter(x, torch.zeros(3, 4, 2), dim=2, start=1, end=5, step=2)


class Lookups(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 4, padding_idx=0)

    def forward(self, ids):
        return self.emb(ids), F.one_hot(ids, 10), F.one_hot(ids), torch.nonzero(ids > 4)


@pytest.mark.parametrize("path", PATHS)
def test_slicing(path, tmp_path):
    check_module(Slicing(), (X, IDX), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_writes(path, tmp_path):
    check_module(Writes(), (X, IDX), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_lookups(path, tmp_path):
    check_module(Lookups(), (torch.tensor([[1, 5, 9], [0, 3, 7]]),), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_more_writes(path, tmp_path):
    check_module(MoreWrites(), (X, IDX), tmp_path, path)
