"""Layer tests of the ATen reduction, cumsum and sorting lowerings."""
import pytest
import torch

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)
X = torch.randn(3, 4, 5)


class Reductions(torch.nn.Module):
    def forward(self, x):
        return x.sum(), x.sum(1), x.sum((0, 2), keepdim=True), x.mean(-1), x.mean([1, 2], keepdim=True), \
            x.prod(2), x.amax(1), x.amin((0, 1)), (x > 0).sum(1), (x > 0).any(2), (x > -3).all(), \
            x.std(1), x.var(2, unbiased=False), torch.logsumexp(x, 1), x.norm(dim=2), x.norm(p=1, dim=1), \
            torch.linalg.vector_norm(x, ord=3, dim=-1), x.long().sum(0), torch.count_nonzero(x > 0, dim=1), \
            *torch.var_mean(x, 1), *torch.std_mean(x, (0, 2), keepdim=True), \
            torch.nn.functional.cosine_similarity(x, x.flip(1), dim=2)


class Extremes(torch.nn.Module):
    def forward(self, x):
        m, i = x.max(1)
        n, j = torch.min(x, -1, keepdim=True)
        return x.max(), m, i, n, j, x.argmax(), x.argmin(1), torch.max(x, x.flip(0))


class Sorting(torch.nn.Module):
    def forward(self, x):
        v, i = torch.topk(x, 2, dim=1)
        w, j = torch.topk(x, 3, largest=False)
        s, k = torch.sort(x, dim=1, descending=True)
        return v, i, w, j, s, k, torch.argsort(x, dim=-1), torch.cumsum(x, 1), torch.cumsum((x > 0).int(), -1)


class MoreReductions(torch.nn.Module):
    def forward(self, x):
        i = (x * 3).long()
        b = x > 0
        return torch.nansum(torch.log(x)), torch.nansum(i, 1), b.amax(1), b.amin((0, 2), keepdim=True), \
            i.prod(1), i.mean(2, dtype=torch.float32), x.sum(0, dtype=torch.float64).float(), \
            torch.linalg.vector_norm(x, ord=float("inf"), dim=1), torch.linalg.vector_norm(x, ord=0, dim=(0, 2)), \
            torch.linalg.vector_norm(x, ord=-float("inf")), x.norm(p="fro", dim=(1, 2)), \
            torch.logsumexp(x, (0, 2), keepdim=True), b.any(), b.all(1, keepdim=True), x.var(1, correction=0), \
            x.argmax(1, keepdim=True), torch.min(x), torch.min(x, x.flip(2)), x.max(2, keepdim=True)[0], \
            torch.topk(x, x.shape[1] - 2, dim=1)[0], x.sort(0)[1], i.cumsum(2), \
            torch.cumsum(x, 0, dtype=torch.float64).float(), torch.argsort(x, 1, descending=True)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("module", [Reductions(), Extremes(), Sorting(), MoreReductions()],
                         ids=["reduce", "extremes", "sort", "more"])
def test_reductions(module, path, tmp_path):
    check_module(module, (X,), tmp_path, path)


class VectorNormTypes(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.vector_norm(x), torch.linalg.vector_norm(x, ord=3, dim=1, dtype=torch.float64), \
            torch.linalg.vector_norm(x, ord=1, dtype=torch.float64)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_vector_norm_of_input_or_dtype_type(dtype, path, tmp_path):
    """The norm is of the input's type, or of the dtype argument's."""
    check_module(VectorNormTypes(), (X.to(dtype),), tmp_path, path)


class ScalarNorms(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.vector_norm(x, 2, dim=[0]), torch.linalg.vector_norm(x, 0, dim=0, keepdim=True), \
            torch.linalg.vector_norm(x, float("inf"), dim=-1), torch.linalg.vector_norm(x, 3.5), x.norm(p=1, dim=0)


@pytest.mark.parametrize("path", PATHS)
def test_norms_of_a_0d_tensor(path, tmp_path):
    """PyTorch takes dim 0 or -1 on a 0-d tensor: the norm of its one element (masked.norm's samples)."""
    check_module(ScalarNorms(), (torch.tensor(-2.5),), tmp_path, path)


class AminMax(torch.nn.Module):
    def forward(self, x):
        return torch.aminmax(x), torch.aminmax(x, dim=1), torch.aminmax(x, dim=-1, keepdim=True), x[0, 0].aminmax()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.uint8, torch.bool])
@pytest.mark.parametrize("path", PATHS)
def test_aminmax(path, dtype, tmp_path):
    check_module(AminMax(), ((torch.randn(3, 4) * 100).to(dtype),), tmp_path, path)


class VectorNorms(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.vector_norm(x), torch.linalg.vector_norm(x, 1, dim=1), \
            torch.linalg.vector_norm(x, float("inf")), torch.linalg.vector_norm(x, 0), \
            torch.linalg.vector_norm(x, 3.5, dim=(0, 1), keepdim=True), torch.linalg.vector_norm(x, dtype=torch.float64)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16])
@pytest.mark.parametrize("path", PATHS)
def test_vector_norm_types(path, dtype, tmp_path):
    """The norm keeps f64 and follows the dtype argument (was f32 whatever it said); f16 norms
    accumulate in f32 as in PyTorch."""
    check_module(VectorNorms(), (X.to(dtype),), tmp_path, path)


class ZeroDimSums(torch.nn.Module):
    def forward(self, x):
        s = x[0, 0, 0]
        return torch.sum(x), x.sum(dtype=torch.float64), torch.sum(s), torch.sum(s, 0), torch.sum(s, 0, True), \
            torch.sum(x, [], True), torch.sum(x.long()), torch.sum(x > 0), torch.sum(s.int()), torch.sum(x, None, True)


@pytest.mark.parametrize("path", PATHS)
def test_zero_dim_sums(path, tmp_path):
    """Sums whose result is 0-d have no dims left (and sums of 0-d tensors stay 0-d)."""
    check_module(ZeroDimSums(), (X,), tmp_path, path)


class Histc(torch.nn.Module):
    def forward(self, x):
        return torch.histc(x, bins=7, min=-1.0, max=1.5), torch.histc(x), torch.histc(x, bins=3, min=0.5, max=0.5), \
            torch.histc(x[:1, :1] * 0 + 2.0, bins=4), torch.histc(x.clamp(0, 1), bins=5, min=0, max=1)


@pytest.mark.parametrize("path", PATHS)
def test_histc(path, tmp_path):
    """Counts over a given range (values outside ignored, max in the last bin), over the data's own
    range (min == max; one value widens it by 1 each side), values on bin edges where PyTorch puts
    them. (f64 inputs are left out: the CPU plugin computes f64 in f32, which moves values that lie
    exactly on an edge of f64 bins.)"""
    x = torch.tensor([[-2.0, -1.0, 0.0, 0.25], [1.5, 1.5, 3.0, 0.7], [0.1, -0.4, 1.2, 1.49]])
    check_module(Histc(), (x,), tmp_path, path)


class OrderStatistics(torch.nn.Module):
    """kthvalue, median / nanmedian, quantile / nanquantile, msort (issue 21)."""

    def forward(self, x, y):
        return *torch.kthvalue(x, 2, dim=1), *torch.kthvalue(x, 3, dim=-1, keepdim=True), x.median(), \
            *x.median(dim=2), *y.nanmedian(dim=1, keepdim=True), y.nanmedian(), torch.msort(x), \
            torch.quantile(x, 0.3, dim=1), torch.quantile(x, torch.tensor([0.25, 0.5, 1.0]), dim=2, keepdim=True), \
            torch.quantile(x, 0.7), torch.quantile(x, 0.4, dim=0, interpolation="lower"), \
            torch.quantile(x, 0.4, dim=0, interpolation="higher"), \
            torch.quantile(x, 0.4, dim=0, interpolation="nearest"), \
            torch.quantile(x, 0.45, dim=0, interpolation="midpoint"), torch.nanquantile(y, 0.6, dim=1), \
            torch.quantile(y, 0.6, dim=1)


@pytest.mark.parametrize("path", PATHS)
def test_order_statistics(path, tmp_path):
    y = X.clone()
    y[0, 1, 2] = y[1, 3, 0] = y[2, 0, 1] = y[2, 2, 1] = float("nan")     # (all-NaN slices: PyTorch picks any index)
    check_module(OrderStatistics(), (X, y), tmp_path, path)


class Scans(torch.nn.Module):
    """cumprod, cummax / cummin (values and the index of the last extreme), logcumsumexp."""

    def forward(self, x, i):
        return torch.cumprod(x, 1), torch.cumprod(i, 0), *torch.cummax(x, 2), *torch.cummin(i, 1), \
            torch.logcumsumexp(x, 0), *torch.cummax(x > 0, 1)


@pytest.mark.parametrize("path", PATHS)
def test_scans(path, tmp_path):
    check_module(Scans(), (X, torch.randint(-3, 4, (3, 4, 5))), tmp_path, path)


class ByteTruth(torch.nn.Module):
    def forward(self, x):
        return torch.all(x), torch.any(x, 1), torch.all(x, 0, keepdim=True)


@pytest.mark.parametrize("path", PATHS)
def test_all_any_of_bytes_stay_bytes(path, tmp_path):
    """all / any of u8 give u8 (PyTorch's legacy type), e.g. a traced torch.all of a size-5 input."""
    check_module(ByteTruth(), (torch.tensor([[1, 1, 0, 1, 1], [1, 2, 3, 4, 5]], dtype=torch.uint8),), tmp_path, path)


class Integration(torch.nn.Module):
    def forward(self, y, x):
        return torch.trapezoid(y), torch.trapezoid(y, x, dim=-1), torch.trapz(y, dx=0.5, dim=1), \
            torch.cumulative_trapezoid(y, x, dim=2)


@pytest.mark.parametrize("path", PATHS)
def test_trapezoid(path, tmp_path):
    check_module(Integration(), (X, torch.linspace(0, 2, 5) ** 2), tmp_path, path)


class Statistics(torch.nn.Module):
    """cov (correction, frequency and observation weights, one variable), corrcoef, nanmean,
    dist of several orders, renorm."""

    def forward(self, x, f, w, holes):
        m = x[0]
        return torch.cov(m), torch.cov(m, correction=0, fweights=f), torch.cov(m, aweights=w), \
            torch.cov(m, correction=2, fweights=f, aweights=w), torch.cov(m[1]), torch.corrcoef(m), \
            torch.nanmean(holes), torch.nanmean(holes, 1, keepdim=True), torch.dist(x, x.flip(0)), \
            torch.dist(x, m, 1), torch.dist(x, m, float("inf")), torch.renorm(x, 2, 1, 1.5), \
            torch.renorm(x, 1, 0, 3.0)


@pytest.mark.parametrize("path", PATHS)
def test_statistics(path, tmp_path):
    holes = X[0].clone()
    holes[1] = float("nan")
    holes[2, :2] = float("nan")
    check_module(Statistics(), (X, torch.tensor([1, 2, 1, 3, 1]), torch.rand(5) + 0.5, holes), tmp_path, path)


class HashTensor(torch.nn.Module):
    def forward(self, i, m):
        return torch.hash_tensor(i), torch.hash_tensor(i, 1, keepdim=True), torch.hash_tensor(i, [0, 2]), \
            torch.hash_tensor(m)


@pytest.mark.parametrize("path", ["export", "trace"])
def test_hash_tensor(path, tmp_path):
    """The xor of the integers' (booleans') 64-bit patterns, negative ones too, over odd sizes."""
    check_module(HashTensor(), (torch.randint(-1000, 1000, (3, 5, 7)), torch.rand(4, 3) > 0.5), tmp_path, path)
