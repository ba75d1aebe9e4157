"""Lowering of ONNX Resize / Upsample to Interpolate-11."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp, known_shape
from extensions.ops.onnx_tensor_internal import OnnxResize
from mo.errors import GraphError
from mo.graph.builder import OpBuilder


def aspect_sizes(b: OpBuilder, x, sizes, axes: np.ndarray, policy: str):
    """Sizes for keep_aspect_ratio_policy not_larger / not_smaller computed at run time:
    round_half_up(scale * dims) with scale the min / max of sizes / dims over the axes."""
    dims = b.Convert(b.Gather(b.ShapeOf(x, output_type="i64"), axes, np.int64(0)), destination_type="f32")
    ratios = b.Divide(b.Convert(sizes, destination_type="f32"), dims)
    reduce = "ReduceMin" if policy == "not_larger" else "ReduceMax"
    scale = b.op(reduce, ratios, np.array([0], np.int64), keep_dims=True)
    return b.Convert(b.Floor(b.Add(b.Multiply(scale, dims), np.float32(0.5))), destination_type="i64")


def interpolate_target(b: OpBuilder, node, x, shape, axes: np.ndarray) -> tuple[bool, object]:
    """(True, sizes) or (False, scales) for Interpolate. With keep_aspect_ratio_policy ONNX maps
    coordinates by the one common scale: kept as scales when OpenVINO's floor(scale * dim) gives
    ONNX's rounded sizes, otherwise as sizes (coordinates then scale by size ratios)."""
    sizes = OnnxResize.target(node, "sizes_port")
    if sizes is None:
        return False, b.Convert(OnnxResize.target(node, "scales_port"), destination_type="f32")
    if node.keep_aspect_ratio_policy == "stretch":
        return True, b.Convert(sizes, destination_type="i64")
    static = OnnxResize.output_sizes(node, shape)
    if static is None:
        return True, aspect_sizes(b, x, sizes, axes, node.keep_aspect_ratio_policy)
    dims = [shape[a] for a in axes]
    pick = min if node.keep_aspect_ratio_policy == "not_larger" else max
    scale = np.float32(pick(int(v) / d for v, d in zip(sizes.data.get_value().reshape(-1), dims)))
    if all(int(np.floor(np.float64(scale) * d + 1e-5)) == s for s, d in zip(static, dims)):
        return False, np.full(len(dims), scale, np.float32)
    return True, np.array(static, np.int64)


def may_downsample(node, shape) -> bool:
    """False only when every resized axis is known not to shrink."""
    sizes = OnnxResize.output_sizes(node, shape)
    dims = [shape[a] for a in OnnxResize.axes(node, len(shape))]
    return sizes is None or any(s < 0 or d < 0 or s < d for s, d in zip(sizes, dims))


def integral_sizes(shape, axes, by_sizes: bool, scales: np.ndarray | None) -> bool | None:
    """Whether scale * input size is a whole number on every axis (True with sizes), None when
    the scales or dims are not known. ONNX maps coordinates with that (float) size where
    OpenVINO uses the integer output size."""
    if by_sizes:
        return True
    if scales is None or any(shape[a] < 0 for a in axes):
        return None
    return all(float(shape[a] * s).is_integer() for a, s in zip(axes, scales.reshape(-1)))


def coordinate_mode(node, shape, axes, by_sizes: bool, scales: np.ndarray | None) -> str:
    """Interpolate's coordinate_transformation_mode for the ONNX one, or a GraphError."""
    mode = node.coordinate_transformation_mode
    if mode == "tf_crop_and_resize":
        raise GraphError(f"Resize '{node.name}': coordinate_transformation_mode tf_crop_and_resize (a region of "
                         f"interest) has no OpenVINO Interpolate equivalent")
    integral = integral_sizes(shape, axes, by_sizes, scales)
    if mode == "half_pixel_symmetric" and not integral:
        raise GraphError(f"Resize '{node.name}': coordinate_transformation_mode half_pixel_symmetric with a "
                         f"fractional (or unknown) scale * size has no OpenVINO Interpolate equivalent")
    if mode == "align_corners" and integral is False:
        raise GraphError(f"Resize '{node.name}': align_corners with a fractional scale * size has no OpenVINO "
                         f"Interpolate equivalent")
    # half_pixel_symmetric is half_pixel when the output size is exactly scale * input size.
    return "half_pixel" if mode == "half_pixel_symmetric" else mode


class ResizeToInterpolate(MiddleReplaceOp):
    """ONNX Resize / Upsample -> Interpolate-11 over ``axes`` (all dims by default) by the sizes
    input if there is one, else by the scales."""

    op = "onnx::Resize"

    def replace_op(self, graph, node):
        x = node.in_port(0).get_source()
        shape = known_shape(node)
        if node.exclude_outside and node.mode == "cubic":
            raise GraphError(f"Resize '{node.name}': exclude_outside has no OpenVINO Interpolate equivalent")
        if node.antialias and node.mode != "nearest" and may_downsample(node, shape):
            raise GraphError(f"Resize '{node.name}': antialiased downsampling has no OpenVINO Interpolate "
                             f"equivalent (the CPU plugin ignores Interpolate's antialias)")
        axes = np.array(OnnxResize.axes(node, len(shape)), np.int64)
        if OnnxResize.target(node, "sizes_port") is None and OnnxResize.target(node, "scales_port") is None:
            raise GraphError(f"Resize '{node.name}' has neither scales nor sizes")
        b = OpBuilder(graph, node.name)
        by_sizes, target = interpolate_target(b, node, x, shape, axes)
        scales = None if by_sizes else target if isinstance(target, np.ndarray) else target.data.get_value()
        rank = len(shape)
        return [b.Interpolate(x, target, axes, mode=node.mode,
                              shape_calculation_mode="sizes" if by_sizes else "scales",
                              coordinate_transformation_mode=coordinate_mode(node, shape, axes, by_sizes, scales),
                              nearest_mode=node.nearest_mode, antialias=node.antialias, pads_begin=[0] * rank,
                              pads_end=[0] * rank, cube_coeff=node.cube_coeff, name=node.name)]
