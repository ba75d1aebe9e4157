"""Fourier transforms: DFT, IDFT (complex in and out, the last dim holding real and imaginary
parts), RDFT (real in), IRDFT (real out) and STFT. Input 1 lists the transformed axes, the
optional input 2 the signal size along them (trimmed or zero-padded)."""
from __future__ import annotations

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


class DFT(Op):
    """Complex-to-complex forward transform of [..., 2] over the axes of input 1."""

    op = "DFT"
    version = "opset7"

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


class RDFT(DFT):
    """Real-to-complex forward transform: the last transformed axis keeps n // 2 + 1 values."""

    op = "RDFT"
    type = "RDFT"
    version = "opset9"

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
