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


class Eigen(torch.nn.Module):
    """eigh (vectors compared through |V| and V diag(w) V^T: their signs are arbitrary), eigvalsh
    of the upper triangle, matrix_rank and pinv (hermitian too) on batches."""

    def forward(self, x):
        w, v = torch.linalg.eigh(x)
        return w, v.abs(), v @ torch.diag_embed(w) @ v.mT, torch.linalg.eigvalsh(x.triu(), UPLO="U"), \
            torch.linalg.matrix_rank(x, hermitian=True), torch.linalg.pinv(x, hermitian=True)


class SVD(torch.nn.Module):
    """svdvals, svd (vectors through |U|, |V| and U diag(S) Vh), matrix_rank, pinv, cond of tall
    and wide batches."""

    def forward(self, x):
        u, s, vh = torch.linalg.svd(x, full_matrices=False)
        low = x[..., :2] @ x[..., :2].mT
        return torch.linalg.svdvals(x), torch.linalg.svdvals(x.mT), u.abs(), s, vh.abs(), \
            u @ torch.diag_embed(s) @ vh, torch.linalg.matrix_rank(x), \
            torch.linalg.matrix_rank(low), torch.linalg.pinv(x.mT), torch.linalg.pinv(low), \
            torch.pinverse(x[..., :3]), torch.linalg.cond(x[..., :3]), torch.linalg.matrix_norm(x, "nuc")


@pytest.mark.parametrize("path", PATHS)
def test_eigen_and_svd(path, tmp_path):
    m = torch.randn(2, 3, 4, 4)
    check_module(Eigen(), (m + m.mT,), tmp_path, path, rtol=1e-3, atol=1e-4)
    check_module(SVD(), (torch.randn(2, 3, 5),), tmp_path, path, rtol=1e-3, atol=1e-4)


class Householder(torch.nn.Module):
    """geqrf of a batch and the products of its reflections."""

    def forward(self, x, c):
        packed, tau = torch.geqrf(x)
        return packed, tau, torch.linalg.householder_product(packed, tau), \
            torch.ormqr(packed, tau, c, left=True, transpose=True), torch.geqrf(x.mT)[0]


@pytest.mark.parametrize("path", PATHS)
def test_householder(path, tmp_path):
    check_module(Householder(), (torch.randn(2, 4, 3), torch.randn(2, 4, 2)), tmp_path, path, rtol=1e-3, atol=1e-4)


class Lstsq(torch.nn.Module):
    def forward(self, a, rhs):
        return *torch.linalg.lstsq(a, rhs, driver="gelsd"), torch.linalg.lstsq(a.mT, rhs[..., :3, :]).solution


def test_lstsq(tmp_path):
    """Least squares of tall (residuals, rank, singular values) and wide (minimum norm) batches."""
    check_module(Lstsq(), (torch.randn(2, 5, 3), torch.randn(2, 5, 2)), tmp_path, "trace", rtol=1e-3, atol=1e-4)


class LDL(torch.nn.Module):
    def forward(self, x, rhs):
        ld, pivots, info = torch.linalg.ldl_factor_ex(x)
        return ld, pivots, info, torch.linalg.ldl_solve(ld[:3], pivots[:3], rhs[:3])  # x[3] is singular


@pytest.mark.parametrize("path", PATHS)
def test_ldl(path, tmp_path):
    """Bunch-Kaufman pivoting of indefinite matrices (1x1 and 2x2 pivots, swaps; a zero column: info)."""
    m = torch.randn(4, 6, 6)
    x = m + m.mT
    x[0].fill_diagonal_(0)
    x[3, 2, :] = 0
    x[3, :, 2] = 0
    pivots = torch.linalg.ldl_factor(x[:3])[1]
    assert (pivots < 0).any() and (pivots != torch.arange(1, 7, dtype=torch.int32)).any()
    check_module(LDL(), (x, torch.randn(4, 6, 2)), tmp_path, path, rtol=1e-3, atol=1e-4)
