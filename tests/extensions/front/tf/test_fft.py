"""Layer tests of the TensorFlow Fourier transforms (FFT, IFFT, RFFT, IRFFT in 1, 2 and 3 dims);
complex128 / float64 ones are computed in f32 (the runtime's DFT ops take no f64), hence the
f32 tolerances."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

raw = tf.raw_ops


def complex_input(shape, dtype=np.complex64, seed=0) -> np.ndarray:
    return (random(shape, seed=seed) + 1j * random(shape, seed=seed + 1)).astype(dtype)


@pytest.mark.parametrize("op", ["FFT", "FFT2D", "FFT3D", "IFFT", "IFFT2D", "IFFT3D"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_fft(tmp_path, op, dtype):
    check_tf(tmp_path, lambda x: getattr(raw, op)(input=x), [complex_input((2, 3, 4, 5), dtype)])


def test_fft_dynamic_batch(tmp_path):
    check_tf(tmp_path, lambda x: tf.signal.fft2d(x) * 2, [complex_input((3, 4, 6))], dynamic_batch=True)


@pytest.mark.parametrize("length", [None, [8], [5], [12]])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rfft(tmp_path, length, dtype):
    check_tf(tmp_path, lambda x: tf.signal.rfft(x, length), [random((3, 8), dtype)])


@pytest.mark.parametrize("op, length", [("RFFT2D", [4, 6]), ("RFFT2D", [3, 4]), ("RFFT3D", [2, 4, 6]),
                                        ("RFFT3D", [1, 3, 5])])
def test_rfft_nd(tmp_path, op, length):
    check_tf(tmp_path, lambda x: getattr(raw, op)(input=x, fft_length=length), [random((2, 2, 4, 6))],
             dynamic_batch=True)


@pytest.mark.parametrize("length", [None, [8], [6], [9]])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_irfft(tmp_path, length, dtype):
    check_tf(tmp_path, lambda x: tf.signal.irfft(x, length), [complex_input((3, 5), dtype)])


@pytest.mark.parametrize("op, length", [("IRFFT2D", [4, 6]), ("IRFFT2D", [3, 4]), ("IRFFT3D", [2, 4, 6]),
                                        ("IRFFT3D", [1, 3, 5])])
def test_irfft_nd(tmp_path, op, length):
    check_tf(tmp_path, lambda x: getattr(raw, op)(input=x, fft_length=length), [complex_input((2, 2, 4, 4))])


def test_rfft_length_at_run_time(tmp_path):
    """fft_length computed by the model (from the input's shape)."""
    check_tf(tmp_path, lambda x: tf.signal.rfft(x, tf.shape(x)[-1:] - 2), [random((3, 8))], dynamic_batch=True)


def test_spectrum_round_trip(tmp_path):
    """A spectrogram-style chain: RFFT, magnitude, back through IRFFT of the complex spectrum."""
    def fn(x):
        spectrum = tf.signal.rfft(x)
        return tf.abs(spectrum), tf.signal.irfft(spectrum * tf.complex(tf.constant(0.5), tf.constant(0.0)))
    check_tf(tmp_path, fn, [random((2, 16))], dynamic_batch=True)


SIGNAL_PIPELINES = {
    "stft_magnitude": lambda x: tf.abs(tf.signal.stft(x, 16, 4)),
    "stft_padded_fft": lambda x: tf.signal.stft(x, 16, 8, fft_length=32),
    "inverse_stft": lambda x: tf.signal.inverse_stft(tf.signal.stft(x, 16, 4), 16, 4),
    "mfccs": lambda x: tf.signal.mfccs_from_log_mel_spectrograms(tf.math.log(tf.abs(tf.signal.stft(x, 16, 4)) + 1e-6)),
}


@pytest.mark.parametrize("fn", SIGNAL_PIPELINES.values(), ids=SIGNAL_PIPELINES.keys())
@pytest.mark.parametrize("dynamic", [False, True])
def test_tf_signal_pipelines(tmp_path, fn, dynamic):
    """tf.signal's STFT, inverse STFT and MFCCs: frames, windows and RFFT / IRFFT together."""
    check_tf(tmp_path, fn, [random((2, 64))], dynamic_batch=dynamic)
