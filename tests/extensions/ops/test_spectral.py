"""infer of the Fourier transform ops; evaluate of the transforms against torch.fft."""
import numpy as np
import pytest
import torch

from tests.utils.graphs import infer_op


def test_dft_keeps_shape_or_takes_signal_size():
    (out,) = infer_op("DFT", ((1, 10, -1, 2), "f32"), np.array([1]))
    assert out.data.get_shape() == (1, 10, -1, 2)
    (out,) = infer_op("IDFT", ((1, 10, 8, 2), "f32"), np.array([-2]), np.array([16]))
    assert out.data.get_shape() == (1, 16, 8, 2)     # -2 counts from the back of [1, 10, 8] (no complex dim)


def test_rdft_and_irdft_shapes():
    (out,) = infer_op("RDFT", ((1, 10, 10), "f32"), np.array([1]))
    assert out.data.get_shape() == (1, 6, 10, 2)
    (out,) = infer_op("IRDFT", ((1, 6, 10, 2), "f32"), np.array([1]))
    assert out.data.get_shape() == (1, 10, 10)
    (out,) = infer_op("RDFT", ((1, 10, 10), "f32"), ((1,), "i64"))
    assert out.data.get_shape() == (-1, -1, -1, 2)


def test_stft_frames_and_bins():
    (out,) = infer_op("STFT", ((1, 128), "f32"), ((16,), "f32"), np.int64(16), np.int64(8))
    assert out.data.get_shape() == (1, 15, 9, 2)


# ---------------------------------------------------------------------------------- evaluate
RNG = np.random.default_rng(8)
SIGNAL = RNG.standard_normal((2, 5, 6, 2)).astype(np.float32)      # complex [2, 5, 6] as (real, imaginary)
REAL = RNG.standard_normal((2, 5, 6)).astype(np.float32)


def _value(op, *inputs, **attrs):
    (out,) = infer_op(op, *inputs, **attrs)
    return out.data.get_value()


def _pairs(t):
    return torch.view_as_real(t).numpy()


@pytest.mark.parametrize("axes,sizes", [([1, 2], None), ([-1], None), ([2, 0], [4, 3]), ([1], [8])])
def test_dft_and_idft_evaluate_as_torch_fft(axes, sizes):
    complex_signal = torch.view_as_complex(torch.from_numpy(SIGNAL))
    extra = [] if sizes is None else [np.array(sizes, np.int64)]
    expected = _pairs(torch.fft.fftn(complex_signal, s=sizes, dim=axes))
    np.testing.assert_allclose(_value("DFT", SIGNAL, np.array(axes, np.int64), *extra), expected, rtol=1e-4,
                               atol=1e-4)
    expected = _pairs(torch.fft.ifftn(complex_signal, s=sizes, dim=axes))
    np.testing.assert_allclose(_value("IDFT", SIGNAL, np.array(axes, np.int64), *extra), expected, rtol=1e-4,
                               atol=1e-5)


@pytest.mark.parametrize("axes,sizes", [([1, 2], None), ([2], [4]), ([0, 1], [2, 4])])
def test_rdft_and_irdft_evaluate_as_torch_fft(axes, sizes):
    extra = [] if sizes is None else [np.array(sizes, np.int64)]
    spectrum = torch.fft.rfftn(torch.from_numpy(REAL), s=sizes, dim=axes)
    np.testing.assert_allclose(_value("RDFT", REAL, np.array(axes, np.int64), *extra), _pairs(spectrum), rtol=1e-4,
                               atol=1e-4)
    pairs = _pairs(spectrum)
    expected = torch.fft.irfftn(spectrum, s=sizes, dim=axes).numpy()
    np.testing.assert_allclose(_value("IRDFT", pairs, np.array(axes, np.int64), *extra), expected, rtol=1e-4,
                               atol=1e-5)


@pytest.mark.parametrize("window,frame,step,transpose", [(16, 16, 4, False), (10, 16, 5, True), (8, 9, 3, False)])
def test_stft_evaluates_as_torch(window, frame, step, transpose):
    signal = RNG.standard_normal((2, 40)).astype(np.float32)
    w = RNG.random(window).astype(np.float32)
    padded = np.zeros(frame, np.float32)
    padded[(frame - window) // 2:(frame - window) // 2 + window] = w     # the window centred in the frame
    expected = _pairs(torch.stft(torch.from_numpy(signal), frame, step, window=torch.from_numpy(padded),
                                 center=False, return_complex=True))          # [batch, bins, frames]
    out = _value("STFT", signal, w, np.array(frame, np.int64), np.array(step, np.int64), transpose_frames=transpose)
    np.testing.assert_allclose(out, expected if transpose else expected.transpose(0, 2, 1, 3), rtol=1e-4, atol=1e-4)
