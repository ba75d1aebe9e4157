"""ATen Fourier transforms: fft_fft / ifft / rfft / irfft and their 2-D and n-D forms (with the
signal sizes ``n`` / ``s`` and the ``norm`` modes), stft, istft and hann_window.

Complex tensors are [..., 2] pairs marked complex (see the complex helpers of
``mo/graph/building.py``): DFT / IDFT / RDFT / IRDFT and STFT take and give that form. The
transforms run in f32 (the runtime's DFT ops take no f64); inputs are cropped or zero-padded to
the signal sizes before the transform (``fit_dims``).
"""
from __future__ import annotations

import math

import numpy as np

from extensions.front.pytorch.complex import complex_aten, rolled
from extensions.front.pytorch.creation import _given_dtype
from extensions.load.pytorch.arguments import aten, where
from mo.errors import ConversionError
from mo.graph.builder import OpBuilder
from mo.graph.building import (
    complex_conj,
    complex_rank,
    complex_view,
    convert,
    dim,
    fit_dims,
    i64,
    int_list_port,
    is_complex,
    mark_complex,
    norm_axis,
    scalar_like,
    shape_of,
    spectral,
    to_complex,
)
from mo.graph.port import Port

# ATen op -> (kind, default dims: None = one dim ``dim``, "all" = every dim, or a list)
TRANSFORMS = {
    "aten::fft_fft": ("fft", None), "aten::fft_ifft": ("ifft", None),
    "aten::fft_rfft": ("rfft", None), "aten::fft_irfft": ("irfft", None),
    "aten::fft_fft2": ("fft", [-2, -1]), "aten::fft_ifft2": ("ifft", [-2, -1]),
    "aten::fft_rfft2": ("rfft", [-2, -1]), "aten::fft_irfft2": ("irfft", [-2, -1]),
    "aten::fft_fftn": ("fft", "all"), "aten::fft_ifftn": ("ifft", "all"),
    "aten::fft_rfftn": ("rfft", "all"), "aten::fft_irfftn": ("irfft", "all"),
    "aten::fft_hfft": ("hfft", None), "aten::fft_ihfft": ("ihfft", None),
    "aten::fft_hfft2": ("hfft", [-2, -1]), "aten::fft_ihfft2": ("ihfft", [-2, -1]),
    "aten::fft_hfftn": ("hfft", "all"), "aten::fft_ihfftn": ("ihfft", "all"),
}
# the Hermitian transforms are the real ones of the conjugate, with the dual normalization
_DUAL_NORMS = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}
NORMS = ("backward", "forward", "ortho")


def _dims_and_sizes(node, a, x) -> tuple[list[int], list[int | None]]:
    """The transformed dims (non-negative, of the logical tensor) and the signal size of each
    (None: the input's)."""
    _, default = TRANSFORMS[node.fw_op]
    rank = complex_rank(x, node)
    if default is None:
        n = a.const("n", None)
        dims, sizes = [a.const("dim", -1)], [n]
    else:
        sizes = a.const("s", None)
        dims = a.const("dim", None if default == "all" else default)
        if dims is None:
            dims = list(range(rank - len(sizes), rank)) if sizes is not None else list(range(rank))
        dims = [dims] if isinstance(dims, int) else list(dims)
        sizes = [None] * len(dims) if sizes is None else list(sizes)
        if len(sizes) != len(dims):
            raise ConversionError(f"{where(node)} gives {len(sizes)} signal sizes for {len(dims)} dims.")
    dims = [norm_axis(d, rank, node) for d in dims]
    if len(set(dims)) != len(dims):
        raise ConversionError(f"{where(node)} transforms a dim twice ({dims}).")
    sizes = [None if s is None or int(s) == -1 else int(s) for s in sizes]
    if any(s is not None and s < 1 for s in sizes):
        raise ConversionError(f"{where(node)} has an invalid signal size in {sizes}.")
    return dims, sizes


def _count(b: OpBuilder, signal: Port, dims: list[int]) -> Port:
    """The number of values transformed: the product of ``signal``'s logical dims ``dims``."""
    sizes = b.Gather(shape_of(b, signal), i64(dims), np.int64(0))
    return b.ReduceProd(sizes, np.int64(0), keep_dims=False)


def normalized(b: OpBuilder, y: Port, count: Port, norm: str | None, inverse: bool) -> Port:
    """``y`` scaled for the ``norm`` mode: forward transforms by 1 / n ("forward") or 1 / sqrt(n)
    ("ortho"), inverse ones (which the opset already scales by 1 / n) by n or sqrt(n)."""
    norm = norm or "backward"
    if norm not in NORMS:
        raise ConversionError(f"norm '{norm}' is not one of {', '.join(NORMS)}.")
    if norm == "backward":
        return y
    factor = convert(b, count, y.data.get_dtype())
    if norm == "ortho":
        factor = b.Sqrt(factor)
    out = b.Multiply(y, factor) if inverse else b.Divide(y, factor)
    return mark_complex(out) if is_complex(y) else out


def _float(b: OpBuilder, x: Port) -> Port:
    """A real input of a transform in a float type (integers become f32, as in PyTorch)."""
    return x if is_complex(x) or x.data.get_dtype() in ("f16", "bf16", "f32", "f64") else convert(b, x, "f32")


def _forward(node, b, x, kind: str, dims, sizes, norm):
    """fft / ifft / rfft of ``x`` along ``dims``, each cropped or padded to its signal size."""
    given = [(d, s) for d, s in zip(dims, sizes) if s is not None]
    if given:
        x = fit_dims(b, x, [d for d, _ in given], [s for _, s in given])
    if kind != "rfft":
        x = to_complex(b, x)
    y = spectral(b, {"fft": "DFT", "ifft": "IDFT", "rfft": "RDFT"}[kind], x, i64(dims), complex_out=True)
    return normalized(b, y, _count(b, x, dims), norm, kind == "ifft")


@complex_aten(*TRANSFORMS)
def transform(node, a, b):
    """fft / ifft: DFT / IDFT of the input (a real one gets a zero imaginary part); rfft: RDFT of
    a real input; irfft: IRDFT to a real signal of size s (default 2 (m - 1) along the last
    dim). Each input dim is first cropped or padded to its signal size (irfft: s // 2 + 1 along
    the last one)."""
    kind, _ = TRANSFORMS[node.fw_op]
    x = _float(b, a.tensor("self"))
    dims, sizes = _dims_and_sizes(node, a, x)
    norm = a.const("norm", None)
    if kind in ("hfft", "ihfft"):       # hfft(x) = irfft(conj(x)), ihfft(x) = conj(rfft(x)), dual norms
        if kind == "ihfft" and is_complex(x):
            raise ConversionError(f"{where(node)} takes a real input, not a complex one.")
        norm = _DUAL_NORMS[norm]
        if kind == "hfft":
            x = complex_conj(b, to_complex(b, x))
            kind = "irfft"
        else:
            return [complex_conj(b, _forward(node, b, x, "rfft", dims, sizes, norm))]
    axes = i64(dims)
    if kind == "rfft" and is_complex(x):
        raise ConversionError(f"{where(node)} takes a real input, not a complex one.")
    if kind in ("fft", "ifft", "rfft"):
        return [_forward(node, b, x, kind, dims, sizes, norm)]
    x = to_complex(b, x)
    if sizes[-1] is not None:
        fitted = [(d, s) for d, s in zip(dims[:-1], sizes[:-1]) if s is not None] + [(dims[-1], sizes[-1] // 2 + 1)]
        x = fit_dims(b, x, [d for d, _ in fitted], [s for _, s in fitted])
    elif any(s is not None for s in sizes):
        given = [(d, s) for d, s in zip(dims, sizes) if s is not None]
        x = fit_dims(b, x, [d for d, _ in given], [s for _, s in given])
    signal = []
    if any(s is not None for s in sizes):    # the runtime takes no -1 sizes: the defaults spelled out
        last = sizes[-1] if sizes[-1] is not None else b.Multiply(b.Subtract(dim(b, x, dims[-1]), np.int64(1)),
                                                                   np.int64(2))
        signal = [int_list_port(b, [s if s is not None else dim(b, x, d) for d, s in zip(dims[:-1], sizes)]
                                + [last])]
    y = spectral(b, "IRDFT", x, axes, *signal, complex_out=False)
    return [normalized(b, y, _count(b, y, dims), norm, True)]


@complex_aten("aten::fft_fftshift", "aten::fft_ifftshift")
def fftshift(node, a, b):
    """The zero frequency moved to the centre: a roll by n // 2 along each dim (all without
    ``dim``); ifftshift rolls back by -(n // 2)."""
    x = a.tensor("self")
    rank = complex_rank(x, node)
    dims = a.const("dim", None)
    axes = list(range(rank)) if dims is None else [norm_axis(d, rank, node) for d in np.atleast_1d(dims)]
    shape = x.data.get_shape()
    sign = 1 if node.fw_op == "aten::fft_fftshift" else -1
    return [rolled(node, b, x, axes, [sign * (shape[d] // 2) for d in axes])]


@aten("aten::fft_fftfreq", "aten::fft_rfftfreq")
def fftfreq(node, a, b):
    """The sample frequencies of a transform of length n with sample spacing d: fftfreq
    [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n), rfftfreq [0, ..., n // 2] / (d n)."""
    n, d = int(a.const("n")), float(a.const("d", 1.0))
    if n < 1:
        raise ConversionError(f"{where(node)} needs n >= 1, not {n}.")
    k = np.arange(n // 2 + 1) if node.fw_op == "aten::fft_rfftfreq" else np.fft.fftfreq(n) * n
    return [convert(b, b.const((k / (d * n)).astype(np.float32)), _given_dtype(a) or "f32")]


# ---------------------------------------------------------------------------- windows, STFT


def _int_arg(b: OpBuilder, a, key: str) -> int | Port:
    """An int argument as a Python int, or as a 0-d i64 tensor when the model computes it."""
    value = a.value(key)
    if a.port(key) is None or value is not None:
        return int(a.const(key))
    port = convert(b, a.tensor(key), "i64")
    return port if port.data.get_rank() == 0 else b.Reshape(port, i64(), special_zero=False)


@aten("aten::hann_window")
def hann_window(node, a, b):
    """0.5 - 0.5 cos(2 pi k / N), k = 0..L-1, N = L when ``periodic`` (default) else L - 1; a
    window of length 1 is [1]."""
    length = _int_arg(b, a, "window_length")
    periodic = bool(a.const("periodic", True))
    et = _given_dtype(a) or "f32"
    if isinstance(length, int):
        k = np.arange(length, dtype=np.float64)
        period = length if periodic else length - 1
        w = 0.5 - 0.5 * np.cos(2 * math.pi * k / period) if length > 1 else np.ones(length)
        return [convert(b, b.const(w.astype(np.float32)), et)]
    size = convert(b, length, "f32")
    k = b.Range(np.float32(0), size, np.float32(1), output_type="f32")
    period = size if periodic else b.Subtract(size, np.float32(1))
    period = b.Maximum(period, np.float32(1))
    w = b.Subtract(np.float32(0.5), b.Multiply(b.Cos(b.Multiply(k, b.Divide(np.float32(2 * math.pi), period))),
                                               np.float32(0.5)))
    return [convert(b, w, et)]


@complex_aten("aten::stft")
def stft(node, a, b):
    """STFT-15 with frames as the last logical dim (transpose_frames): [batch?, n_fft // 2 + 1,
    frames] complex. ``center`` (stft.center) pads the signal by n_fft // 2 on both sides with
    ``pad_mode`` first; the window (ones of win_length without one) is centred in n_fft;
    ``normalized`` scales by n_fft ** -0.5. A two-sided (onesided=False) or complex-input STFT is
    not supported."""
    x = a.tensor("self")
    if is_complex(x):
        raise ConversionError(f"{where(node)}: an STFT of a complex signal is not supported.")
    if a.const("onesided", None) is False:
        raise ConversionError(f"{where(node)}: a two-sided STFT (onesided=False) is not supported.")
    if a.const("align_to_window", None):
        raise ConversionError(f"{where(node)}: align_to_window=True is not supported.")
    n_fft = int(a.const("n_fft"))
    hop = a.const("hop_length", None) or n_fft // 4
    win_length = a.const("win_length", None) or n_fft
    x = _float(b, x)
    if a.const("center", False):
        pad, rank = n_fft // 2, x.data.get_rank()
        mode = {"reflect": "reflect", "constant": "constant", "replicate": "edge", "circular": None}[
            a.const("pad_mode", "reflect")]
        if mode is None:
            raise ConversionError(f"{where(node)}: pad_mode 'circular' is not supported.")
        x = b.Pad(x, i64([0] * (rank - 1) + [pad]), i64([0] * (rank - 1) + [pad]), pad_mode=mode)
    window = a.port("window")
    if window is None:
        window = b.Broadcast(scalar_like(b, 1, x), i64(win_length), mode="numpy")
    window = convert(b, window, x.data.get_dtype())
    et = x.data.get_dtype()
    inputs = [convert(b, x, "f32"), convert(b, window, "f32"), b.const(np.int64(n_fft)), b.const(np.int64(hop))]
    y = convert(b, b.STFT(*inputs, transpose_frames=True), et)
    if a.const("normalized", False):
        y = b.Multiply(y, scalar_like(b, n_fft ** -0.5, y))
    complex_out = a.const("return_complex", None) is not False
    return [mark_complex(y) if complex_out else complex_view(b, y, False)]


@complex_aten("aten::istft")
def istft(node, a, b):
    """The inverse STFT by overlap-add: each frame's IRDFT (n_fft values) times the window,
    summed at hop_length steps and divided by the summed squared window; ``center`` drops n_fft
    // 2 values at both ends; ``length`` trims or zero-pads the result."""
    x = a.tensor("self")
    if not is_complex(x):
        raise ConversionError(f"{where(node)} needs a complex spectrum.")
    if a.const("onesided", None) is False or a.const("return_complex", False):
        raise ConversionError(f"{where(node)}: a two-sided inverse STFT is not supported.")
    n_fft = int(a.const("n_fft"))
    hop = int(a.const("hop_length", None) or n_fft // 4)
    win_length = int(a.const("win_length", None) or n_fft)
    et = x.data.get_dtype()
    rank = complex_rank(x, node)
    if rank not in (2, 3):
        raise ConversionError(f"{where(node)} takes a spectrum [batch?, n_fft // 2 + 1, frames].")
    window = a.port("window")
    window = convert(b, window, et) if window is not None else b.const(np.ones(win_length, np.float32))
    window = convert(b, window, et)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = b.Pad(window, i64(left), i64(n_fft - win_length - left), pad_mode="constant")
    spectrum = x if rank == 3 else mark_complex(b.Unsqueeze(x, i64(0)))
    if a.const("normalized", False):
        spectrum = mark_complex(b.Multiply(spectrum, scalar_like(b, n_fft ** 0.5, spectrum)))
    frames = mark_complex(b.Transpose(spectrum, i64(0, 2, 1, 3)))                 # [B, T, bins, 2]
    frames = fit_dims(b, frames, [2], [n_fft // 2 + 1])
    signal = spectral(b, "IRDFT", frames, i64(2), i64(n_fft), complex_out=False)  # [B, T, n_fft]
    signal = b.Multiply(signal, window)
    count = dim(b, frames, 1)
    total = b.Add(b.Multiply(b.Subtract(count, np.int64(1)), np.int64(hop)), np.int64(n_fft))
    # positions of each frame's values in the output: t * hop + k
    t = b.Range(np.int64(0), count, np.int64(1), output_type="i64")
    index = b.Add(b.Unsqueeze(b.Multiply(t, np.int64(hop)), i64(1)), np.arange(n_fft, dtype=np.int64))
    flat_index = b.Reshape(index, i64(-1), special_zero=False)
    batch = dim(b, signal, 0)
    values = b.Reshape(signal, b.Concat(b.Reshape(batch, i64(1), special_zero=False), i64(-1), axis=0),
                       special_zero=False)
    zeros = b.Broadcast(scalar_like(b, 0, values), b.Concat(b.Reshape(batch, i64(1), special_zero=False),
                                                             b.Reshape(total, i64(1), special_zero=False), axis=0))
    summed = b.ScatterElementsUpdate(zeros, b.Broadcast(flat_index, shape_of(b, values)), values, np.int64(1),
                                     reduction="sum", use_init_val=True)
    squares = b.Multiply(window, window)
    envelope = b.ScatterElementsUpdate(b.Broadcast(scalar_like(b, 0, values), b.Reshape(total, i64(1),
                                                                                        special_zero=False)),
                                       flat_index, b.Tile(squares, b.Reshape(count, i64(1), special_zero=False)),
                                       np.int64(0), reduction="sum", use_init_val=True)
    start = n_fft // 2 if a.const("center", True) else 0
    length = a.const("length", None)
    out = b.Divide(summed, b.Select(b.Greater(envelope, scalar_like(b, 1e-11, envelope)), envelope,
                                    scalar_like(b, 1, envelope)))
    if length is not None:
        out = b.Slice(out, i64(start), i64(start + int(length)), i64(1), i64(1))
        out = fit_dims(b, out, [1], [int(length)])
    else:
        out = b.Slice(out, i64(start), b.Reshape(b.Subtract(total, np.int64(start)), i64(1), special_zero=False),
                      i64(1), i64(1))
    return [out if rank == 3 else b.Squeeze(out, i64(0))]


# ---------------------------------------------------------------------------- Core ATen forms


def _core_scaled(b: OpBuilder, y: Port, count: Port, normalization: int, inverse: bool) -> Port:
    """The Core ATen transforms' ``normalization`` (0 none, 1 by 1 / sqrt(n), 2 by 1 / n) of a
    forward result, or of an inverse one that the opset has already divided by n."""
    if normalization not in (0, 1, 2):
        raise ConversionError(f"Unknown FFT normalization {normalization} (0, 1 or 2).")
    mode = {0: "forward" if inverse else "backward", 1: "ortho", 2: "backward" if inverse else "forward"}
    return normalized(b, y, count, mode[normalization], inverse)


def _core_dims(node, a, x) -> list[int]:
    rank = complex_rank(x, node)
    return [norm_axis(d, rank, node) for d in a.const("dim")]


@aten("aten::_fft_r2c")
def fft_r2c(node, a, b):
    """_fft_r2c(self, dim, normalization, onesided): RDFT (onesided) or DFT of a real input."""
    x = _float(b, a.tensor(0))
    dims = _core_dims(node, a, x)
    onesided = bool(a.const("onesided", True))
    y = spectral(b, "RDFT" if onesided else "DFT", x if onesided else to_complex(b, x), i64(dims), complex_out=True)
    return [_core_scaled(b, y, _count(b, x, dims), int(a.const("normalization", 0)), False)]


@complex_aten("aten::_fft_c2r")
def fft_c2r(node, a, b):
    """_fft_c2r(self, dim, normalization, last_dim_size): IRDFT to a real signal whose last
    transformed dim has last_dim_size."""
    x = to_complex(b, a.tensor(0))
    dims = _core_dims(node, a, x)
    signal = int_list_port(b, [dim(b, x, d) for d in dims[:-1]] + [int(a.const("last_dim_size"))])
    y = spectral(b, "IRDFT", x, i64(dims), signal, complex_out=False)
    return [_core_scaled(b, y, _count(b, y, dims), int(a.const("normalization", 0)), True)]


@complex_aten("aten::_fft_c2c")
def fft_c2c(node, a, b):
    """_fft_c2c(self, dim, normalization, forward): DFT or IDFT of a complex input."""
    x = to_complex(b, a.tensor(0))
    dims = _core_dims(node, a, x)
    forward = bool(a.const("forward", True))
    y = spectral(b, "DFT" if forward else "IDFT", x, i64(dims), complex_out=True)
    return [_core_scaled(b, y, _count(b, x, dims), int(a.const("normalization", 0)), not forward)]
