"""Resize as ONNX defines it, shared by the translators of ONNX Resize/Upsample and of TensorFlow's
ResizeBicubic: ``build_resize`` makes an Interpolate-11 where Interpolate computes the same thing,
and otherwise the exact resampler below.

The exact resampler covers what Interpolate cannot express: ``exclude_outside``, ``antialias``
downsampling, the ``tf_crop_and_resize`` (region of interest, extrapolation value) and
``half_pixel_symmetric`` coordinate modes, and ``align_corners`` where scale * size is fractional
(ONNX maps coordinates with that float size). For each resized axis (innermost first, so an outer
axis mixes the inner results as the specification's recursion does): output coordinates
y = 0..out-1 map to input coordinates x; ``base = ceil(x) - 1`` and ``ratio = x - base`` in (0, 1];
the taps ``base + k`` (clamped to the input, i.e. edge padding) are gathered and summed with the
mode's weights of ``k - ratio``. Its weight sub-graphs are constant for static shapes and are
folded at conversion time by the middle phase's ConstantFolding.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.port import Port


@dataclass(frozen=True)
class ResizeSpec:
    """The attributes of a resize, named as in ONNX Resize (``mode``: nearest, linear_onnx or
    cubic, as in Interpolate)."""

    mode: str
    coordinate_transformation_mode: str = "half_pixel"
    nearest_mode: str = "round_prefer_floor"
    cube_coeff: float = -0.75
    antialias: bool = False
    exclude_outside: bool = False
    extrapolation_value: float = 0.0
    keep_aspect_ratio_policy: str = "stretch"


# The element types Interpolate-11 resizes, and the one each other type is resized in.
INTERPOLATE_TYPES = frozenset({"f32", "f16", "bf16", "f64", "i8", "u8", "i32", "i64"})
WIDER_FOR_INTERPOLATE = {"u16": "i32", "i16": "i32", "u32": "i64", "u64": "i64", "boolean": "u8"}


def f32(value) -> np.ndarray:
    return np.array(value, np.float32)


def axis_dims(b: OpBuilder, x: Port, shape: tuple, axes: np.ndarray) -> Port | np.ndarray:
    """The input dims of the resized axes as f32: a constant when static."""
    if all(shape[a] >= 0 for a in axes):
        return f32([shape[a] for a in axes])
    return b.Convert(b.Gather(b.ShapeOf(x, output_type="i64"), axes, np.int64(0)), destination_type="f32")


class AxisResampler:
    """Builds the exact resampling of one axis; ``dim``, ``scale``, ``out_size`` (float) and ``count``
    (integer output size) are scalar ports or constants."""

    def __init__(self, b: OpBuilder, spec: ResizeSpec, rank: int, axis: int, dim, scale, out_size, count):
        self.b, self.spec, self.rank, self.axis = b, spec, rank, axis
        self.dim, self.scale, self.out_size, self.count = dim, scale, out_size, count

    # ------------------------------------------------------------------ coordinates
    def coordinates(self, roi: tuple | None) -> Port:
        """Input coordinate of every output index, as ONNX's coordinate_transformation_mode says."""
        b, s, mode = self.b, self.scale, self.spec.coordinate_transformation_mode
        y = b.Convert(b.Range(np.int64(0), self.count, np.int64(1), output_type="i64"), destination_type="f32")
        centred = b.Subtract(b.Divide(b.Add(y, f32(0.5)), s), f32(0.5))
        single = b.Equal(self.out_size, f32(1))
        last = b.Subtract(self.dim, f32(1))
        if mode == "half_pixel":
            return centred
        if mode == "pytorch_half_pixel":
            return b.Select(single, f32(-0.5), centred)
        if mode == "half_pixel_symmetric":
            adjustment = b.Divide(b.Convert(self.count, destination_type="f32"), self.out_size)
            offset = b.Multiply(b.Divide(self.dim, f32(2)), b.Subtract(f32(1), adjustment))
            return b.Add(offset, centred)
        if mode == "align_corners":
            return b.Select(single, f32(0), b.Divide(b.Multiply(y, last), b.Subtract(self.out_size, f32(1))))
        if mode == "asymmetric":
            return b.Divide(y, s)
        if mode == "tf_half_pixel_for_nn":
            return b.Divide(b.Add(y, f32(0.5)), s)
        start, end = roi
        span = b.Multiply(b.Subtract(end, start), last)
        spread = b.Divide(b.Multiply(y, span), b.Subtract(self.out_size, f32(1)))
        return b.Add(b.Select(single, b.Divide(span, f32(2)), spread), b.Multiply(start, last))

    # ------------------------------------------------------------------ weights
    def taps(self, ratio) -> list[tuple[object, object]]:
        """(offset from base, weight or None) pairs of the interpolation mode; nearest has one
        tap whose offset (0 or 1) follows nearest_mode."""
        b, spec = self.b, self.spec
        if spec.mode == "nearest":
            if spec.nearest_mode == "ceil":
                return [(f32(1), None)]
            compare, threshold = {"round_prefer_floor": ("Greater", 0.5), "round_prefer_ceil": ("GreaterEqual", 0.5),
                                  "floor": ("Equal", 1)}[spec.nearest_mode]
            return [(b.Convert(b.op(compare, ratio, f32(threshold)), destination_type="f32"), None)]
        scale = self.antialias_scale()
        start = math.floor(-self.reach() / scale) + 1
        return [(f32(k), self.kernel(b.Multiply(b.Subtract(f32(k), ratio), f32(scale))))
                for k in range(start, 2 - start)]

    def reach(self) -> int:
        return 1 if self.spec.mode == "linear_onnx" else 2

    def kernel(self, t: Port) -> Port:
        return self.triangle(t) if self.spec.mode == "linear_onnx" else self.cubic(t)

    def antialias_scale(self) -> float | None:
        """min(scale, 1) for antialias (widens the kernel when downsampling), 1 without, None
        when the scale is not known."""
        if not self.spec.antialias:
            return 1.0
        value = self.scale.data.get_value() if not isinstance(self.scale, np.ndarray) else self.scale
        return None if value is None else min(float(value), 1.0)

    def triangle(self, t: Port) -> Port:
        b = self.b
        return b.Maximum(b.Subtract(f32(1), b.Abs(t)), f32(0))

    def cubic(self, t: Port) -> Port:
        """Keys' cubic convolution kernel with coefficient A = cube_coeff, zero beyond |t| = 2."""
        b, a = self.b, self.spec.cube_coeff
        t = b.Abs(t)
        t2 = b.Multiply(t, t)
        t3 = b.Multiply(t2, t)
        inner = b.Add(b.Subtract(b.Multiply(t3, f32(a + 2)), b.Multiply(t2, f32(a + 3))), f32(1))
        outer = b.Subtract(b.Add(b.Subtract(b.Multiply(t3, f32(a)), b.Multiply(t2, f32(5 * a))),
                                 b.Multiply(t, f32(8 * a))), f32(4 * a))
        return b.Select(b.LessEqual(t, f32(1)), inner, b.Select(b.Less(t, f32(2)), outer, f32(0)))

    # ------------------------------------------------------------------ the axis
    def resample(self, x: Port, roi: tuple | None = None) -> Port:
        """x resampled along the axis (``roi``: start and end of tf_crop_and_resize)."""
        b, spec = self.b, self.spec
        coords = self.coordinates(roi)
        if spec.mode != "nearest" and self.antialias_scale() is None:
            result = self.resample_dense(x, coords)
        else:
            result = self.resample_taps(x, coords)
        if spec.coordinate_transformation_mode == "tf_crop_and_resize":
            trailing = np.arange(1, self.rank - self.axis, dtype=np.int64)
            outside = b.LogicalOr(b.Less(coords, f32(0)), b.Greater(coords, b.Subtract(self.dim, f32(1))))
            outside = b.Unsqueeze(outside, trailing) if len(trailing) else outside
            result = b.Select(outside, b.ConvertLike(f32(spec.extrapolation_value), x), result)
        return result

    def resample_taps(self, x: Port, coords: Port) -> Port:
        """Sum over the mode's taps of Gather(x, clamped base + k) * weight."""
        b, spec = self.b, self.spec
        base = b.Subtract(b.Ceiling(coords), f32(1))
        ratio = b.Subtract(coords, base)
        last = b.Subtract(self.dim, f32(1))
        trailing = np.arange(1, self.rank - self.axis, dtype=np.int64)
        taps = self.taps(ratio)
        weights = [w for _, w in taps]
        if spec.exclude_outside and spec.mode != "nearest":
            weights = [b.Select(b.LogicalAnd(b.GreaterEqual(b.Add(base, k), f32(0)), b.LessEqual(b.Add(base, k), last)),
                                w, f32(0)) for (k, _), w in zip(taps, weights)]
        if spec.mode != "nearest":
            total = weights[0]
            for w in weights[1:]:
                total = b.Add(total, w)
            weights = [b.Divide(w, total) for w in weights]
        result = None
        for (k, _), w in zip(taps, weights):
            index = b.Minimum(b.Maximum(b.Add(base, k), f32(0)), last)
            part = b.Gather(x, b.Convert(index, destination_type="i64"), np.int64(self.axis), batch_dims=0)
            if w is not None:
                part = b.Multiply(part, b.ConvertLike(b.Unsqueeze(w, trailing) if len(trailing) else w, x))
            result = part if result is None else b.Add(result, part)
        return result

    def resample_dense(self, x: Port, coords: Port) -> Port:
        """Antialias with a scale known only at run time (the number of taps is not known): a
        weight matrix [out, dim] from the kernel at every input index i in [-P, dim + P) (P covers
        the widest kernel, scale >= 1 / dim), normalised, with the indices outside the input
        folded onto the edges (OneHot of the clamped index), applied with a MatMul along the
        axis."""
        b, spec = self.b, self.spec
        dim = b.Convert(self.dim, destination_type="i64")
        pad = b.Add(b.Multiply(dim, np.int64(self.reach())), np.int64(1))
        index = b.Range(b.Negative(pad), b.Add(dim, pad), np.int64(1), output_type="i64")
        scale = b.Minimum(self.scale, f32(1))
        offsets = b.Subtract(b.Unsqueeze(b.Convert(index, destination_type="f32"), np.int64(0)),
                             b.Unsqueeze(coords, np.int64(1)))
        weights = self.kernel(b.Multiply(offsets, scale))
        last = b.Subtract(dim, np.int64(1))
        if spec.exclude_outside:
            inside = b.LogicalAnd(b.GreaterEqual(index, np.int64(0)), b.LessEqual(index, last))
            weights = b.Select(inside, weights, f32(0))
        weights = b.Divide(weights, b.ReduceSum(weights, np.array([1], np.int64), keep_dims=True))
        fold = b.OneHot(b.Minimum(b.Maximum(index, np.int64(0)), last), dim, f32(1), f32(0), axis=-1,
                        negative_indices_mode="ignore_negative")
        matrix = b.ConvertLike(b.MatMul(weights, fold), x)
        order = list(range(self.rank))
        order[self.axis], order[-1] = order[-1], order[self.axis]
        order = np.array(order, np.int64)
        moved = b.Transpose(x, order)
        return b.Transpose(b.MatMul(moved, matrix, transpose_a=False, transpose_b=True), order)


def _ints(values) -> list[int]:
    return [int(v) for v in np.asarray(values).reshape(-1)]


def output_sizes(spec: ResizeSpec, shape: tuple, axes, sizes: Port | None, scales: Port | None) -> list[int] | None:
    """Sizes of the resized axes when the sizes or scales are constant, else None (a -1 where the
    input dim is dynamic)."""
    dims = [shape[a] for a in axes]
    if sizes is not None:
        values = sizes.data.get_value()
        if values is None:
            return None
        values = _ints(values)
        if spec.keep_aspect_ratio_policy == "stretch":
            return values
        if any(d < 0 for d in dims):
            return None
        pick = min if spec.keep_aspect_ratio_policy == "not_larger" else max
        scale = pick(s / d for s, d in zip(values, dims))
        return [int(math.floor(scale * d + 0.5)) for d in dims]
    values = scales.data.get_value()
    if values is None:
        return None
    return [-1 if d < 0 else int(math.floor(d * float(s) + 1e-5)) for d, s in zip(dims, values.reshape(-1))]


def integral_output(spec: ResizeSpec, shape: tuple, axes, sizes: Port | None, scales: Port | None) -> bool | None:
    """Whether ONNX's float output size (scale * input size) is whole on every axis; None when
    the scales or dims are not known."""
    dims = [shape[a] for a in axes]
    if sizes is not None:
        if spec.keep_aspect_ratio_policy == "stretch":
            return True
        values = sizes.data.get_value()
        if values is None or any(d < 0 for d in dims):
            return None
        pick = min if spec.keep_aspect_ratio_policy == "not_larger" else max
        scale = np.float32(pick(int(v) / d for v, d in zip(values.reshape(-1), dims)))
        return all(float(np.float64(scale) * d).is_integer() for d in dims)
    values = scales.data.get_value()
    if values is None or any(d < 0 for d in dims):
        return None
    return all(float(d * s).is_integer() for d, s in zip(dims, values.reshape(-1)))


def may_downsample(spec: ResizeSpec, shape: tuple, axes, sizes: Port | None, scales: Port | None) -> bool:
    """False only when every resized axis is known not to shrink."""
    out = output_sizes(spec, shape, axes, sizes, scales)
    dims = [shape[a] for a in axes]
    return out is None or any(s < 0 or d < 0 or s < d for s, d in zip(out, dims))


def needs_resampler(spec: ResizeSpec, shape: tuple, axes, sizes: Port | None, scales: Port | None) -> bool:
    """Whether the resize needs the exact resampler: Interpolate has no exclude_outside, region
    of interest or working antialias, and maps half_pixel_symmetric and align_corners
    coordinates with the integer output size where ONNX uses scale * input size (which may be
    fractional unless the sizes are given or the scales and dims known)."""
    mode = spec.coordinate_transformation_mode
    if mode == "tf_crop_and_resize" or (spec.exclude_outside and spec.mode == "cubic"):
        return True
    if spec.antialias and spec.mode != "nearest" and may_downsample(spec, shape, axes, sizes, scales):
        return True
    return mode in ("half_pixel_symmetric", "align_corners") and not integral_output(spec, shape, axes, sizes, scales)


def aspect_scale(b: OpBuilder, sizes: Port, dims: Port | np.ndarray, policy: str) -> Port:
    """The one scale of keep_aspect_ratio_policy not_larger / not_smaller: the min / max of
    sizes / dims over the axes (shape [1])."""
    ratios = b.Divide(b.Convert(sizes, destination_type="f32"), dims)
    reduce = "ReduceMin" if policy == "not_larger" else "ReduceMax"
    return b.op(reduce, ratios, np.array([0], np.int64), keep_dims=True)


def aspect_sizes(b: OpBuilder, scale: Port, dims: Port | np.ndarray) -> Port:
    """round_half_up(scale * dims) as i64 sizes."""
    return b.Convert(b.Floor(b.Add(b.Multiply(scale, dims), np.float32(0.5))), destination_type="i64")


def interpolate_target(b: OpBuilder, spec: ResizeSpec, x: Port, shape: tuple, axes: np.ndarray,
                       sizes: Port | None, scales: Port | None) -> tuple[bool, object]:
    """(True, sizes) or (False, scales) for Interpolate. With keep_aspect_ratio_policy ONNX maps
    coordinates by the one common scale: kept as scales when OpenVINO's floor(scale * dim) gives
    ONNX's rounded sizes, otherwise as sizes (coordinates then scale by size ratios)."""
    if sizes is None:
        return False, b.Convert(scales, destination_type="f32")
    if spec.keep_aspect_ratio_policy == "stretch":
        return True, b.Convert(sizes, destination_type="i64")
    static = output_sizes(spec, shape, axes, sizes, scales)
    if static is None:
        dims = axis_dims(b, x, shape, axes)
        return True, aspect_sizes(b, aspect_scale(b, sizes, dims, spec.keep_aspect_ratio_policy), dims)
    dims = [shape[a] for a in axes]
    pick = min if spec.keep_aspect_ratio_policy == "not_larger" else max
    scale = np.float32(pick(int(v) / d for v, d in zip(sizes.data.get_value().reshape(-1), dims)))
    if all(int(np.floor(np.float64(scale) * d + 1e-5)) == s for s, d in zip(static, dims)):
        return False, np.full(len(dims), scale, np.float32)
    return True, np.array(static, np.int64)


def resample_targets(b: OpBuilder, spec: ResizeSpec, x: Port, shape: tuple, axes: np.ndarray,
                     sizes: Port | None, scales: Port | None) -> tuple:
    """(sizes, scales) for the resampler: the sizes or the scales, or with
    keep_aspect_ratio_policy both (the rounded sizes and the one common scale)."""
    if sizes is None:
        return None, scales
    if spec.keep_aspect_ratio_policy == "stretch":
        return sizes, None
    dims = axis_dims(b, x, shape, axes)
    scale = aspect_scale(b, sizes, dims, spec.keep_aspect_ratio_policy)
    return aspect_sizes(b, scale, dims), b.Multiply(scale, np.ones(len(axes), np.float32))


def resample(b: OpBuilder, spec: ResizeSpec, x: Port, shape: tuple, axes: np.ndarray, sizes=None, scales=None,
             roi: Port | None = None) -> Port:
    """The resize of ``x`` over ``axes`` to integer ``sizes`` and/or by float ``scales`` (ports
    or arrays, one per axis; a missing one follows from the other), exactly as the ONNX
    reference computes it; ``roi`` is ONNX's region of interest for tf_crop_and_resize."""
    rank = len(shape)
    dims = axis_dims(b, x, shape, axes)
    if scales is None:
        scales = b.Divide(b.Convert(sizes, destination_type="f32"), dims)
    scales = b.Convert(scales, destination_type="f32")
    out_sizes = b.Multiply(scales, dims)
    if sizes is None:
        counts = b.Convert(b.Floor(b.Add(out_sizes, f32(1e-5))), destination_type="i64")
    else:
        counts = b.Convert(sizes, destination_type="i64")
    if spec.coordinate_transformation_mode == "tf_crop_and_resize":
        roi = b.Reshape(b.Convert(roi, destination_type="f32"), np.array([2, -1], np.int64), special_zero=False)
        if roi.data.get_shape() is not None and roi.data.get_shape()[1] == rank and len(axes) != rank:
            roi = b.Gather(roi, axes, np.int64(1))
    else:
        roi = None

    def pick(vector, i):
        return b.Gather(vector, np.int64(i), np.int64(0))

    known = scales.data.get_value()
    for i in sorted(range(len(axes)), key=lambda j: -int(axes[j])):
        if roi is None and known is not None and known.reshape(-1)[i] == 1:
            continue   # every coordinate mode maps an unscaled axis onto itself
        axis = AxisResampler(b, spec, rank, int(axes[i]), pick(dims, i), pick(scales, i), pick(out_sizes, i),
                             pick(counts, i))
        bounds = None if roi is None else (pick(pick(roi, 0), i), pick(pick(roi, 1), i))
        x = axis.resample(x, bounds)
    return x


def build_resize(b: OpBuilder, spec: ResizeSpec, x: Port, axes, sizes: Port | None = None,
                 scales: Port | None = None, roi: Port | None = None) -> Port:
    """``x`` resized over ``axes`` (non-negative) to ``sizes`` (integers, one per axis) or by
    ``scales`` (floats, one per axis): Interpolate-11 where it computes what ONNX Resize does,
    else the exact resampler. The rank of ``x`` must be known. An element type Interpolate does not
    take is resized in a wider one it takes and converted back."""
    dtype = x.data.get_dtype()
    if dtype is not None and dtype not in INTERPOLATE_TYPES:
        wide = b.Convert(x, destination_type=WIDER_FOR_INTERPOLATE.get(dtype, "f32"))
        return b.Convert(build_resize(b, spec, wide, axes, sizes, scales, roi), destination_type=dtype)
    shape = x.data.get_shape()
    axes = np.array(axes, np.int64)
    if needs_resampler(spec, shape, axes, sizes, scales):
        y = resample(b, spec, x, shape, axes, *resample_targets(b, spec, x, shape, axes, sizes, scales), roi=roi)
        return b.Identity(y) if y == x else y
    by_sizes, target = interpolate_target(b, spec, x, shape, axes, sizes, scales)
    rank = len(shape)
    mode = spec.coordinate_transformation_mode
    return b.Interpolate(x, target, axes, mode=spec.mode, shape_calculation_mode="sizes" if by_sizes else "scales",
                         # where Interpolate is used, half_pixel_symmetric has output sizes of exactly
                         # scale * input size: it is half_pixel
                         coordinate_transformation_mode="half_pixel" if mode == "half_pixel_symmetric" else mode,
                         nearest_mode=spec.nearest_mode, antialias=spec.antialias, pads_begin=[0] * rank,
                         pads_end=[0] * rank, cube_coeff=spec.cube_coeff)
