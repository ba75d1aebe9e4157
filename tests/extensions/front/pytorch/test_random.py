"""Layer tests of the ATen random operations: the IR's values are not PyTorch's (its generator is
not reproduced), so shapes, types and statistics (mean, std, range) are compared."""
import numpy as np
import pytest
import torch
import torch.nn as nn

from mo.errors import ConversionError
from tests.utils.runtime import run_ir
from tests.utils.torch_models import PATHS, convert_torch

N = 20000


def _run(module, inputs, tmp_path, path):
    xml = convert_torch(module, inputs, str(tmp_path), path)
    with torch.no_grad():
        expected = module(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    actual = run_ir(xml, [t.numpy() for t in inputs])
    assert [a.shape for a in actual] == [tuple(e.shape) for e in expected]
    assert [a.dtype for a in actual] == [e.numpy().dtype for e in expected]
    return actual, [e.numpy() for e in expected]


def _same_statistics(actual, expected, tol=0.05):
    """Mean and deviation within ``tol`` (relative to the deviation, at least 1) or within five
    standard errors of the difference of two samples of this size, whichever is wider."""
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    chance = 5 * e.std() * np.sqrt(2 / max(a.size, 1))
    assert abs(a.mean() - e.mean()) < max(tol * max(1.0, abs(e.std())), chance)
    assert abs(a.std() - e.std()) < max(tol * max(1.0, e.std()), chance)
    assert a.min() >= e.min() - 5 * e.std() and a.max() <= e.max() + 5 * e.std()


class Uniform(nn.Module):
    def forward(self, x):
        return torch.rand(x.shape[0], N // 4), torch.rand_like(x), torch.rand(N, dtype=torch.float64), \
            torch.empty(N).uniform_(-2.0, 3.0)


@pytest.mark.parametrize("path", PATHS)
def test_rand(tmp_path, path):
    actual, expected = _run(Uniform(), (torch.zeros(4, N // 4),), tmp_path, path)
    for a, e in zip(actual, expected):
        _same_statistics(a, e)
    assert all(0 <= a.min() and a.max() < 1 for a in actual[:3])
    assert -2 <= actual[3].min() and actual[3].max() < 3


class Normal(nn.Module):
    def forward(self, x, mean):
        return torch.randn(x.shape[0], N // 4), torch.randn_like(x), torch.normal(mean, 2.0), \
            torch.normal(3.0, 0.5, (N,)), torch.normal(mean, torch.full_like(mean, 0.1)), \
            torch.empty(N, dtype=torch.float64).normal_(-1.0, 4.0)


@pytest.mark.parametrize("path", PATHS)
def test_randn_and_normal(tmp_path, path):
    actual, expected = _run(Normal(), (torch.zeros(4, N // 4), torch.full((N,), 5.0)), tmp_path, path)
    for a, e in zip(actual, expected):
        _same_statistics(a, e)


class Integers(nn.Module):
    def forward(self, x):
        return torch.randint(3, 10, (N,)), torch.randint(5, (N // 2, 2), dtype=torch.int32), \
            torch.randint_like(x, 0, 4), torch.randperm(x.shape[0] * 100)


@pytest.mark.parametrize("path", PATHS)
def test_randint_and_randperm(tmp_path, path):
    actual, expected = _run(Integers(), (torch.zeros(50, 40, dtype=torch.int32),), tmp_path, path)
    for a, e in zip(actual[:3], expected[:3]):
        assert a.min() == e.min() and a.max() == e.max()
        _same_statistics(a, e)
    np.testing.assert_array_equal(np.sort(actual[3]), np.arange(5000))
    assert not np.array_equal(actual[3], np.arange(5000))


class Bernoulli(nn.Module):
    def forward(self, p):
        return torch.bernoulli(p), torch.bernoulli(torch.zeros_like(p), 0.25), torch.bernoulli(p.double())


@pytest.mark.parametrize("path", PATHS)
def test_bernoulli(tmp_path, path):
    p = torch.cat([torch.full((N // 2,), 0.2), torch.full((N // 2,), 0.9)])
    actual, _ = _run(Bernoulli(), (p,), tmp_path, path)
    for a in (actual[0], actual[2]):
        assert set(np.unique(a)) <= {0, 1}
        assert abs(a[:N // 2].mean() - 0.2) < 0.03 and abs(a[N // 2:].mean() - 0.9) < 0.03
    assert abs(actual[1].mean() - 0.25) < 0.03


class Multinomial(nn.Module):
    def forward(self, probs):
        return torch.multinomial(probs, 2000, replacement=True), torch.multinomial(probs[1], 4), \
            torch.multinomial(probs, 3)


@pytest.mark.parametrize("path", PATHS)
def test_multinomial(tmp_path, path):
    probs = torch.tensor([[0.1, 0.2, 0.7, 0.0], [1.0, 1.0, 1.0, 1.0]])
    actual, _ = _run(Multinomial(), (probs,), tmp_path, path)
    frequencies = np.stack([np.bincount(row, minlength=4) / row.size for row in actual[0]])
    np.testing.assert_allclose(frequencies, [[0.1, 0.2, 0.7, 0.0], [0.25] * 4], atol=0.04)
    assert sorted(actual[1].tolist()) == [0, 1, 2, 3]
    assert all(len(set(row)) == 3 for row in actual[2].tolist())


class Multinomial2d(nn.Module):
    def forward(self, probs):
        return torch.multinomial(probs, 1)


def test_multinomial_rank(tmp_path):
    """A TorchScript file given a rank-3 input (which PyTorch refuses too) is refused."""
    with pytest.raises(ConversionError, match="rank 1 or 2"):
        convert_torch(Multinomial2d(), (torch.rand(2, 3),), str(tmp_path), "ts_file", input="probs[2,3,4]")


class SortedDraws(nn.Module):
    """multinomial without replacement whose indices feed further ops (issue 21: the CPU plugin
    refused to compile the IR), of f64 probabilities and a count given as an input."""

    def forward(self, probs, count):
        drawn = torch.multinomial(probs, count, False)
        return torch.sort(drawn)[0], drawn.shape[1] * torch.ones_like(drawn)


@pytest.mark.parametrize("path", PATHS)
def test_multinomial_without_replacement_feeding_ops(tmp_path, path):
    probs = torch.tensor([[0.001, 0.001, 0.1, 0.9], [5, 10, 1e-5, 256], [1, 1e-5, 1e-5, 1e-5]], dtype=torch.float64)
    actual, _ = _run(SortedDraws(), (probs, torch.tensor(4)), tmp_path, path)
    assert (actual[0] == [[0, 1, 2, 3]] * 3).all()      # every class once, sorted


class WithGenerator(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = torch.Generator().manual_seed(1)

    def forward(self, x):
        return torch.bernoulli(x, generator=self.generator), torch.rand(x.shape, generator=self.generator)


def test_generator_argument_of_exported_program(tmp_path):
    """A torch.Generator argument (lifted into the exported program as a custom object): the IR
    draws its own numbers."""
    x = torch.full((N,), 0.25)
    program = torch.export.export(WithGenerator(), (x,))
    from mo import convert_model
    xml = convert_model(program, example_input=(x,), output_dir=str(tmp_path)).xml
    draws, uniform = run_ir(xml, [x.numpy()])
    assert set(np.unique(draws)) <= {0.0, 1.0} and abs(draws.mean() - 0.25) < 0.02
    assert 0 <= uniform.min() and uniform.max() < 1 and abs(uniform.mean() - 0.5) < 0.02
