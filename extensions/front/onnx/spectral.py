"""ONNX DFT, STFT, the window functions (Hann, Hamming, Blackman) and MelWeightMatrix: extractors
and translators. Sizes that the model computes stay run-time tensors."""
from __future__ import annotations

import math

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import element_type_of
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import as_scalar, convert, dim, i64, norm_axis, rank_of, scalar_like, shape_of, static_dim
from mo.graph.port import Port

# Cosine-sum coefficients (a0, a1, a2) of the ONNX windows.
WINDOWS = {"HannWindow": (0.5, 0.5, 0.0), "HammingWindow": (25 / 46, 21 / 46, 0.0),
           "BlackmanWindow": (0.42, 0.5, 0.08)}


def output_type(ext, node) -> str:
    return element_type_of(int(ext.attr(node, "output_datatype", 1)), f" of node '{node.name}'")


def f32_scalar(b: OpBuilder, port: Port) -> Port:
    """A 1-element tensor as an f32 scalar."""
    return convert(b, as_scalar(b, port), "f32")


# ---------------------------------------------------------------------------- DFT


class DFTExtractor(OnnxExtractor):
    """DFT: ``inverse``, ``onesided``; ``axis`` is an attribute before opset 20 (default 1), input
    2 from it (None here)."""

    op_types = ("DFT",)

    @classmethod
    def extract(cls, node):
        node.update({"inverse": bool(cls.attr(node, "inverse", 0)), "onesided": bool(cls.attr(node, "onesided", 0)),
                     "axis": int(cls.attr(node, "axis", 1)) if node.opset < 20 else None})


def dft_axis(node) -> int | None:
    """The DFT axis as a number: the attribute, input 2's value, -2 without either; None when
    input 2 is computed at run time."""
    if node.axis is not None:
        return node.axis
    if not node.is_in_port_connected(2):
        return -2
    value = node.in_port(2).data.get_value()
    return None if value is None else int(value.reshape(()))


def full_spectrum(b: OpBuilder, half: Port, axis: int, length: int | Port) -> Port:
    """The two-sided spectrum of a real signal from its one-sided one (bins 0..n/2): bin k > n/2
    is the conjugate of bin n - k; ``length`` n is a number or a run-time scalar. RDFT is more
    accurate than DFT of a zero-imaginary input."""
    if isinstance(length, int):
        mirrored = np.array([length - k for k in range(length // 2 + 1, length)], np.int64)
        if not mirrored.size:
            return half
    else:
        first = b.Add(b.Divide(length, np.int64(2)), np.int64(1))
        mirrored = b.Subtract(length, b.Range(first, length, np.int64(1), output_type="i64"))
    conjugate = b.Multiply(b.Gather(half, mirrored, np.int64(axis)), np.array([1, -1], np.float32))
    return b.Concat(half, convert(b, conjugate, half.data.get_dtype()), axis=axis)


def swap_with_last(b: OpBuilder, axis: Port, rank: int) -> Port:
    """The permutation of ``rank`` dims that swaps ``axis`` (a run-time [1] tensor) with the last
    one; it is its own inverse. RDFT / IRDFT need constant axes on the CPU, so a run-time axis is
    moved last around them."""
    dims = b.Range(np.int64(0), np.int64(rank), np.int64(1), output_type="i64")
    last = np.int64(rank - 1)
    return b.Select(b.Equal(dims, axis), last, b.Select(b.Equal(dims, last), axis, dims))


def signal_length(b: OpBuilder, node, x: Port, size: Port | None, axis: int) -> int | Port:
    """The transform length along ``axis`` of x: dft_length or x's size, a number when known
    (see ``static_dim``), else a run-time scalar."""
    if size is None:
        known = static_dim(x, axis)
        return dim(b, x, axis) if known is None else known
    value = node.in_port(1).data.get_value()
    return as_scalar(b, size) if value is None else int(value.reshape(()))


@translator("onnx", "DFT")
def dft(node, b):
    """forward: real + onesided -> RDFT, else DFT (a real input gets a zero imaginary part; a
    real two-sided one is RDFT completed by conjugates); inverse: onesided -> IRDFT (real output
    [..., 1]), else IDFT. Real or complex ([..., 1] or [..., 2]) must be known."""
    x = node.in_port(0).get_source()
    shape = x.data.get_shape()
    if shape is None or shape[-1] not in (1, 2):
        raise ConversionError("the DFT needs an input whose last dim is known to be 1 (real) or 2 (complex); give "
                              "the model input shapes with --input")
    rank, real = rank_of(x, node), shape[-1] == 1
    axis = dft_axis(node)
    if axis is not None:
        axes = i64(norm_axis(axis, rank, node))
    else:                # axis given as a run-time input: made positive
        axes = b.FloorMod(b.Reshape(node.in_port(2).get_source(), i64(1), special_zero=False), np.int64(rank))
    size = b.Reshape(node.in_port(1).get_source(), i64(1), special_zero=False) if node.is_in_port_connected(1) \
        else None
    last = i64(-1)
    if node.inverse and node.onesided:
        if real:
            raise ConversionError("an inverse one-sided DFT needs a complex input ([..., 2])")
        if isinstance(axes, np.ndarray):
            return [b.Unsqueeze(b.IRDFT(x, axes, size), last)]
        swap = swap_with_last(b, axes, rank - 1)
        moved = b.Transpose(x, b.Concat(swap, i64(rank - 1), axis=0))
        signal = b.IRDFT(moved, i64(rank - 2), size)
        return [b.Unsqueeze(b.Transpose(signal, swap), last)]
    if node.onesided and real:
        if isinstance(axes, np.ndarray):
            return [b.RDFT(b.Squeeze(x, last), axes, size)]
        swap = swap_with_last(b, axes, rank - 1)
        spectrum = b.RDFT(b.Transpose(b.Squeeze(x, last), swap), i64(rank - 2), size)
        return [b.Transpose(spectrum, b.Concat(swap, i64(rank - 1), axis=0))]
    if node.onesided:
        raise ConversionError("a one-sided DFT of a complex input is not supported")
    if real and not node.inverse and isinstance(axes, np.ndarray):
        length = signal_length(b, node, x, size, int(axes[0]))
        return [full_spectrum(b, b.RDFT(b.Squeeze(x, last), axes, size), int(axes[0]), length)]
    if real and not node.inverse:
        swap = swap_with_last(b, axes, rank - 1)
        signal = b.Transpose(b.Squeeze(x, last), swap)
        length = as_scalar(b, size) if size is not None else dim(b, signal, rank - 2)
        spectrum = full_spectrum(b, b.RDFT(signal, i64(rank - 2), size), rank - 2, length)
        return [b.Transpose(spectrum, b.Concat(swap, i64(rank - 1), axis=0))]
    if real:
        pads = np.zeros(rank, np.int64)
        x = b.Pad(x, pads, np.eye(1, rank, rank - 1, dtype=np.int64).reshape(-1), pad_mode="constant")
    return [b.op("IDFT" if node.inverse else "DFT", x, axes, size)]


# ---------------------------------------------------------------------------- STFT


class STFTExtractor(OnnxExtractor):
    op_types = ("STFT",)

    @classmethod
    def extract(cls, node):
        node["onesided"] = bool(cls.attr(node, "onesided", 1))


@translator("onnx", "STFT")
def stft(node, b):
    """STFT(signal [B, L, 1], frame_step, window, frame_length) -> STFT-15 of the squeezed signal;
    without a window a rectangular one of frame_length, without frame_length the window's length."""
    if not node.onesided:
        raise ConversionError("an STFT with onesided=0 is not supported")
    signal = b.Squeeze(node.in_port(0).get_source(), i64(-1))
    window = node.in_port(2).get_source() if node.is_in_port_connected(2) else None
    if node.is_in_port_connected(3):
        frame_size = node.in_port(3).get_source()
    else:
        frame_size = b.Squeeze(shape_of(b, window), i64(0))
    if window is None:
        length = b.Reshape(frame_size, i64(1), special_zero=False)
        window = b.Broadcast(scalar_like(b, 1, signal), length)
    return [b.STFT(signal, window, frame_size, node.in_port(1).get_source(), transpose_frames=False)]


# ---------------------------------------------------------------------------- windows, mel filters


class WindowExtractor(OnnxExtractor):
    op_types = tuple(WINDOWS)

    @classmethod
    def extract(cls, node):
        node.update({"coefficients": WINDOWS[node.fw_op], "periodic": bool(cls.attr(node, "periodic", 1)),
                     "output_type": output_type(cls, node)})


@translator("onnx", *WINDOWS)
def window(node, b):
    """HannWindow / HammingWindow / BlackmanWindow of its ``coefficients`` (a0, a1, a2):
    w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), n = 0..size-1, N = size when
    ``periodic``, else size - 1."""
    size = f32_scalar(b, node.in_port(0).get_source())
    n = b.Range(np.float32(0), size, np.float32(1), output_type="f32")
    period = size if node.periodic else b.Subtract(size, np.float32(1))
    angle = b.Multiply(n, b.Divide(np.float32(2 * math.pi), period))
    a0, a1, a2 = node.coefficients
    w = b.Subtract(np.float32(a0), b.Multiply(b.Cos(angle), np.float32(a1)))
    if a2:
        w = b.Add(w, b.Multiply(b.Cos(b.Multiply(angle, np.float32(2))), np.float32(a2)))
    return [convert(b, w, node.output_type)]


class MelWeightMatrixExtractor(OnnxExtractor):
    op_types = ("MelWeightMatrix",)

    @classmethod
    def extract(cls, node):
        node["output_type"] = output_type(cls, node)


@translator("onnx", "MelWeightMatrix")
def mel_weight_matrix(node, b):
    """Triangular filters between num_mel_bins + 2 points spaced evenly on the mel scale
    (mel = 2595 log10(1 + hz / 700)) from lower_edge_hertz to upper_edge_hertz, each point
    taken to the spectrogram bin floor((dft_length + 1) * hz / sample_rate); filter i rises
    from point i to point i+1 and falls to point i+2. Output [dft_length // 2 + 1, num_mel_bins]."""
    mels, dft_length, rate, low, high = (f32_scalar(b, node.in_port(i).get_source()) for i in range(5))
    to_mel = lambda hz: b.Multiply(b.Log(b.Add(b.Divide(hz, np.float32(700)), np.float32(1))),  # noqa: E731
                                   np.float32(2595 / math.log(10)))
    low_mel = to_mel(low)
    points = b.Add(mels, np.float32(2))
    step = b.Divide(b.Subtract(to_mel(high), low_mel), points)
    mel = b.Add(b.Multiply(b.Range(np.float32(0), points, np.float32(1), output_type="f32"), step), low_mel)
    hz = b.Multiply(b.Subtract(b.Exp(b.Multiply(mel, np.float32(math.log(10) / 2595))), np.float32(1)),
                    np.float32(700))
    edges = b.Floor(b.Divide(b.Multiply(b.Add(dft_length, np.float32(1)), hz), rate))
    index = b.Range(np.int64(0), convert(b, mels, "i64"), np.int64(1), output_type="i64")
    left, center, right = (b.Gather(edges, b.Add(index, np.int64(k)), np.int64(0)) for k in range(3))
    bins = b.Add(b.Floor(b.Divide(dft_length, np.float32(2))), np.float32(1))
    j = b.Unsqueeze(b.Range(np.float32(0), bins, np.float32(1), output_type="f32"), np.int64(1))
    rise = b.Select(b.Equal(center, left), np.float32(1), b.Divide(b.Subtract(j, left), b.Subtract(center, left)))
    fall = b.Divide(b.Subtract(right, j), b.Subtract(right, center))
    rising = b.LogicalAnd(b.LessEqual(left, j), b.LessEqual(j, center))
    falling = b.LogicalAnd(b.LessEqual(center, j), b.Less(j, right))
    weights = b.Select(falling, fall, b.Select(rising, rise, np.float32(0)))
    return [convert(b, weights, node.output_type)]
