"""Normalizations: BatchNormInference, MVN, NormalizeL2, LRN, GroupNormalization."""
from __future__ import annotations

import numpy as np

from extensions.ops.shape import pad_array
from mo.ops.op import Op
from mo.utils.shape import normalize_axes


def _axes(axes: np.ndarray, rank: int) -> tuple[int, ...]:
    return tuple(sorted(set(normalize_axes(np.atleast_1d(axes).tolist(), rank))))


class AxesInputOp(Op):
    """An op normalizing input 0 over the axes of input 1 (a 1-D integer tensor): no more axes
    than the data has dimensions, each within its rank (OpenVINO refuses the IR otherwise)."""

    abstract = True
    input_ranks = {1: (0, 1)}

    @classmethod
    def check_inputs(cls, node) -> None:
        super().check_inputs(node)
        rank = node.in_port(0).data.get_rank() if node.is_in_port_connected(0) else None
        axes_shape = node.in_shape(1) if node.is_in_port_connected(1) else None
        if rank is None or not axes_shape:
            return
        if axes_shape[0] > rank:
            raise ValueError(f"{axes_shape[0]} axes for data of rank {rank}")
        axes = node.in_value(1)
        if axes is not None:
            normalize_axes(np.atleast_1d(axes).tolist(), rank)


def _axis_pads(rank: int, axis: int, pad: int) -> tuple[list[int], list[int]]:
    """pads_begin, pads_end that pad only ``axis``, by ``pad`` on both sides."""
    pads = [0] * rank
    pads[axis] = pad
    return pads, pads


def channel_shape(x: np.ndarray) -> tuple[int, ...]:
    """Shape that broadcasts a per-channel vector over [N, C, spatial...]."""
    return (-1,) + (1,) * (x.ndim - 2)


class BatchNormInference(Op):
    """(x - mean) / sqrt(variance + epsilon) * gamma + beta per channel (axis 1); inputs data,
    gamma, beta, mean, variance."""

    op = "BatchNormInference"
    version = "opset5"
    defaults = {"epsilon": 1e-5}
    ir_attrs = ("epsilon",)

    @classmethod
    def evaluate(cls, node, x, gamma, beta, mean, variance):
        shape = channel_shape(x)
        scale = gamma.reshape(shape) / np.sqrt(variance.reshape(shape) + node.epsilon)
        return (x - mean.reshape(shape)) * scale + beta.reshape(shape)


class MVN(AxesInputOp):
    """Mean (and variance) normalization over the axes of input 1; ``eps_mode`` puts epsilon
    inside or outside the square root."""

    op = "MVN"
    version = "opset6"
    defaults = {"eps": 1e-9, "normalize_variance": True, "eps_mode": "inside_sqrt"}
    ir_attrs = ("eps", "normalize_variance", "eps_mode")

    @classmethod
    def evaluate(cls, node, x, axes):
        axes = _axes(axes, x.ndim)
        centered = x - np.mean(x, axis=axes, keepdims=True)
        if not node.normalize_variance:
            return centered
        variance = np.mean(centered * centered, axis=axes, keepdims=True)
        if node.eps_mode == "inside_sqrt":
            return centered / np.sqrt(variance + node.eps)
        return centered / (np.sqrt(variance) + node.eps)


class NormalizeL2(AxesInputOp):
    """x / sqrt(sum(x^2) over the axes of input 1 (+ or max with ``eps``))."""

    op = "NormalizeL2"
    defaults = {"eps": 1e-10, "eps_mode": "add"}
    ir_attrs = ("eps", "eps_mode")

    @classmethod
    def evaluate(cls, node, x, axes):
        total = np.sum(x * x, axis=_axes(axes, x.ndim), keepdims=True)
        total = total + node.eps if node.eps_mode == "add" else np.maximum(total, node.eps)
        return x / np.sqrt(total)


class LRN(Op):
    """Local response normalization over a window of ``size`` along the axes of input 1."""

    op = "LRN"
    defaults = {"alpha": 1e-4, "beta": 0.75, "bias": 1.0, "size": 1}
    ir_attrs = ("alpha", "beta", "bias", "size")

    @classmethod
    def evaluate(cls, node, x, axes):
        """x / (bias + alpha / size^len(axes) * sum of squares)^beta, the sum over the positions
        at most (size - 1) // 2 away along every axis."""
        axes = _axes(axes, x.ndim)
        total = x.astype(np.float64) ** 2
        half = (node.size - 1) // 2
        for axis in axes:
            padded = pad_array(total, *_axis_pads(x.ndim, axis, half), "constant")
            total = np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1, axis=axis).sum(axis=-1)
        scale = node.bias + node.alpha / node.size ** len(axes) * total
        return (x / scale ** node.beta).astype(x.dtype)


class GroupNormalization(Op):
    """Normalization over groups of channels; inputs data [N, C, ...], scale [C], bias [C]."""

    op = "GroupNormalization"
    version = "opset12"
    defaults = {"num_groups": 1, "epsilon": 1e-5}
    ir_attrs = ("num_groups", "epsilon")

    @classmethod
    def evaluate(cls, node, x, scale, bias):
        grouped = x.reshape(x.shape[0], node.num_groups, -1)
        mean = grouped.mean(axis=2, keepdims=True)
        variance = grouped.var(axis=2, keepdims=True)
        normalized = ((grouped - mean) / np.sqrt(variance + node.epsilon)).reshape(x.shape)
        return normalized * scale.reshape(channel_shape(x)) + bias.reshape(channel_shape(x))
