"""Layer tests of the ATen special functions (extensions/front/pytorch/special.py) through each
capture path: gamma and zeta functions, the regularized incomplete gamma functions, the
error-function family, modified Bessel functions, the Airy function and the orthogonal
polynomials, against PyTorch's own values."""
import pytest
import torch

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)
X = torch.linspace(-7.3, 9.1, 40)
POSITIVE = torch.linspace(0.05, 30, 40)
UNIT = torch.linspace(-0.999, 0.999, 40)


class Gamma(torch.nn.Module):
    def forward(self, x, p):
        return torch.lgamma(x), torch.digamma(x), torch.special.polygamma(1, p), torch.polygamma(3, x), \
            torch.mvlgamma(p + 2, 3), torch.special.zeta(p + 1.1, p), torch.lgamma(p * 1000)


@pytest.mark.parametrize("path", PATHS)
def test_gamma_family(path, tmp_path):
    check_module(Gamma(), (X, POSITIVE), tmp_path, path, rtol=1e-3, atol=1e-4)


class IncompleteGamma(torch.nn.Module):
    def forward(self, s, x):
        return torch.igamma(s, x), torch.igammac(s, x), torch.special.gammainc(s, x * 2), \
            torch.special.gammaincc(s[:120].to(torch.float64), x[:120].to(torch.float64))   # f64: finite only


# both sides of x = s + 1 (the series and the continued fraction), large s and x near each other,
# and the edges: zeros, infinities, negative and NaN arguments (the CPU plugin's f64 inputs do not
# keep every infinity: the f64 output takes the finite part)
EDGES = [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (2.0, float("inf")), (float("inf"), 1.0), (float("inf"), float("inf")),
         (-1.0, 1.0), (3.0, -1.0), (0.5, 1e-4), (100.0, 100.0), (50.0, 80.0), (1e-3, 5.0), (float("nan"), 1.0)]
S = torch.cat([torch.rand(120) * 20, torch.tensor([e[0] for e in EDGES])])
S_X = torch.cat([torch.rand(120) * 30, torch.tensor([e[1] for e in EDGES])])


@pytest.mark.parametrize("path", PATHS)
def test_regularized_incomplete_gamma(path, tmp_path):
    check_module(IncompleteGamma(), (S, S_X), tmp_path, path, rtol=1e-4, atol=1e-5)


class Airy(torch.nn.Module):
    def forward(self, x, n):
        return torch.special.airy_ai(x), torch.special.airy_ai(n)


# both asymptotic sides and the power series between them, their switch points, the edges; and an
# integer input (computed in f32)
AIRY_X = torch.cat([torch.linspace(-30, 30, 601), torch.tensor([-5.0, 3.0, 0.0, float("inf"), -float("inf"),
                                                                float("nan")])])


@pytest.mark.parametrize("path", PATHS)
def test_airy_ai(path, tmp_path):
    check_module(Airy(), (AIRY_X, torch.arange(-8, 8)), tmp_path, path, rtol=1e-3, atol=1e-5)


class ErrorFunctions(torch.nn.Module):
    def forward(self, x, u, p):
        return torch.erfinv(u), torch.special.erfcx(x), torch.special.ndtr(x), torch.special.ndtri(p), \
            torch.special.log_ndtr(x * 3), torch.special.erfinv(torch.tensor([-1.0, 1.0, 1.5]))


@pytest.mark.parametrize("path", PATHS)
def test_error_functions(path, tmp_path):
    check_module(ErrorFunctions(), (X, UNIT, (UNIT + 1) / 2), tmp_path, path, rtol=1e-3, atol=1e-4)


class Bessel(torch.nn.Module):
    def forward(self, x):
        return torch.i0(x), torch.special.i0e(x * 5), torch.special.i1(x), torch.special.i1e(x * 5), \
            torch.special.modified_bessel_i0(x), torch.special.spherical_bessel_j0(x), torch.sinc(x), \
            torch.special.entr(x), torch.xlogy(x, x.abs()), torch.special.xlog1py(x, x.abs())


@pytest.mark.parametrize("path", PATHS)
def test_bessel_and_others(path, tmp_path):
    check_module(Bessel(), (torch.cat([X, torch.zeros(1)]),), tmp_path, path, rtol=1e-3, atol=1e-4)


class Polynomials(torch.nn.Module):
    def forward(self, x, n):
        special = torch.special
        return special.chebyshev_polynomial_t(x, n), special.chebyshev_polynomial_u(x, n), \
            special.chebyshev_polynomial_v(x, n), special.chebyshev_polynomial_w(x, n), \
            special.shifted_chebyshev_polynomial_t(x, n), special.hermite_polynomial_h(x, n), \
            special.hermite_polynomial_he(x, n), special.laguerre_polynomial_l(x, n), \
            special.legendre_polynomial_p(x, n), special.chebyshev_polynomial_t(x, 3)


@pytest.mark.parametrize("path", PATHS)
def test_orthogonal_polynomials(path, tmp_path):
    x = torch.linspace(-1.2, 1.2, 12).reshape(3, 4)
    n = torch.tensor([[0], [1], [5]])
    check_module(Polynomials(), (x, n), tmp_path, path, rtol=1e-3, atol=1e-3)


class BesselJYK(torch.nn.Module):
    def forward(self, x, p):
        special = torch.special
        return special.bessel_j0(x), special.bessel_j1(x), special.bessel_y0(p), special.bessel_y1(p), \
            special.modified_bessel_k0(p), special.modified_bessel_k1(p), special.scaled_modified_bessel_k0(p), \
            special.scaled_modified_bessel_k1(p * 3)


@pytest.mark.parametrize("path", PATHS)
def test_bessel_j_y_k(path, tmp_path):
    check_module(BesselJYK(), (torch.linspace(-25, 25, 81), POSITIVE), tmp_path, path, rtol=1e-3, atol=1e-4)
