"""Middle lowering of ONNX DFT to DFT / IDFT / RDFT / IRDFT; the choice depends on whether the
input is real ([..., 1]) or complex ([..., 2]), so the last dim must be known."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from extensions.middle.nn_common import as_type
from extensions.ops.onnx_signal_internal import OnnxDFT
from mo.graph.builder import OpBuilder
from mo.graph.port import Port
from mo.utils.shape import normalize_axis


def full_spectrum(b: OpBuilder, half, axis: int, length, name: str | None = None) -> Port:
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
    return b.Concat(half, as_type(b, conjugate, half.data.get_dtype()), axis=axis, name=name)


def swap_with_last(b: OpBuilder, axis, rank: int) -> Port:
    """The permutation of ``rank`` dims that swaps ``axis`` (a run-time [1] tensor) with the last
    one; it is its own inverse. RDFT / IRDFT need constant axes on the CPU, so a run-time axis is
    moved last around them."""
    dims = b.Range(np.int64(0), np.int64(rank), np.int64(1), output_type="i64")
    last = np.int64(rank - 1)
    return b.Select(b.Equal(dims, axis), last, b.Select(b.Equal(dims, last), axis, dims))


class DFTToOpset(MiddleReplaceOp):
    """forward: real + onesided -> RDFT, else DFT (a real input gets a zero imaginary part);
    inverse: onesided -> IRDFT (real output [..., 1]), else IDFT."""

    op = "onnx::DFT"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        shape = x.data.get_shape()
        if shape is None or shape[-1] not in (1, 2):
            raise ValueError(f"DFT '{node.name}' needs an input whose last dim is 1 (real) or 2 (complex)")
        rank, real = len(shape), shape[-1] == 1
        axis = OnnxDFT.axis(node)
        if axis is not None:
            axes = np.array([normalize_axis(axis, rank)], np.int64)
        else:                # axis given as a run-time input: made positive
            axes = b.FloorMod(b.Reshape(node.in_port(2).get_source(), np.array([1], np.int64), special_zero=False),
                              np.int64(rank))
        size = None
        if node.is_in_port_connected(1):
            size = b.Reshape(node.in_port(1).get_source(), np.array([1], np.int64), special_zero=False)
        last = np.array([-1], np.int64)
        if node.inverse and node.onesided:
            if real:
                raise ValueError(f"inverse one-sided DFT '{node.name}' needs a complex input")
            if isinstance(axes, np.ndarray):
                return [b.Unsqueeze(b.IRDFT(x, axes, size), last, name=node.name)]
            swap = swap_with_last(b, axes, rank - 1)
            moved = b.Transpose(x, b.Concat(swap, np.array([rank - 1], np.int64), axis=0))
            signal = b.IRDFT(moved, np.array([rank - 2], np.int64), size)
            return [b.Unsqueeze(b.Transpose(signal, swap), last, name=node.name)]
        if node.onesided and real:
            if isinstance(axes, np.ndarray):
                return [b.RDFT(b.Squeeze(x, last), axes, size, name=node.name)]
            swap = swap_with_last(b, axes, rank - 1)
            spectrum = b.RDFT(b.Transpose(b.Squeeze(x, last), swap), np.array([rank - 2], np.int64), size)
            return [b.Transpose(spectrum, b.Concat(swap, np.array([rank - 1], np.int64), axis=0), name=node.name)]
        if node.onesided:
            raise ValueError(f"one-sided DFT '{node.name}' of a complex input is not supported")
        if real and not node.inverse and isinstance(axes, np.ndarray):
            length = self.static_length(node, shape, int(axes[0]))
            if length is not None:
                return [full_spectrum(b, b.RDFT(b.Squeeze(x, last), axes, size), int(axes[0]), length, node.name)]
        if real and not node.inverse:
            swap = swap_with_last(b, axes, rank - 1)
            signal = b.Transpose(b.Squeeze(x, last), swap)
            length = b.Reshape(size, np.array([], np.int64), special_zero=False) if size is not None else \
                b.Gather(b.ShapeOf(signal), np.int64(rank - 2), np.int64(0))
            spectrum = full_spectrum(b, b.RDFT(signal, np.array([rank - 2], np.int64), size), rank - 2, length)
            return [b.Transpose(spectrum, b.Concat(swap, np.array([rank - 1], np.int64), axis=0), name=node.name)]
        if real:
            pads = np.zeros(rank, np.int64)
            x = b.Pad(x, pads, np.eye(1, rank, rank - 1, dtype=np.int64).reshape(-1), pad_mode="constant")
        return [b.op("IDFT" if node.inverse else "DFT", x, axes, size, name=node.name)]

    @staticmethod
    def static_length(node, shape: tuple, axis: int) -> int | None:
        """The transform length along ``axis`` when known: dft_length or the input's size."""
        if node.is_in_port_connected(1):
            value = node.in_value(1)
            return None if value is None else int(value.reshape(()))
        return shape[axis] if shape[axis] >= 0 else None
