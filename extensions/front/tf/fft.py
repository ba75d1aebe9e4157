"""TensorFlow Fourier transforms: FFT / IFFT (1D, 2D, 3D) of complex tensors over their last
logical dims to DFT / IDFT, RFFT / IRFFT (1D, 2D, 3D) with their ``fft_length`` to RDFT / IRDFT.
Complex values are [..., 2] pairs (see the complex helpers of ``mo/graph/building.py``); the
transformed axes, counted from the back, are those of the logical tensor, as the opset's are."""
from __future__ import annotations

import numpy as np

from extensions.front.tf.complex import _parts_type
from mo.front.translator import complex_translator, translator
from mo.graph.building import INT64_MAX, convert, i64, is_complex, mark_complex, rank_of, shape_of, to_complex

# op type -> (opset op, number of innermost dims transformed)
COMPLEX_TRANSFORMS = {"FFT": ("DFT", 1), "FFT2D": ("DFT", 2), "FFT3D": ("DFT", 3),
                      "IFFT": ("IDFT", 1), "IFFT2D": ("IDFT", 2), "IFFT3D": ("IDFT", 3)}
REAL_TRANSFORMS = {"RFFT": ("RDFT", 1), "RFFT2D": ("RDFT", 2), "RFFT3D": ("RDFT", 3),
                   "IRFFT": ("IRDFT", 1), "IRFFT2D": ("IRDFT", 2), "IRFFT3D": ("IRDFT", 3)}


def _innermost(count: int) -> np.ndarray:
    return i64(list(range(-count, 0)))


def spectral(b, op: str, x, *inputs, complex_in: bool, complex_out: bool):
    """The opset transform ``op`` of ``x``, computed in f32 (the only float type besides f16 /
    bf16 the runtime's DFT ops take) and returned in x's type; complex ports marked."""
    et = x.data.get_dtype()
    wide = et == "f64"
    if wide:
        x = convert(b, x, "f32")
        if complex_in:
            mark_complex(x)
    out = b.op(op, x, *inputs)
    if wide:
        out = convert(b, out, et)
    return mark_complex(out) if complex_out else out


def fitted(b, node, x, sizes, count: int):
    """x with its ``count`` innermost logical dims cropped or zero-padded to ``sizes`` (a Pad, with
    negative pads where it crops: the runtime's RDFT / IRDFT take a signal size of their input's
    only)."""
    pairs = int(is_complex(x))
    shape = shape_of(b, x)
    end = b.Subtract(sizes, b.Slice(shape, i64(-count - pairs), i64(-pairs or INT64_MAX), i64(1), i64(0)))
    lead, tail = i64([0] * (rank_of(x, node) - count - pairs)), i64([0] * pairs)
    begin = b.Concat(lead, b.Multiply(end, np.int64(0)), tail, axis=0)
    padded = b.Pad(x, begin, b.Concat(lead, end, tail, axis=0), pad_mode="constant")
    return mark_complex(padded) if pairs else padded


@translator("tf", *COMPLEX_TRANSFORMS)
@complex_translator("tf", *COMPLEX_TRANSFORMS)
def fft(node, b):
    """DFT / IDFT over the innermost 1, 2 or 3 logical dims (IDFT scales by 1 / n as IFFT does)."""
    op, count = COMPLEX_TRANSFORMS[node.fw_op]
    x = to_complex(b, node.in_port(0).get_source())
    return [spectral(b, op, x, _innermost(count), complex_in=True, complex_out=True)]


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
        x = fitted(b, node, x, length, count)
        return [spectral(b, op, x, _innermost(count), complex_in=False, complex_out=True)]
    x = to_complex(b, x)
    half = b.Add(b.Divide(b.Slice(length, i64(-1), i64(INT64_MAX), i64(1), i64(0)), np.int64(2)), np.int64(1))
    x = fitted(b, node, x, b.Concat(b.Slice(length, i64(0), i64(-1), i64(1), i64(0)), half, axis=0), count)
    signal = spectral(b, op, x, _innermost(count), length, complex_in=True, complex_out=False)
    return [convert(b, signal, _parts_type(node, "Treal", "f32"))]
