"""Layer tests of ATen complex numbers: the complex views and constructors (view_as_real,
view_as_complex, complex, polar, real, imag, angle, conj) and complex tensors through ordinary
ops, through the three capture paths; complex64 and complex128 (from f32 / f64 parts). Complex
outputs are compared as [..., 2] pairs (tests/utils/runtime.py)."""
import pytest
import torch

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)
DTYPES = [torch.float32, torch.float64]


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, y):
        return self.fn(x, y)


def inputs(dtype):
    return torch.randn(2, 3, 4, dtype=dtype), torch.randn(2, 3, 4, dtype=dtype)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_views_and_parts(tmp_path, path, dtype):
    def fn(x, y):
        z = torch.complex(x, y)
        w = torch.view_as_complex(torch.stack([y, x], -1))
        return (z, torch.view_as_real(w), z.real, z.imag, torch.real(w), torch.imag(w), torch.angle(z),
                torch.angle(x), torch.polar(x.abs(), y), z.conj(), torch.conj_physical(w), x.real)
    check_module(Fn(fn), inputs(dtype), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_arithmetic(tmp_path, path, dtype):
    def fn(x, y):
        z, w = torch.complex(x, y), torch.complex(y, x[0])
        return z + w, z - w, z * w, z / w, -z, z.abs(), z * 2.5, z + x, w / y, torch.add(z, w, alpha=2), \
            torch.sub(z, w, alpha=0.5), z * z.conj()
    check_module(Fn(fn), inputs(dtype), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_python_complex_numbers(tmp_path, path):
    """Python complex scalars (wrapped numbers, or complex128 constants in a TorchScript file) take
    the tensor's type."""
    def fn(x, y):
        z = torch.complex(x, y)
        return z * 1j, z + (2 - 1j), torch.exp(1j * x), (0.5 + 0.5j) - z, z / (1 + 1j)
    check_module(Fn(fn), inputs(torch.float32), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_shapes(tmp_path, path):
    def fn(x, y):
        z = torch.complex(x, y)
        return (z.reshape(6, 4), z.view(-1), z.permute(2, 0, 1), z.transpose(0, -1), z.unsqueeze(-1),
                z.unsqueeze(0), z[:1].squeeze(0), z.unsqueeze(1).squeeze(), torch.cat([z, z * 2], -1),
                torch.cat([z, z], 0), torch.stack([z, -z], 1), z.select(1, 2), z.select(-1, 0), z.clone(),
                z.transpose(1, 2).contiguous())
    check_module(Fn(fn), inputs(torch.float32), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_more_ops(tmp_path, path):
    def fn(x, y):
        z = torch.complex(x, y)
        return (torch.exp(z), torch.log(z), torch.sqrt(z), torch.rsqrt(z), z.flip(-1), z.flip((0, 1)),
                torch.fft.fftshift(z, dim=(-2, -1)), torch.fft.ifftshift(z, dim=1), z.roll(1, 0), z.flatten(),
                z.flatten(1), z[:, :1].expand(-1, 3, -1), z.expand(2, 2, 3, 4), z.repeat(1, 2, 1),
                z @ z.transpose(1, 2), torch.matmul(z[0], z[0].T.conj()))
    check_module(Fn(fn), inputs(torch.float32), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_mean(tmp_path, path, keepdim):
    def fn(x, y):
        z = torch.complex(x, y)
        return z.sum(-1, keepdim=keepdim), z.mean((0, 2), keepdim=keepdim), z.sum()
    check_module(Fn(fn), inputs(torch.float32), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_spectral_filter(tmp_path, path):
    """A frequency-domain filter: rfft, a complex gain, irfft."""
    def fn(x, y):
        spectrum = torch.fft.rfft(x)
        gain = torch.polar(torch.ones_like(spectrum.real), spectrum.real * 0.1)
        return torch.fft.irfft(spectrum * gain, n=x.shape[-1]), torch.view_as_real(spectrum * gain).sum(-1)
    check_module(Fn(fn), inputs(torch.float32), tmp_path, path)


class ComplexIn(torch.nn.Module):
    def forward(self, z, x):
        return z * x, torch.fft.ifft(z), z.real, (z * z.conj()).real, torch.view_as_real(z + 1), z.abs()


@pytest.mark.parametrize("path", PATHS)     # ts_file: --input "z[3,4]{complex64}"
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_model_inputs(tmp_path, path, dtype):
    """Complex model inputs and outputs are [..., 2] pairs in the IR."""
    z = torch.randn(3, 4, dtype=dtype)
    check_module(ComplexIn(), (z, torch.randn(3, 4, dtype=z.real.dtype)), tmp_path, path)


class ComplexConst(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("gain", torch.tensor([1 + 2j, -1j, 0.5, 2 - 1j], dtype=torch.complex64))

    def forward(self, x, y):
        return torch.view_as_real(torch.fft.fft(x) * self.gain)


@pytest.mark.parametrize("path", PATHS)
def test_complex_constant(tmp_path, path):
    check_module(ComplexConst(), inputs(torch.float32), tmp_path, path)


class Casts(torch.nn.Module):
    def forward(self, x, y):
        import warnings
        z = x.to(torch.complex64) * torch.complex(x, y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # complex to real discards the imaginary part
            real = z.to(torch.float32)
        return z, z.to(torch.complex128), real, x.type(torch.complex128), y.to(torch.cfloat), z.type_as(z)


@pytest.mark.parametrize("path", PATHS)
def test_casts(tmp_path, path):
    check_module(Casts(), inputs(torch.float32), tmp_path, path)


class HalfComplex(torch.nn.Module):
    """complex32 (chalf): [..., 2] pairs of f16 (issue 21: the type was refused)."""

    def forward(self, x):
        return torch.view_as_real(x.to(torch.complex32)).float(), x.chalf().to(torch.complex64).real


@pytest.mark.parametrize("path", PATHS)
def test_complex32(path, tmp_path):
    check_module(HalfComplex(), (torch.randn(2, 3),), tmp_path, path, rtol=1e-3, atol=1e-3)
