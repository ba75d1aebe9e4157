"""TensorFlow Fourier transforms: FFT / IFFT (1D, 2D, 3D) of complex tensors over their last
logical dims to DFT / IDFT, RFFT / IRFFT (1D, 2D, 3D) with their ``fft_length`` to RDFT / IRDFT.
Complex values are [..., 2] pairs (see the complex helpers of ``mo/graph/building.py``); the
transformed axes, counted from the back, are those of the logical tensor, as the opset's are."""
from __future__ import annotations

import numpy as np

from extensions.front.tf.complex import _parts_type
from mo.front.translator import complex_translator, translator
from mo.graph.building import convert, i64, is_complex, mark_complex, to_complex

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
    return [mark_complex(b.op(op, x, _innermost(count)))]


@translator("tf", *REAL_TRANSFORMS)
@complex_translator("tf", *REAL_TRANSFORMS)
def rfft(node, b):
    """RFFT: RDFT of the real input, each transformed dim cropped or zero-padded to
    ``fft_length``; IRFFT: IRDFT to a real signal of ``fft_length`` (the innermost spectrum dim
    taken to fft_length / 2 + 1 values, the others to fft_length)."""
    op, count = REAL_TRANSFORMS[node.fw_op]
    x, length = (node.in_port(i).get_source() for i in range(2))
    length = convert(b, length, "i64")
    if op == "RDFT":
        return [mark_complex(b.RDFT(x, _innermost(count), length))]
    if not is_complex(x):
        x = to_complex(b, x)
    return [convert(b, b.IRDFT(x, _innermost(count), length), _parts_type(node, "Treal", "f32"))]
