"""Lowering of the layout-sensitive TensorFlow operations to channels-first opset ops: poolings,
FusedBatchNorm and DepthToSpace / SpaceToDepth (wrapped in Transposes when the data is
channels-last), and the resizes (Interpolate over the spatial axes, which needs no Transpose).
Convolutions are lowered in the middle phase (extensions/middle/tf_lowering.py), where the
input channels are known."""
from __future__ import annotations

import numpy as np

from extensions.front.common.resize import ResizeSpec, build_resize
from extensions.front.tf.layout import back_to_data_format, in_channels_first, spatial, window_attrs
from extensions.front.tf.lowering import TfLowering
from mo.errors import ConversionError
from mo.graph.builder import OpBuilder


def filters_to_oihw(b: OpBuilder, w, n_spatial: int):
    """TensorFlow filters [k..., C_in, C_out] -> [C_out, C_in, k...]."""
    return b.Transpose(w, np.array([n_spatial + 1, n_spatial] + list(range(n_spatial)), np.int64))


class TfPoolToOpset(TfLowering):
    """MaxPool / AvgPool -> MaxPool / AvgPool (padding excluded from averages, as TensorFlow
    does); MaxPoolV2 takes ksize and strides from constant inputs."""

    op = "tf::Pool"

    def replace_op(self, graph, node):
        ksize, strides = node.ksize, node.strides
        if node.is_in_port_connected(1):
            ksize, strides = node.in_port(1).data.get_value(), node.in_port(2).data.get_value()
            if ksize is None or strides is None:
                raise ConversionError(f"MaxPoolV2 '{node.name}' has ksize or strides that are not constant.")
            node["strides"] = [int(v) for v in strides]
        b = OpBuilder(graph, node.name)
        rank = node.rank
        x = in_channels_first(b, node.in_port(0).get_source(), node, rank)
        attrs = window_attrs(node)
        attrs.pop("dilations")
        attrs["kernel"] = spatial(ksize, node.data_format)
        if node.pool == "max":
            y = b.MaxPool(x, name=node.name, rounding_type="floor", **attrs)[0]
        else:
            y = b.AvgPool(x, name=node.name, rounding_type="floor", **{"exclude-pad": True}, **attrs)
        return [back_to_data_format(b, y, node, rank)]


class TfFusedBatchNormToOpset(TfLowering):
    """FusedBatchNorm -> BatchNormInference (channels-first); outputs 1 and 2 (the statistics)
    are the given mean and variance."""

    op = "tf::FusedBatchNorm"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        rank = 5 if node.data_format in ("NDHWC", "NCDHW") else 4
        params = [node.in_port(i).get_source() for i in range(1, 5)]
        y = b.BatchNormInference(in_channels_first(b, x, node, rank), *params, epsilon=node.epsilon, name=node.name)
        return [back_to_data_format(b, y, node, rank), params[2], params[3]]


class TfDepthSpaceToOpset(TfLowering):
    """DepthToSpace / SpaceToDepth -> the opset ops in blocks_first mode (TensorFlow's order of
    the channel blocks), channels-first."""

    op = "tf::DepthSpace"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = in_channels_first(b, node.in_port(0).get_source(), node, 4)
        op = "DepthToSpace" if node.to_space else "SpaceToDepth"
        y = b.op(op, x, mode="blocks_first", block_size=node.block_size, name=node.name)
        return [back_to_data_format(b, y, node, 4)]


# (align_corners, half_pixel_centers) -> Interpolate coordinate_transformation_mode and nearest_mode
NEAREST_MODES = {(True, False): ("align_corners", "round_prefer_ceil"),
                 (False, True): ("tf_half_pixel_for_nn", "floor"),
                 (False, False): ("asymmetric", "floor")}


class TfResizeToInterpolate(TfLowering):
    """ResizeBilinear / ResizeNearestNeighbor / ResizeBicubic (NHWC) -> Interpolate-11 of axes
    1 and 2 to ``size``: bilinear is linear_onnx, bicubic is cubic with coefficient -0.75 (only
    without half-pixel centers)."""

    op = "tf::Resize"

    def replace_op(self, graph, node):
        if node.align_corners and node.half_pixel_centers:
            raise ConversionError(f"Resize '{node.name}' sets both align_corners and half_pixel_centers.")
        if node.mode == "cubic" and node.half_pixel_centers:
            return [self._keys_bicubic(graph, node)]
        key = (node.align_corners, node.half_pixel_centers)
        attrs = {"shape_calculation_mode": "sizes", "antialias": False, "pads_begin": [0, 0, 0, 0],
                 "pads_end": [0, 0, 0, 0]}
        if node.mode == "nearest":
            coordinates, nearest = NEAREST_MODES[key]
            attrs.update(mode="nearest", coordinate_transformation_mode=coordinates, nearest_mode=nearest)
        else:
            coordinates = "align_corners" if node.align_corners else "half_pixel" if node.half_pixel_centers \
                else "asymmetric"
            attrs.update(mode="linear_onnx" if node.mode == "linear" else "cubic",
                         coordinate_transformation_mode=coordinates,
                         cube_coeff=-0.75)
        b = OpBuilder(graph, node.name)
        y = b.Interpolate(node.in_port(0).get_source(), node.in_port(1).get_source(), np.array([1, 2], np.int64),
                          name=node.name, **attrs)
        return [y]

    @staticmethod
    def _keys_bicubic(graph, node):
        """ResizeBicubic with half-pixel centers: Keys' kernel (A = -0.5) on half-pixel
        coordinates, with the samples outside the image left out and the weights renormalised,
        which Interpolate cannot express. It is exactly ONNX Resize's cubic exclude_outside form,
        so it becomes that internal op, which the middle phase builds with its exact resampler."""
        b = OpBuilder(graph, node.name)
        sizes = b.Convert(node.in_port(1).get_source(), destination_type="i64")
        spec = ResizeSpec(mode="cubic", coordinate_transformation_mode="half_pixel", cube_coeff=-0.5,
                          exclude_outside=True)
        return build_resize(b, spec, node.in_port(0).get_source(), [1, 2], sizes=sizes)
