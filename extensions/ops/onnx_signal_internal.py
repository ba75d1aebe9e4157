"""ONNX signal-processing operators (DFT, STFT, windows, MelWeightMatrix) kept as extracted until a
transform lowers them."""
from __future__ import annotations

from extensions.ops.onnx_nn_internal import OnnxMiddleOp
from mo.ops.internal import FrontOnlyOp
from mo.utils.shape import DYN, normalize_axis


class OnnxDFT(OnnxMiddleOp):
    """DFT: x [..., 1 or 2], optional dft_length, axis (attribute before opset 20, input 2
    from it); ``inverse``, ``onesided``."""

    op = "onnx::DFT"

    @classmethod
    def axis(cls, node) -> int | None:
        if node.get("axis") is not None:
            return node.axis
        if not node.is_in_port_connected(2):
            return -2
        value = node.in_value(2)
        return None if value is None else int(value.reshape(()))

    @classmethod
    def infer_shapes(cls, node):
        x = node.in_shape(0)
        if x is None:
            return [None]
        last = 1 if node.inverse and node.onesided else 2
        axis = cls.axis(node)
        if axis is None:
            return [(DYN,) * (len(x) - 1) + (last,)]
        axis = normalize_axis(axis, len(x))
        out = list(x[:-1]) + [last]
        if node.is_in_port_connected(1):
            length = node.in_value(1)
            out[axis] = DYN if length is None else int(length.reshape(()))
        elif node.inverse and node.onesided:
            out[axis] = DYN if x[axis] < 0 else 2 * (x[axis] - 1)
        if node.onesided and not node.inverse and out[axis] >= 0:
            out[axis] = out[axis] // 2 + 1
        return [tuple(out)]


class OnnxSTFT(FrontOnlyOp):
    """STFT: signal [batch, length, 1 or 2], frame_step, optional window and frame_length;
    ``onesided``."""

    op = "onnx::STFT"


class OnnxWindow(FrontOnlyOp):
    """HannWindow / HammingWindow / BlackmanWindow: size -> the window of cosine terms
    ``coefficients`` (a0, a1, a2: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)); N is size when
    ``periodic``, else size - 1."""

    op = "onnx::Window"


class OnnxMelWeightMatrix(FrontOnlyOp):
    """MelWeightMatrix: num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
    upper_edge_hertz -> [dft_length // 2 + 1, num_mel_bins] triangular filters."""

    op = "onnx::MelWeightMatrix"
