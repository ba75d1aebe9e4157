"""Layer tests of the ATen linear algebra lowerings (cross products, inverses, norms, distances)
through each capture path."""
import pytest
import torch

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)
INF = float("inf")


class Cross(torch.nn.Module):
    def forward(self, x, y):
        return torch.cross(x, y, dim=1), torch.linalg.cross(x[:, :, :3], y[:1, :, :3]), torch.cross(x, y), \
            torch.linalg.cross(x.transpose(1, 2), y.transpose(1, 2), dim=-1)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
def test_cross(dtype, path, tmp_path):
    """Along a given dim, the last, and (torch.cross without dim) the first of size 3; broadcasting."""
    x, y = (torch.randint(-5, 6, (2, 3, 4)).to(dtype) for _ in range(2))
    check_module(Cross(), (x, y), tmp_path, path)


class Inverse(torch.nn.Module):
    def forward(self, x):
        return torch.inverse(x), torch.linalg.inv(x[0]), torch.linalg.inv(x.transpose(-1, -2) + 2)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_inverse(dtype, path, tmp_path):
    x = torch.randn(2, 3, 4, 4, dtype=dtype) + 4 * torch.eye(4, dtype=dtype)
    check_module(Inverse(), (x,), tmp_path, path)


class Norms(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.norm(x), torch.linalg.norm(x, dim=(1, 2)), torch.linalg.norm(x, dim=2, keepdim=True), \
            torch.linalg.norm(x, ord=1, dim=(0, 2), keepdim=True), torch.linalg.norm(x, ord="fro", dim=(1, 2)), \
            torch.linalg.norm(x[0, 0], ord=INF), torch.linalg.norm(x[0], ord=-INF), \
            torch.linalg.norm(x, ord=3, dim=1), torch.linalg.norm(x[1], ord=0, dim=-1), torch.linalg.norm(x[1], ord=-1)


class MatrixNorms(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.matrix_norm(x), torch.linalg.matrix_norm(x, ord=1), \
            torch.linalg.matrix_norm(x, ord=-1, keepdim=True), torch.linalg.matrix_norm(x, ord=INF, dim=(2, 0)), \
            torch.linalg.matrix_norm(x, ord=-INF), torch.linalg.matrix_norm(x, dim=(0, 1), keepdim=True), \
            torch.linalg.matrix_norm(x, ord=INF, dtype=torch.float64)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("module", [Norms(), MatrixNorms()], ids=["norm", "matrix-norm"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_norms(module, dtype, path, tmp_path):
    """Vector norms (one dim, or a 1-D input), matrix norms (two dims, or a 2-D input), keepdim, dtype."""
    check_module(module, (torch.randn(2, 3, 4, dtype=dtype),), tmp_path, path)


class Distances(torch.nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x, y):
        pair = torch.nn.functional.pairwise_distance
        return torch.cdist(x, y, p=self.p), torch.cdist(x[0], y[1], p=self.p), pair(x, y[:, :4], p=self.p), \
            pair(x[0], y[0, :4], p=self.p, keepdim=True, eps=0.1), torch.nn.PairwiseDistance(p=self.p)(x[1], y[1, 0]), \
            torch.ops.aten._cdist_forward(x, y, float(self.p), None)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("p", [0, 1, 2, INF, 1.5])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_distances(p, dtype, path, tmp_path):
    """cdist and pairwise_distance for each kind of p (integral coordinates: p 0 has ties)."""
    x, y = torch.randn(2, 4, 5).round().to(dtype), torch.randn(2, 6, 5).round().to(dtype)
    check_module(Distances(p), (x, y), tmp_path, path)


class MatrixNorm(torch.nn.Module):
    def __init__(self, order):
        super().__init__()
        self.order = order

    def forward(self, x):
        return torch.linalg.matrix_norm(x, ord=self.order)


@pytest.mark.parametrize("order", ["nuc", 2, -2])
def test_singular_value_norms(order, tmp_path):
    """The spectral and nuclear norms from the Jacobi singular values, of wide and tall matrices."""
    check_module(MatrixNorm(order), (torch.randn(2, 3, 5),), tmp_path, "trace", rtol=1e-3, atol=1e-4)
    check_module(MatrixNorm(order), (torch.randn(4, 3),), tmp_path, "export", rtol=1e-3, atol=1e-4)


class Determinants(torch.nn.Module):
    """det / linalg.det, slogdet, logdet from the LU, QR by Householder reflections (issue 21)."""

    def forward(self, x):
        q, r = torch.linalg.qr(x)
        qc, rc = torch.linalg.qr(x[0, :, :3], mode="complete")
        return torch.det(x), torch.linalg.det(x), *torch.linalg.slogdet(x), torch.logdet(x @ x.mT), q, r, qc, rc


@pytest.mark.parametrize("path", PATHS)
def test_determinants_and_qr(path, tmp_path):
    x = torch.randn(2, 4, 4)
    check_module(Determinants(), (x,), tmp_path, path, rtol=1e-3, atol=1e-4)


class Solves(torch.nn.Module):
    """linalg.solve (matrix and vector right-hand sides, left and right), solve_ex,
    solve_triangular, triangular_solve, inv_ex, matrix_power, tensorinv, tensorsolve, Cholesky and
    the solves from it."""

    def forward(self, a, rhs, v, spd):
        lower = torch.linalg.cholesky(spd)
        return torch.linalg.solve(a, rhs), torch.linalg.solve(a, v), torch.linalg.solve(a, rhs.mT, left=False), \
            torch.linalg.solve_ex(a, rhs)[0], torch.linalg.solve_triangular(a, rhs, upper=True), \
            torch.linalg.solve_triangular(a, rhs.mT, upper=False, left=False, unitriangular=True), \
            *torch.triangular_solve(rhs, a, upper=False, transpose=True), torch.linalg.inv_ex(a)[0], \
            torch.linalg.matrix_power(a, 3), torch.linalg.matrix_power(a, -2), torch.linalg.matrix_power(a, 0), \
            torch.linalg.tensorinv(torch.eye(6).reshape(6, 2, 3) + 0.1 * a[0, 0, 0], ind=1), \
            lower, torch.linalg.cholesky(spd, upper=True), torch.cholesky_inverse(lower), \
            torch.cholesky_solve(rhs, lower), torch.linalg.cholesky_ex(spd)[0]


@pytest.mark.parametrize("path", PATHS)
def test_solves(path, tmp_path):
    a = torch.randn(2, 4, 4) + 4 * torch.eye(4)
    m = torch.randn(2, 4, 4)
    spd = m @ m.mT + torch.eye(4)
    check_module(Solves(), (a, torch.randn(2, 4, 3), torch.randn(2, 4), spd), tmp_path, path, rtol=1e-3, atol=1e-4)


class MatrixExp(torch.nn.Module):
    def forward(self, x):
        return torch.matrix_exp(x), torch.linalg.matrix_exp(x[0] * 0.01)


@pytest.mark.parametrize("path", PATHS)
def test_matrix_exp(path, tmp_path):
    check_module(MatrixExp(), (torch.randn(3, 4, 4) * 2,), tmp_path, path, rtol=1e-3, atol=1e-4)
