"""TensorFlow ResizeBilinear / ResizeNearestNeighbor / ResizeBicubic (images NHWC, size [h, w]):
Interpolate-11 of axes 1 and 2 to ``size``, which needs no Transpose. Bilinear and bicubic
compute and return f32 whatever the images' type, as TensorFlow does; nearest keeps the type
(i16 and u16, which Interpolate does not take, go through i32)."""
from __future__ import annotations

import numpy as np

from extensions.front.common.resize import ResizeSpec, build_resize
from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import convert

# (align_corners, half_pixel_centers) -> Interpolate coordinate_transformation_mode and nearest_mode
NEAREST_MODES = {(True, False): ("align_corners", "round_prefer_ceil"),
                 (False, True): ("tf_half_pixel_for_nn", "floor"),
                 (False, False): ("asymmetric", "floor")}


class ResizeExtractor(TfExtractor):
    """Reads ``align_corners`` and ``half_pixel_centers`` (not both)."""

    op_types = ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic")

    @classmethod
    def extract(cls, node):
        align, half = bool(cls.attr(node, "align_corners", False)), bool(cls.attr(node, "half_pixel_centers", False))
        if align and half:
            raise ConversionError(f"{node.fw_op} '{node.name}' sets both align_corners and half_pixel_centers.")
        node.update({"align_corners": align, "half_pixel_centers": half})


def _coordinates(node) -> str:
    return "align_corners" if node.align_corners else "half_pixel" if node.half_pixel_centers else "asymmetric"


# element types Interpolate does not take -> the type the images are resized in
WIDER = {"i16": "i32", "u16": "i32"}


def _interpolate(node, b, images, **attrs):
    return [b.Interpolate(images, node.in_port(1).get_source(), np.array([1, 2], np.int64),
                          shape_calculation_mode="sizes", antialias=False, pads_begin=[0, 0, 0, 0],
                          pads_end=[0, 0, 0, 0], **attrs)]


def _f32_images(node, b):
    return convert(b, node.in_port(0).get_source(), "f32")


@translator("tf", "ResizeBilinear")
def resize_bilinear(node, b):
    return _interpolate(node, b, _f32_images(node, b), mode="linear_onnx",
                        coordinate_transformation_mode=_coordinates(node), cube_coeff=-0.75)


@translator("tf", "ResizeNearestNeighbor")
def resize_nearest_neighbor(node, b):
    coordinates, nearest = NEAREST_MODES[(node.align_corners, node.half_pixel_centers)]
    images = node.in_port(0).get_source()
    dtype = images.data.get_dtype()
    (y,) = _interpolate(node, b, convert(b, images, WIDER.get(dtype, dtype)), mode="nearest",
                        coordinate_transformation_mode=coordinates, nearest_mode=nearest)
    return [convert(b, y, dtype)]


@translator("tf", "ResizeBicubic")
def resize_bicubic(node, b):
    """Cubic with coefficient -0.75; with half-pixel centers TensorFlow uses Keys' kernel
    (A = -0.5) on half-pixel coordinates, with the samples outside the image left out and the
    weights renormalised, which Interpolate cannot express. It is exactly ONNX Resize's cubic
    exclude_outside form, built by the shared resize builder with its exact resampler."""
    if not node.half_pixel_centers:
        return _interpolate(node, b, _f32_images(node, b), mode="cubic",
                            coordinate_transformation_mode=_coordinates(node), cube_coeff=-0.75)
    sizes = b.Convert(node.in_port(1).get_source(), destination_type="i64")
    spec = ResizeSpec(mode="cubic", coordinate_transformation_mode="half_pixel", cube_coeff=-0.5,
                      exclude_outside=True)
    return [build_resize(b, spec, _f32_images(node, b), [1, 2], sizes=sizes)]
