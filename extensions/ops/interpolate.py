"""Interpolate-11: resizing of the ``axes`` (input 2) of input 0 to the sizes or by the scales of
input 1."""
from __future__ import annotations

import math

import numpy as np

from extensions.ops.shape import pad_array
from mo.ops.op import Op
from mo.utils.shape import DYN, normalize_axes

PILLOW_MODES = ("bilinear_pillow", "bicubic_pillow")


class Interpolate(Op):
    """Resize with ``mode`` nearest / linear / linear_onnx / cubic / bilinear_pillow /
    bicubic_pillow; ``shape_calculation_mode`` says whether input 1 holds sizes or scales."""

    op = "Interpolate"
    version = "opset11"
    defaults = {"mode": "nearest", "shape_calculation_mode": "sizes",
                "coordinate_transformation_mode": "half_pixel", "nearest_mode": "round_prefer_floor",
                "antialias": False, "pads_begin": [0], "pads_end": [0], "cube_coeff": -0.75}
    ir_attrs = ("mode", "shape_calculation_mode", "coordinate_transformation_mode", "nearest_mode",
                "antialias", "pads_begin", "pads_end", "cube_coeff")
    # The output size is floor(scale * dim): float16 scales would change it.
    precision_sensitive_inputs = (1,)
    input_ranks = {1: (1,), 2: (1,)}
    input_types = {0: frozenset({"f32", "f16", "bf16", "f64", "i8", "u8", "i32", "i64"})}

    @classmethod
    def infer(cls, node):
        if node.mode in PILLOW_MODES:    # not evaluated in numpy: never folded
            node.out_port(0).data.set_shape(cls.infer_shapes(node)[0])
            return
        super().infer(node)

    @classmethod
    def evaluate(cls, node, x, target, axes=None):
        if node.mode in PILLOW_MODES:
            raise NotImplementedError(f"Interpolate mode '{node.mode}' has no numpy evaluation")
        rank = x.ndim
        begin = (list(node.pads_begin or []) + [0] * rank)[:rank]
        end = (list(node.pads_end or []) + [0] * rank)[:rank]
        x = pad_array(x, begin, end, "constant")
        axes = list(range(rank)) if axes is None else normalize_axes(np.atleast_1d(axes), rank)
        target = np.atleast_1d(target).reshape(-1)
        if node.shape_calculation_mode == "sizes":
            sizes = {a: int(t) for a, t in zip(axes, target)}
            scales = {a: np.float32(sizes[a]) / np.float32(x.shape[a]) for a in axes}
        else:
            scales = {a: float(np.float32(t)) for a, t in zip(axes, target)}
            sizes = {a: int(math.floor(x.shape[a] * scales[a] + 1e-5)) for a in axes}
        return resize(node, x, sizes, scales)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None]
        rank = len(shape)
        pads_b = list(node.pads_begin or []) + [0] * rank
        pads_e = list(node.pads_end or []) + [0] * rank
        padded = [d if d < 0 else d + pads_b[i] + pads_e[i] for i, d in enumerate(shape)]
        target = node.in_value(1)
        if node.is_in_port_connected(2):
            axes = node.in_value(2)
            axes = None if axes is None else normalize_axes(np.atleast_1d(axes), rank)
        else:
            axes = list(range(rank))
        if axes is None:
            return [(DYN,) * rank]
        if target is None:
            return [tuple(DYN if i in axes else d for i, d in enumerate(padded))]
        target = np.atleast_1d(target).reshape(-1)
        out = list(padded)
        for a, t in zip(axes, target):
            if node.shape_calculation_mode == "sizes":
                out[a] = int(t)
            else:
                out[a] = DYN if padded[a] < 0 else int(math.floor(padded[a] * float(t) + 1e-5))
        return [tuple(out)]


def source_coordinates(mode: str, out_len: int, in_len: int, scale: float) -> np.ndarray:
    """Input coordinate of each of the ``out_len`` output positions of one axis, in float32 as
    the runtime computes it."""
    out = np.arange(out_len, dtype=np.float32)
    scale = np.float32(scale)
    if mode == "half_pixel":
        return (out + np.float32(0.5)) / scale - np.float32(0.5)
    if mode == "pytorch_half_pixel":
        return (out + np.float32(0.5)) / scale - np.float32(0.5) if out_len > 1 else np.zeros(out_len, np.float32)
    if mode == "asymmetric":
        return out / scale
    if mode == "tf_half_pixel_for_nn":
        return (out + np.float32(0.5)) / scale
    if mode == "align_corners":
        if out_len == 1:
            return np.zeros(1, np.float32)
        return out * np.float32(in_len - 1) / np.float32(out_len - 1)
    raise ValueError(f"unknown coordinate_transformation_mode '{mode}'")


def nearest_indices(mode: str, coords: np.ndarray, scale: float, in_len: int) -> np.ndarray:
    """Input index each output position of one axis copies in ``nearest`` mode."""
    if mode == "round_prefer_floor":
        index = np.where(coords == np.floor(coords) + np.float32(0.5), np.floor(coords), np.round(coords))
    elif mode == "round_prefer_ceil":
        index = np.floor(coords + np.float32(0.5))
    elif mode == "floor":
        index = np.floor(coords)
    elif mode == "ceil":
        index = np.ceil(coords)
    elif mode == "simple":
        index = np.ceil(coords) if scale < 1 else np.trunc(coords)
    else:
        raise ValueError(f"unknown nearest_mode '{mode}'")
    return np.clip(index, 0, in_len - 1).astype(np.int64)


def cubic_weights(t: np.ndarray, a: float) -> np.ndarray:
    """[len(t), 4] Keys cubic weights of the taps floor-1 .. floor+2 at fractions ``t``."""
    t = t.astype(np.float64)[:, None]
    d = np.abs(np.array([-1.0, 0.0, 1.0, 2.0]) - t)
    near = ((a + 2) * d - (a + 3)) * d * d + 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def axis_weights(node, out_len: int, in_len: int, scale: float, antialias: bool) -> np.ndarray:
    """[out_len, in_len] matrix that resizes one axis in the linear, linear_onnx and cubic modes
    (``antialias``: the linear triangle is scaled by ``scale``)."""
    coords = source_coordinates(node.coordinate_transformation_mode, out_len, in_len, scale).astype(np.float64)
    matrix = np.zeros((out_len, in_len))
    rows = np.arange(out_len)
    if node.mode == "linear_onnx":
        coords = np.clip(coords, 0, in_len - 1)
        low = np.minimum(np.floor(coords).astype(np.int64), in_len - 1)
        high = np.minimum(low + 1, in_len - 1)
        frac = coords - low
        np.add.at(matrix, (rows, low), 1 - frac)
        np.add.at(matrix, (rows, high), frac)
    elif node.mode == "cubic":
        base = np.floor(coords).astype(np.int64)
        weights = cubic_weights(coords - base, node.cube_coeff)
        for tap in range(4):
            np.add.at(matrix, (rows, np.clip(base + tap - 1, 0, in_len - 1)), weights[:, tap])
    elif node.mode == "linear":
        # triangle filter, scaled by the axis scale when antialiasing; normalized over the input
        # positions it reaches
        a = scale if antialias else 1.0
        positions = np.arange(in_len)
        matrix = np.maximum(0.0, 1 - np.abs(a * (coords[:, None] - positions[None, :])))
        total = matrix.sum(axis=1, keepdims=True)
        matrix = np.divide(matrix, total, out=np.zeros_like(matrix), where=total > 0)
    else:
        raise NotImplementedError(f"Interpolate mode '{node.mode}' has no numpy evaluation")
    return matrix


def resize(node, x: np.ndarray, sizes: dict[int, int], scales: dict[int, float]) -> np.ndarray:
    """``x`` resized axis by axis to ``sizes`` with the per-axis ``scales`` of the coordinate
    transformation; an axis of scale 1 is kept as it is (whatever the coordinate mode).
    ``antialias`` applies (to every axis) when some axis shrinks."""
    antialias = bool(node.antialias) and any(s < 1 for s in scales.values())
    for axis, out_len in sizes.items():
        in_len, scale = x.shape[axis], scales[axis]
        if scale == 1 and out_len == in_len:
            continue
        if node.mode == "nearest":
            coords = source_coordinates(node.coordinate_transformation_mode, out_len, in_len, scale)
            x = np.take(x, nearest_indices(node.nearest_mode, coords, scale, in_len), axis=axis)
        else:
            matrix = axis_weights(node, out_len, in_len, scale, antialias)
            x = np.moveaxis(np.tensordot(matrix, x, axes=([1], [axis])), 0, axis).astype(x.dtype)
    return x
