"""infer of the Fourier transform ops."""
import numpy as np

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

