"""Fourier transforms: DFT, IDFT (complex in and out, the last dim holding real and imaginary
parts), RDFT (real in), IRDFT (real out) and STFT. Input 1 lists the transformed axes, the
optional input 2 the signal size along them (trimmed or zero-padded)."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import DYN, normalize_axes


def transform_axes(node, rank: int) -> list[int] | None:
    """The transformed axes of a tensor of ``rank`` (negative ones counted from the back), or
    None when input 1 is not constant."""
    axes = node.in_value(1)
    if axes is None:
        return None
    return normalize_axes(axes.reshape(-1).tolist(), rank)


def signal_sizes(node, count: int) -> list[int] | None:
    """The sizes of input 2 (-1: keep the input's), all -1 without it, None when not constant."""
    if not node.is_in_port_connected(2):
        return [-1] * count
    sizes = node.in_value(2)
    return None if sizes is None else [int(s) for s in sizes.reshape(-1)]


def as_complex(x: np.ndarray) -> np.ndarray:
    """[..., 2] (real, imaginary) -> complex [...]."""
    return x[..., 0].astype(np.float64) + 1j * x[..., 1].astype(np.float64)


def as_pairs(c: np.ndarray, dtype) -> np.ndarray:
    """complex [...] -> [..., 2] (real, imaginary) of ``dtype``."""
    return np.stack([c.real, c.imag], axis=-1).astype(dtype)


class DFT(Op):
    """Complex-to-complex forward transform of [..., 2] over the axes of input 1."""

    op = "DFT"
    version = "opset7"
    transform = staticmethod(np.fft.fftn)

    @classmethod
    def transform_args(cls, shape: tuple, axes, sizes) -> tuple[list[int], list[int]]:
        """(axes, signal sizes) for numpy: negative axes of a signal of len(shape) dims counted
        from the back, a size -1 as the signal's own."""
        axes = normalize_axes(np.asarray(axes).reshape(-1).tolist(), len(shape))
        sizes = [-1] * len(axes) if sizes is None else [int(v) for v in np.asarray(sizes).reshape(-1)]
        return axes, [shape[a] if n == -1 else n for a, n in zip(axes, sizes)]

    @classmethod
    def evaluate(cls, node, x, axes, sizes=None):
        signal = as_complex(x)
        axes, sizes = cls.transform_args(signal.shape, axes, sizes)
        return as_pairs(cls.transform(signal, s=sizes, axes=axes), x.dtype)

    @classmethod
    def spectral_shape(cls, node, shape: tuple, rank: int):
        """(``shape`` with its transformed dims (axes of a signal of ``rank``) replaced by the
        signal sizes, the axes, the sizes), or Nones when the axes or sizes are not constant."""
        axes = transform_axes(node, rank)
        sizes = None if axes is None else signal_sizes(node, len(axes))
        if sizes is None:
            return None, None, None
        out = list(shape)
        for axis, size in zip(axes, sizes):
            if size != -1:
                out[axis] = size
        return out, axes, sizes

    @classmethod
    def infer_shapes(cls, node):
        x = node.in_shape(0)
        if x is None:
            return [None]
        out, _, _ = cls.spectral_shape(node, x, len(x) - 1)
        return [(DYN,) * (len(x) - 1) + (2,) if out is None else tuple(out)]


class IDFT(DFT):
    """Complex-to-complex inverse transform (normalized by the signal size)."""

    op = "IDFT"
    type = "IDFT"
    transform = staticmethod(np.fft.ifftn)


class RDFT(DFT):
    """Real-to-complex forward transform: the last transformed axis keeps n // 2 + 1 values."""

    op = "RDFT"
    type = "RDFT"
    version = "opset9"

    @classmethod
    def evaluate(cls, node, x, axes, sizes=None):
        axes, sizes = cls.transform_args(x.shape, axes, sizes)
        return as_pairs(np.fft.rfftn(x.astype(np.float64), s=sizes, axes=axes), x.dtype)

    @classmethod
    def infer_shapes(cls, node):
        x = node.in_shape(0)
        out, axes, _ = cls.spectral_shape(node, x, len(x)) if x is not None else (None, None, None)
        if out is None:
            return [None if x is None else (DYN,) * len(x) + (2,)]
        last = out[axes[-1]]
        out[axes[-1]] = DYN if last < 0 else last // 2 + 1
        return [tuple(out) + (2,)]


class IRDFT(DFT):
    """Complex-to-real inverse transform of a one-sided spectrum: the last transformed axis
    becomes 2 * (n - 1) long unless a signal size is given."""

    op = "IRDFT"
    type = "IRDFT"
    version = "opset9"

    @classmethod
    def evaluate(cls, node, x, axes, sizes=None):
        spectrum = as_complex(x)
        last_given = sizes is not None and int(np.asarray(sizes).reshape(-1)[-1]) != -1
        axes, sizes = cls.transform_args(spectrum.shape, axes, sizes)
        if not last_given:
            sizes[-1] = 2 * (spectrum.shape[axes[-1]] - 1)
        return np.fft.irfftn(spectrum, s=sizes, axes=axes).astype(x.dtype)

    @classmethod
    def infer_shapes(cls, node):
        x = node.in_shape(0)
        out, axes, sizes = cls.spectral_shape(node, x[:-1], len(x) - 1) if x is not None else (None, None, None)
        if out is None:
            return [None if x is None else (DYN,) * (len(x) - 1)]
        if sizes[-1] == -1:
            n = x[axes[-1]]
            out[axes[-1]] = DYN if n < 0 else 2 * (n - 1)
        return [tuple(out)]


class STFT(Op):
    """Short-time transform of a real signal [batch, length] (or [length]) with a window,
    frame_size and frame_step -> [batch, frames, frame_size // 2 + 1, 2] (frames and bins
    swapped with ``transpose_frames``)."""

    op = "STFT"
    version = "opset15"
    defaults = {"transpose_frames": False}
    ir_attrs = ("transpose_frames",)

    @classmethod
    def evaluate(cls, node, signal, window, size, step):
        """Frames of ``frame_size`` every ``frame_step`` values, times the window (centred and
        zero-padded to the frame size), one-sided spectrum of each."""
        size, step = int(np.asarray(size).reshape(-1)[0]), int(np.asarray(step).reshape(-1)[0])
        left = (size - window.size) // 2
        padded = np.zeros(size)
        padded[left:left + window.size] = window
        frames = np.lib.stride_tricks.sliding_window_view(signal.astype(np.float64), size, axis=-1)[..., ::step, :]
        spectrum = as_pairs(np.fft.rfft(frames * padded, axis=-1), signal.dtype)    # [..., frames, bins, 2]
        return np.swapaxes(spectrum, -2, -3) if node.transpose_frames else spectrum

    @classmethod
    def infer_shapes(cls, node):
        signal, size, step = node.in_shape(0), node.in_value(2), node.in_value(3)
        if signal is None:
            return [None]
        bins = frames = DYN
        if size is not None:
            size = int(size.reshape(()))
            bins = size // 2 + 1
            if step is not None and signal[-1] >= 0:
                frames = (signal[-1] - size) // int(step.reshape(())) + 1
        spectrum = (bins, frames) if node.transpose_frames else (frames, bins)
        return [tuple(signal[:-1]) + spectrum + (2,)]
