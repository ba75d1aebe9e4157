"""Lowering of ONNX Resize / Upsample to Interpolate-11, or to the exact resampler of
resize_resample.py for the forms Interpolate cannot express."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from extensions.middle.resize_resample import axis_dims, needs_resampler, resample
from extensions.ops.onnx_tensor_internal import OnnxResize
from mo.errors import GraphError
from mo.graph.builder import OpBuilder
from mo.graph.building import input_rank
from mo.graph.port import Port


def aspect_scale(b: OpBuilder, sizes: Port, dims: Port | np.ndarray, policy: str) -> Port:
    """The one scale of keep_aspect_ratio_policy not_larger / not_smaller: the min / max of
    sizes / dims over the axes (shape [1])."""
    ratios = b.Divide(b.Convert(sizes, destination_type="f32"), dims)
    reduce = "ReduceMin" if policy == "not_larger" else "ReduceMax"
    return b.op(reduce, ratios, np.array([0], np.int64), keep_dims=True)


def aspect_sizes(b: OpBuilder, scale: Port, dims: Port | np.ndarray) -> Port:
    """round_half_up(scale * dims) as i64 sizes."""
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
        dims = axis_dims(b, x, shape, axes)
        return True, aspect_sizes(b, aspect_scale(b, sizes, dims, node.keep_aspect_ratio_policy), dims)
    dims = [shape[a] for a in axes]
    pick = min if node.keep_aspect_ratio_policy == "not_larger" else max
    scale = np.float32(pick(int(v) / d for v, d in zip(sizes.data.get_value().reshape(-1), dims)))
    if all(int(np.floor(np.float64(scale) * d + 1e-5)) == s for s, d in zip(static, dims)):
        return False, np.full(len(dims), scale, np.float32)
    return True, np.array(static, np.int64)


def coordinate_mode(node) -> str:
    """Interpolate's coordinate_transformation_mode for the ONNX one (where Interpolate is used,
    half_pixel_symmetric has output sizes of exactly scale * input size: it is half_pixel)."""
    mode = node.coordinate_transformation_mode
    return "half_pixel" if mode == "half_pixel_symmetric" else mode


class ResizeToInterpolate(MiddleReplaceOp):
    """ONNX Resize / Upsample -> Interpolate-11 over ``axes`` (all dims by default) by the sizes
    input if there is one, else by the scales."""

    op = "onnx::Resize"

    def replace_op(self, graph, node):
        x = node.in_port(0).get_source()
        input_rank(node)
        shape = x.data.get_shape()
        axes = np.array(OnnxResize.axes(node, len(shape)), np.int64)
        if OnnxResize.target(node, "sizes_port") is None and OnnxResize.target(node, "scales_port") is None:
            raise GraphError(f"Resize '{node.name}' has neither scales nor sizes")
        b = OpBuilder(graph, node.name)
        if needs_resampler(node, shape, axes):
            return [b.Identity(resample(b, node, x, shape, axes, *resample_targets(b, node, x, shape, axes)),
                               name=node.name)]
        by_sizes, target = interpolate_target(b, node, x, shape, axes)
        rank = len(shape)
        return [b.Interpolate(x, target, axes, mode=node.mode,
                              shape_calculation_mode="sizes" if by_sizes else "scales",
                              coordinate_transformation_mode=coordinate_mode(node),
                              nearest_mode=node.nearest_mode, antialias=node.antialias, pads_begin=[0] * rank,
                              pads_end=[0] * rank, cube_coeff=node.cube_coeff, name=node.name)]


def resample_targets(b: OpBuilder, node, x, shape, axes: np.ndarray) -> tuple:
    """(sizes, scales) for the resampler: the sizes or the scales input, or with
    keep_aspect_ratio_policy both (the rounded sizes and the one common scale)."""
    sizes = OnnxResize.target(node, "sizes_port")
    if sizes is None:
        return None, OnnxResize.target(node, "scales_port")
    if node.keep_aspect_ratio_policy == "stretch":
        return sizes, None
    dims = axis_dims(b, x, shape, axes)
    scale = aspect_scale(b, sizes, dims, node.keep_aspect_ratio_policy)
    return aspect_sizes(b, scale, dims), b.Multiply(scale, np.ones(len(axes), np.float32))
