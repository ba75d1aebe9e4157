"""Front lowering of ONNX STFT, the window functions and MelWeightMatrix (shape-agnostic: their
sizes are tensors computed at run time)."""
from __future__ import annotations

import math

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.building import scalar_like
from mo.graph.port import Port
from mo.pipeline.transform import ReplaceOp


def scalar_of(b: OpBuilder, port) -> Port:
    """A 1-element tensor as an f32 scalar."""
    return b.Convert(b.Reshape(port, np.array([], np.int64), special_zero=False), destination_type="f32")


def as_output(b: OpBuilder, port, node) -> Port:
    """The f32 result converted to the node's ``output_type`` and named after it."""
    if node.output_type == "f32":
        port.node["name"] = node.name
        return port
    return b.Convert(port, destination_type=node.output_type, name=node.name)


class STFTToOpset(ReplaceOp):
    """STFT(signal [B, L, 1], frame_step, window, frame_length) -> STFT-15 of the squeezed signal;
    without a window a rectangular one of frame_length, without frame_length the window's length."""

    op = "onnx::STFT"

    def replace_op(self, graph, node):
        if not node.onesided:
            raise ValueError(f"STFT '{node.name}' with onesided=0 is not supported")
        b = OpBuilder(graph, node.name)
        signal = b.Squeeze(node.in_port(0).get_source(), np.array([-1], np.int64))
        window = node.in_port(2).get_source() if node.is_in_port_connected(2) else None
        if node.is_in_port_connected(3):
            frame_size = node.in_port(3).get_source()
        else:
            frame_size = b.Squeeze(b.ShapeOf(window), np.array([0], np.int64))
        if window is None:
            length = b.Reshape(frame_size, np.array([1], np.int64), special_zero=False)
            window = b.Broadcast(scalar_like(b, 1, signal), length)
        return [b.STFT(signal, window, frame_size, node.in_port(1).get_source(), transpose_frames=False,
                       name=node.name)]


class WindowToOpset(ReplaceOp):
    """w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), n = 0..size-1."""

    op = "onnx::Window"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        size = scalar_of(b, node.in_port(0).get_source())
        n = b.Range(np.float32(0), size, np.float32(1), output_type="f32")
        period = size if node.periodic else b.Subtract(size, np.float32(1))
        angle = b.Multiply(n, b.Divide(np.float32(2 * math.pi), period))
        a0, a1, a2 = node.coefficients
        window = b.Subtract(np.float32(a0), b.Multiply(b.Cos(angle), np.float32(a1)))
        if a2:
            window = b.Add(window, b.Multiply(b.Cos(b.Multiply(angle, np.float32(2))), np.float32(a2)))
        return [as_output(b, window, node)]


class MelWeightMatrixToOpset(ReplaceOp):
    """Triangular filters between num_mel_bins + 2 points spaced evenly on the mel scale
    (mel = 2595 log10(1 + hz / 700)) from lower_edge_hertz to upper_edge_hertz, each point
    taken to the spectrogram bin floor((dft_length + 1) * hz / sample_rate); filter i rises
    from point i to point i+1 and falls to point i+2."""

    op = "onnx::MelWeightMatrix"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        mels, dft_length, rate, low, high = (scalar_of(b, node.in_port(i).get_source()) for i in range(5))
        to_mel = lambda hz: b.Multiply(b.Log(b.Add(b.Divide(hz, np.float32(700)), np.float32(1))),  # noqa: E731
                                       np.float32(2595 / math.log(10)))
        low_mel = to_mel(low)
        points = b.Add(mels, np.float32(2))
        step = b.Divide(b.Subtract(to_mel(high), low_mel), points)
        mel = b.Add(b.Multiply(b.Range(np.float32(0), points, np.float32(1), output_type="f32"), step), low_mel)
        hz = b.Multiply(b.Subtract(b.Exp(b.Multiply(mel, np.float32(math.log(10) / 2595))), np.float32(1)),
                        np.float32(700))
        edges = b.Floor(b.Divide(b.Multiply(b.Add(dft_length, np.float32(1)), hz), rate))
        index = b.Range(np.int64(0), b.Convert(mels, destination_type="i64"), np.int64(1), output_type="i64")
        left, center, right = (b.Gather(edges, b.Add(index, np.int64(k)), np.int64(0)) for k in range(3))
        bins = b.Add(b.Floor(b.Divide(dft_length, np.float32(2))), np.float32(1))
        j = b.Unsqueeze(b.Range(np.float32(0), bins, np.float32(1), output_type="f32"), np.int64(1))
        rise = b.Select(b.Equal(center, left), np.float32(1), b.Divide(b.Subtract(j, left), b.Subtract(center, left)))
        fall = b.Divide(b.Subtract(right, j), b.Subtract(right, center))
        rising = b.LogicalAnd(b.LessEqual(left, j), b.LessEqual(j, center))
        falling = b.LogicalAnd(b.LessEqual(center, j), b.Less(j, right))
        weights = b.Select(falling, fall, b.Select(rising, rise, np.float32(0)))
        return [as_output(b, weights, node)]
