"""Layer tests of the ATen matrix decompositions (LU family) on batches through each capture
path (the OpInfo samples of these ops are single matrices)."""
import pytest
import torch

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)


class LU(torch.nn.Module):
    """lu_factor_ex (a singular matrix in the batch: info), lu, lu_unpack and the solves."""

    def forward(self, x, rhs):
        packed, pivots, info = torch.linalg.lu_factor_ex(x)
        square, square_pivots = torch.linalg.lu_factor(x[..., 1:])
        return packed, pivots, info, *torch.linalg.lu(x.mT), *torch.lu_unpack(packed, pivots), \
            torch.lu_solve(rhs, square, square_pivots), torch.linalg.lu_solve(square, square_pivots, rhs, adjoint=True)


@pytest.mark.parametrize("path", PATHS)
def test_lu(path, tmp_path):
    x = torch.randn(2, 3, 4, 5)
    x[1, 2, :, 0] = 0
    check_module(LU(), (x, torch.randn(2, 3, 4, 2)), tmp_path, path, rtol=1e-3, atol=1e-4)
