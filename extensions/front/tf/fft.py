"""TensorFlow Fourier transforms: FFT / IFFT (1D, 2D, 3D) of complex tensors over their last
logical dims to DFT / IDFT, RFFT / IRFFT (1D, 2D, 3D) with their ``fft_length`` to RDFT / IRDFT.
Complex values are [..., 2] pairs (see the complex helpers of ``mo/graph/building.py``); the
transformed axes, counted from the back, are those of the logical tensor, as the opset's are."""
from __future__ import annotations

import numpy as np

from extensions.front.tf.complex import parts_type
from mo.front.translator import complex_translator, translator
from mo.graph.building import complex_rank, convert, fit_dims, i64, spectral, to_complex

# op type -> (opset op, number of innermost dims transformed)
COMPLEX_TRANSFORMS = {"FFT": ("DFT", 1), "FFT2D": ("DFT", 2), "FFT3D": ("DFT", 3),
                      "IFFT": ("IDFT", 1), "IFFT2D": ("IDFT", 2), "IFFT3D": ("IDFT", 3)}
REAL_TRANSFORMS = {"RFFT": ("RDFT", 1), "RFFT2D": ("RDFT", 2), "RFFT3D": ("RDFT", 3),
                   "IRFFT": ("IRDFT", 1), "IRFFT2D": ("IRDFT", 2), "IRFFT3D": ("IRDFT", 3)}


def _innermost(count: int) -> np.ndarray:
    return i64(list(range(-count, 0)))


@translator("tf", *COMPLEX_TRANSFORMS)
@complex_translator("tf", *COMPLEX_TRANSFORMS)
def fft(node, b):
    """DFT / IDFT over the innermost 1, 2 or 3 logical dims (IDFT scales by 1 / n as IFFT does)."""
    op, count = COMPLEX_TRANSFORMS[node.fw_op]
    x = to_complex(b, node.in_port(0).get_source())
    return [spectral(b, op, x, _innermost(count), complex_out=True)]


@translator("tf", *REAL_TRANSFORMS)
@complex_translator("tf", *REAL_TRANSFORMS)
def rfft(node, b):
    """RFFT: RDFT of the real input, each transformed dim cropped or zero-padded to
    ``fft_length``; IRFFT: IRDFT to a real signal of ``fft_length`` (the innermost spectrum dim
    taken to fft_length / 2 + 1 values, the others to fft_length)."""
    op, count = REAL_TRANSFORMS[node.fw_op]
    x, length = (node.in_port(i).get_source() for i in range(2))
    length = convert(b, length, "i64")
    axes = list(range(complex_rank(x, node) - count, complex_rank(x, node)))
    if op == "RDFT":
        return [spectral(b, op, fit_dims(b, x, axes, length), _innermost(count), complex_out=True)]
    half = b.Add(b.Divide(b.Gather(length, np.int64(count - 1), np.int64(0)), np.int64(2)), np.int64(1))
    sizes = [b.Gather(length, np.int64(i), np.int64(0)) for i in range(count - 1)] + [half]
    x = fit_dims(b, to_complex(b, x), axes, sizes)
    signal = spectral(b, op, x, _innermost(count), length, complex_out=False)
    return [convert(b, signal, parts_type(node, "Treal", "f32"))]
