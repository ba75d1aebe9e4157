"""Layer tests of the ATen Fourier transforms (fft_* with signal sizes and norm modes), stft,
istft and hann_window, through the three capture paths. Complex outputs are compared as [..., 2]
pairs (tests/utils/runtime.py)."""
import pytest
import torch

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)
X = torch.randn(2, 6, 8)


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class Fn2(Fn):
    def forward(self, x, y):
        return self.fn(x, y)


NORMS = [None, "forward", "ortho"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("norm", NORMS)
def test_fft_1d(tmp_path, path, norm):
    def fn(x):
        spectrum = torch.fft.rfft(x, norm=norm)
        return (torch.fft.fft(x, norm=norm), torch.fft.fft(x, n=5, dim=1, norm=norm),
                torch.fft.ifft(x, n=10, norm=norm), spectrum, torch.fft.rfft(x, n=11, dim=-2, norm=norm),
                torch.fft.irfft(spectrum, norm=norm),
                torch.fft.irfft(spectrum, n=7, norm=norm), torch.fft.ifft(torch.fft.fft(x, norm=norm), norm=norm))
    check_module(Fn(fn), (X,), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("norm", NORMS)
def test_fft_2d_nd(tmp_path, path, norm):
    def fn(x):
        spectrum = torch.fft.rfft2(x, norm=norm)
        return (torch.fft.fft2(x, norm=norm), torch.fft.ifft2(x, s=(4, 9), norm=norm), spectrum,
                torch.fft.irfft2(spectrum, norm=norm), torch.fft.irfft2(spectrum, s=(5, 6), norm=norm),
                torch.fft.fftn(x, norm=norm), torch.fft.ifftn(x, dim=(0, 2), norm=norm),
                torch.fft.rfftn(x, s=(3, 4), norm=norm), torch.fft.irfftn(torch.fft.rfftn(x), dim=(0, 1, 2), norm=norm))
    check_module(Fn(fn), (X,), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_fft_of_complex_and_f64(tmp_path, path):
    """A complex signal built from a real one, and an f64 one (computed in f32 by the runtime)."""
    def fn(x, y):
        z = torch.view_as_complex(torch.stack([x, -x], -1))
        return torch.view_as_real(torch.fft.fft(z)), torch.fft.irfft(torch.fft.fft2(z)), torch.fft.rfft(y)
    check_module(Fn2(fn), (X, torch.randn(3, 8, dtype=torch.float64)), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("periodic", [True, False])
def test_hann_window(tmp_path, path, periodic):
    def fn(x):
        return x * torch.hann_window(8, periodic=periodic), torch.hann_window(1, periodic=periodic), \
            torch.hann_window(5, periodic=periodic, dtype=torch.float64)
    check_module(Fn(fn), (X,), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("n", [1, 7, 8])
def test_fftfreq(tmp_path, path, n):
    def fn(x):
        return x[0, 0, :1] * torch.fft.fftfreq(n), torch.fft.rfftfreq(n, 0.5), \
            torch.fft.fftfreq(n, 2.0, dtype=torch.float64)
    check_module(Fn(fn), (X,), tmp_path, path)


STFTS = {
    "hann": dict(n_fft=8, hop_length=2, window=torch.hann_window(8)),
    "default_hop_no_window": dict(n_fft=8),
    "short_window_normalized": dict(n_fft=8, hop_length=3, win_length=6, window=torch.hann_window(6),
                                    normalized=True),
    "no_center": dict(n_fft=6, hop_length=2, center=False),
    "constant_pad": dict(n_fft=8, hop_length=4, pad_mode="constant"),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("args", STFTS.values(), ids=STFTS.keys())
@pytest.mark.parametrize("batch", [True, False])
def test_stft(tmp_path, path, args, batch):
    x = torch.randn(2, 40) if batch else torch.randn(40)
    check_module(Fn(lambda s: torch.stft(s, return_complex=True, **args)), (x,), tmp_path, path)


ISTFTS = {
    "hann": dict(n_fft=8, hop_length=2, window=torch.hann_window(8)),
    "length": dict(n_fft=8, hop_length=2, window=torch.hann_window(8), length=30),
    "short_window_normalized": dict(n_fft=8, hop_length=2, win_length=6, window=torch.hann_window(6),
                                    normalized=True),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("args", ISTFTS.values(), ids=ISTFTS.keys())
@pytest.mark.parametrize("batch", [True, False])
def test_istft_round_trip(tmp_path, path, args, batch):
    """istft(stft(x)) gives x back (to the rounding of the two transforms)."""
    x = torch.randn(2, 40) if batch else torch.randn(40)
    forward = {k: v for k, v in args.items() if k != "length"}

    def fn(s):
        return torch.istft(torch.stft(s, return_complex=True, **forward), **args)
    check_module(Fn(fn), (x,), tmp_path, path)


class StftVariants(torch.nn.Module):
    def forward(self, x):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pairs = torch.stft(x, 8, hop_length=2, window=torch.hann_window(8), return_complex=False)
        wide = torch.stft(x.double(), 8, hop_length=2, window=torch.hann_window(8, dtype=torch.float64),
                          return_complex=True)
        return pairs, wide, x * torch.hann_window(x.shape[-1], dtype=torch.float64)


@pytest.mark.parametrize("path", PATHS)
def test_stft_real_pairs_f64_and_window_of_input_length(tmp_path, path):
    """return_complex=False gives the real [..., 2] form; an f64 STFT (computed in f32); a window
    as long as the input."""
    check_module(StftVariants(), (torch.randn(2, 32),), tmp_path, path)


class Hermitian(torch.nn.Module):
    """hfft / ihfft and their 2-D and n-D forms: the real transforms of the conjugate."""

    def forward(self, z, x):
        def real(t):
            return torch.view_as_real(t.resolve_conj())
        return torch.fft.hfft(z), torch.fft.hfft(z, n=7, norm="ortho"), real(torch.fft.ihfft(x)), \
            real(torch.fft.ihfft(x, norm="forward")), torch.fft.hfft2(z), real(torch.fft.ihfftn(x, dim=(0, 1))), \
            torch.fft.hfftn(z, s=(3, 6))


@pytest.mark.parametrize("path", PATHS)
def test_hermitian_transforms(path, tmp_path):
    z = torch.randn(3, 4, dtype=torch.complex64)
    check_module(Hermitian(), (z, torch.randn(3, 6)), tmp_path, path, rtol=1e-4, atol=1e-4)
