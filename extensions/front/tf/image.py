"""TensorFlow image ops built from opset ops: CropAndResize (Gathers of the sampled rows and
columns), ExtractImagePatches, and the colour ops AdjustContrastv2, AdjustHue, AdjustSaturation,
HSVToRGB and RGBToHSV."""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, dim, i64, to_channels_first, to_channels_last
from mo.graph.port import Port

CROP_METHODS = ("bilinear", "nearest")


def _f32(b: OpBuilder, value: float) -> np.ndarray:
    return np.array(value, np.float32)


def _crop_positions(b: OpBuilder, low: Port, high: Port, size: int, extent: Port) -> Port:
    """Sample positions [N, size] along one image axis of ``extent`` pixels for boxes from
    ``low`` to ``high`` [N, 1] (normalized): low * (extent - 1) + i * (high - low) * (extent - 1) /
    (size - 1), or the box centre when ``size`` is 1."""
    last = b.Subtract(extent, _f32(b, 1))
    if size == 1:
        return b.Multiply(b.Multiply(b.Add(low, high), _f32(b, 0.5)), last)
    steps = np.arange(size, dtype=np.float32).reshape(1, -1)
    step = b.Divide(b.Multiply(b.Subtract(high, low), last), _f32(b, size - 1))
    return b.Add(b.Multiply(low, last), b.Multiply(step, steps))


def _inside(b: OpBuilder, positions: Port, extent: Port) -> Port:
    return b.LogicalAnd(b.GreaterEqual(positions, _f32(b, 0)),
                        b.LessEqual(positions, b.Subtract(extent, _f32(b, 1))))


def _index(b: OpBuilder, positions: Port, extent_i64: Port) -> Port:
    """Float pixel positions (already integral) as i64 indices clamped into the image."""
    index = b.Convert(positions, destination_type="i64")
    return b.Minimum(b.Maximum(index, np.int64(0)), b.Subtract(extent_i64, np.int64(1)))


def _gather_rows_cols(b: OpBuilder, images: Port, rows: Port, cols: Port) -> Port:
    """images [N, H, W, C] at rows [N, h] and columns [N, w] -> [N, h, w, C]."""
    picked = b.Gather(images, rows, np.int64(1), batch_dims=1)
    return b.Gather(picked, cols, np.int64(2), batch_dims=1)


@translator("tf", "CropAndResize")
def crop_and_resize(node, b):
    """Crops [N, crop_h, crop_w, C] (f32) of images [B, H, W, C] at the normalized boxes [N, 4]
    (y1, x1, y2, x2) of images box_ind [N]; samples outside the image take
    ``extrapolation_value``. Bilinear interpolates between the floor and ceiling pixels, nearest
    takes the pixel the position rounds to (halves away from zero)."""
    image, boxes, box_ind, crop = (node.in_port(i).get_source() for i in range(4))
    method = TfExtractor.attr(node, "method", "bilinear")
    if method not in CROP_METHODS:
        raise ConversionError(f"its method '{method}' is not one of {', '.join(CROP_METHODS)}.")
    size = crop.data.get_value()
    if size is None:
        raise ConversionError("its crop_size is not constant; the output size must be known when converting.")
    crop_h, crop_w = (int(v) for v in np.reshape(size, -1))
    if image.data.get_rank() not in (None, 4):
        raise ConversionError(f"its image has rank {image.data.get_rank()} where TensorFlow takes rank 4.")
    extrapolation = float(TfExtractor.attr(node, "extrapolation_value", 0.0))
    images = b.Gather(convert(b, image, "f32"), convert(b, box_ind, "i64"), np.int64(0))     # [N, H, W, C]
    height_i, width_i = dim(b, image, 1), dim(b, image, 2)
    height, width = b.Convert(height_i, destination_type="f32"), b.Convert(width_i, destination_type="f32")
    y1, x1, y2, x2 = b.Split(convert(b, boxes, "f32"), np.int64(1), num_splits=4)          # [N, 1] each
    ys, xs = _crop_positions(b, y1, y2, crop_h, height), _crop_positions(b, x1, x2, crop_w, width)
    inside = b.LogicalAnd(b.Unsqueeze(_inside(b, ys, height), i64(2, 3)),
                          b.Unsqueeze(_inside(b, xs, width), i64(1, 3)))                    # [N, h, w, 1]
    if method == "nearest":
        value = _gather_rows_cols(b, images, _index(b, b.Round(ys, mode="half_away_from_zero"), height_i),
                                  _index(b, b.Round(xs, mode="half_away_from_zero"), width_i))
    else:
        top, left = b.Floor(ys), b.Floor(xs)
        bottom, right = b.Ceiling(ys), b.Ceiling(xs)
        y_lerp = b.Unsqueeze(b.Subtract(ys, top), i64(2, 3))
        x_lerp = b.Unsqueeze(b.Subtract(xs, left), i64(1, 3))
        rows = [_index(b, p, height_i) for p in (top, bottom)]
        cols = [_index(b, p, width_i) for p in (left, right)]
        (tl, tr), (bl, br) = ([_gather_rows_cols(b, images, r, c) for c in cols] for r in rows)
        upper = b.Add(tl, b.Multiply(b.Subtract(tr, tl), x_lerp))
        lower = b.Add(bl, b.Multiply(b.Subtract(br, bl), x_lerp))
        value = b.Add(upper, b.Multiply(b.Subtract(lower, upper), y_lerp))
    return [b.Select(inside, value, _f32(b, extrapolation))]


@translator("tf", "ExtractImagePatches")
def extract_image_patches(node, b):
    """ExtractImagePatches-3 between Transposes (NHWC): patches [N, oh, ow, kh * kw * C]."""
    images = node.in_port(0).get_source()
    padding = TfExtractor.attr(node, "padding", "VALID")
    if padding not in ("SAME", "VALID"):
        raise ConversionError(f"its padding '{padding}' is not SAME or VALID.")
    sizes, strides, rates = ([int(v) for v in TfExtractor.attr(node, name, [1, 1, 1, 1])[1:3]]
                             for name in ("ksizes", "strides", "rates"))
    data = b.Transpose(images, to_channels_first(4))
    y = b.ExtractImagePatches(data, sizes=sizes, strides=strides, rates=rates,
                              auto_pad="same_upper" if padding == "SAME" else "valid", name=node.name)
    return [b.Transpose(y, to_channels_last(4))]
