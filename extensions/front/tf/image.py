"""TensorFlow image ops built from opset ops: CropAndResize (Gathers of the sampled rows and
columns), ExtractImagePatches, and the colour ops AdjustContrastv2, AdjustHue, AdjustSaturation,
HSVToRGB and RGBToHSV."""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, dim, i64, to_channels_first, to_channels_last, typed_const
from mo.graph.port import Port

CROP_METHODS = ("bilinear", "nearest")


def _f32(value: float) -> np.ndarray:
    return np.array(value, np.float32)


def _crop_positions(b: OpBuilder, low: Port, high: Port, size: int, extent: Port) -> Port:
    """Sample positions [N, size] along one image axis of ``extent`` pixels for boxes from
    ``low`` to ``high`` [N, 1] (normalized): low * (extent - 1) + i * (high - low) * (extent - 1) /
    (size - 1), or the box centre when ``size`` is 1."""
    last = b.Subtract(extent, _f32(1))
    if size == 1:
        return b.Multiply(b.Multiply(b.Add(low, high), _f32(0.5)), last)
    steps = np.arange(size, dtype=np.float32).reshape(1, -1)
    step = b.Divide(b.Multiply(b.Subtract(high, low), last), _f32(size - 1))
    return b.Add(b.Multiply(low, last), b.Multiply(step, steps))


def _inside(b: OpBuilder, positions: Port, extent: Port) -> Port:
    return b.LogicalAnd(b.GreaterEqual(positions, _f32(0)),
                        b.LessEqual(positions, b.Subtract(extent, _f32(1))))


def _index(b: OpBuilder, positions: Port, extent_i64: Port) -> Port:
    """Float pixel positions (already integral) as i64 indices clamped into the image."""
    index = b.Convert(positions, destination_type="i64")
    return b.Minimum(b.Maximum(index, np.int64(0)), b.Subtract(extent_i64, np.int64(1)))


def _gather_rows_cols(b: OpBuilder, pixels: Port, first_rows: Port, width: Port, rows: Port, cols: Port) -> Port:
    """The f32 pixels [B * H * W, C] at rows [N, h] and columns [N, w] of each box's image
    (whose first row is first_rows [N, 1, 1]) -> [N, h, w, C]: one Gather, so no image is
    copied per box."""
    index = b.Multiply(b.Add(first_rows, b.Unsqueeze(rows, i64(2))), width)
    return convert(b, b.Gather(pixels, b.Add(index, b.Unsqueeze(cols, i64(1))), np.int64(0)), "f32")


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
    height_i, width_i = dim(b, image, 1), dim(b, image, 2)
    pixels = b.Reshape(image, b.Concat(i64(-1), b.Reshape(dim(b, image, 3), i64(1), special_zero=False), axis=0),
                       special_zero=False)                                                     # [B * H * W, C]
    first_rows = b.Unsqueeze(b.Multiply(convert(b, box_ind, "i64"), height_i), i64(1, 2))     # [N, 1, 1]

    def gather(rows, cols):
        return _gather_rows_cols(b, pixels, first_rows, width_i, rows, cols)
    height, width = b.Convert(height_i, destination_type="f32"), b.Convert(width_i, destination_type="f32")
    y1, x1, y2, x2 = b.Split(convert(b, boxes, "f32"), np.int64(1), num_splits=4)          # [N, 1] each
    ys, xs = _crop_positions(b, y1, y2, crop_h, height), _crop_positions(b, x1, x2, crop_w, width)
    inside = b.LogicalAnd(b.Unsqueeze(_inside(b, ys, height), i64(2, 3)),
                          b.Unsqueeze(_inside(b, xs, width), i64(1, 3)))                    # [N, h, w, 1]
    if method == "nearest":
        value = gather(_index(b, b.Round(ys, mode="half_away_from_zero"), height_i),
                       _index(b, b.Round(xs, mode="half_away_from_zero"), width_i))
    else:
        top, left = b.Floor(ys), b.Floor(xs)
        bottom, right = b.Ceiling(ys), b.Ceiling(xs)
        y_lerp = b.Unsqueeze(b.Subtract(ys, top), i64(2, 3))
        x_lerp = b.Unsqueeze(b.Subtract(xs, left), i64(1, 3))
        rows = [_index(b, p, height_i) for p in (top, bottom)]
        cols = [_index(b, p, width_i) for p in (left, right)]
        (tl, tr), (bl, br) = ([gather(r, c) for c in cols] for r in rows)
        upper = b.Add(tl, b.Multiply(b.Subtract(tr, tl), x_lerp))
        lower = b.Add(bl, b.Multiply(b.Subtract(br, bl), x_lerp))
        value = b.Add(upper, b.Multiply(b.Subtract(lower, upper), y_lerp))
    return [b.Select(inside, value, _f32(extrapolation))]


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


# ---------------------------------------------------------------------------- colour ops
# Images [..., 3] (RGB or HSV in the last dimension), computed in f32 for f16/bf16 and returned in
# the images' type.


def _channels(b: OpBuilder, images: Port) -> tuple[Port, Port, Port, str]:
    """The three channels [..., 1] of ``images`` in their computing type, and the images' type."""
    dtype = images.data.get_dtype()
    if images.data.get_shape() is not None and images.data.get_shape()[-1] not in (-1, 3):
        raise ConversionError(f"its images have {images.data.get_shape()[-1]} channels where it takes 3.")
    data = images if dtype in ("f32", "f64") else convert(b, images, "f32")
    return (*b.Split(data, np.int64(-1), num_splits=3), dtype)


def _const_as(b: OpBuilder, value: float, like: Port) -> Port:
    return typed_const(b, value, like.data.get_dtype())


def rgb_to_hsv(b: OpBuilder, r: Port, g: Port, b_: Port) -> tuple[Port, Port, Port]:
    """Hue in [0, 1) (0 for greys), saturation (max - min) / max (0 for black), value max."""
    c = lambda v: _const_as(b, v, r)  # noqa: E731
    value = b.Maximum(b.Maximum(r, g), b_)
    spread = b.Subtract(value, b.Minimum(b.Minimum(r, g), b_))
    positive = b.Greater(value, c(0))
    saturation = b.Select(positive, b.Divide(spread, b.Select(positive, value, c(1))), c(0))
    grey = b.LessEqual(spread, c(0))
    norm = b.Divide(c(1), b.Multiply(b.Select(grey, c(1), spread), c(6)))
    hue = b.Select(b.Equal(r, value), b.Multiply(norm, b.Subtract(g, b_)),
                   b.Select(b.Equal(g, value), b.Add(b.Multiply(norm, b.Subtract(b_, r)), c(2 / 6)),
                            b.Add(b.Multiply(norm, b.Subtract(r, g)), c(4 / 6))))
    hue = b.Select(grey, c(0), hue)
    hue = b.Select(b.Less(hue, c(0)), b.Add(hue, c(1)), hue)
    return hue, saturation, value


def hsv_to_rgb(b: OpBuilder, h: Port, s: Port, v: Port) -> tuple[Port, Port, Port]:
    """Each channel ((1 - s) + s * ramp(6h)) * v, the ramps clamp(|6h - 3| - 1),
    clamp(2 - |6h - 2|) and clamp(2 - |6h - 4|) to [0, 1]."""
    c = lambda x: _const_as(b, x, h)  # noqa: E731
    sixths = b.Multiply(h, c(6))
    one_minus_s = b.Subtract(c(1), s)

    def channel(centre, sign):
        distance = b.Abs(b.Subtract(sixths, c(centre)))
        ramp = b.Subtract(distance, c(1)) if sign > 0 else b.Subtract(c(2), distance)
        ramp = b.Minimum(b.Maximum(ramp, c(0)), c(1))
        return b.Multiply(b.Add(one_minus_s, b.Multiply(s, ramp)), v)
    return channel(3, 1), channel(2, -1), channel(4, -1)


def _joined(b: OpBuilder, channels, dtype: str) -> Port:
    return convert(b, b.Concat(*channels, axis=-1), dtype)


@translator("tf", "RGBToHSV")
def rgb_to_hsv_op(node, b):
    *rgb, dtype = _channels(b, node.in_port(0).get_source())
    return [_joined(b, rgb_to_hsv(b, *rgb), dtype)]


@translator("tf", "HSVToRGB")
def hsv_to_rgb_op(node, b):
    *hsv, dtype = _channels(b, node.in_port(0).get_source())
    return [_joined(b, hsv_to_rgb(b, *hsv), dtype)]


@translator("tf", "AdjustHue")
def adjust_hue(node, b):
    """The hue shifted by ``delta`` and wrapped into [0, 1)."""
    *rgb, dtype = _channels(b, node.in_port(0).get_source())
    h, s, v = rgb_to_hsv(b, *rgb)
    shifted = b.Add(h, convert(b, node.in_port(1).get_source(), h.data.get_dtype()))
    h = b.Subtract(shifted, b.Floor(shifted))
    return [_joined(b, hsv_to_rgb(b, h, s, v), dtype)]


@translator("tf", "AdjustSaturation")
def adjust_saturation(node, b):
    """The saturation multiplied by ``scale`` and clamped to [0, 1]."""
    *rgb, dtype = _channels(b, node.in_port(0).get_source())
    h, s, v = rgb_to_hsv(b, *rgb)
    s = b.Multiply(s, convert(b, node.in_port(1).get_source(), s.data.get_dtype()))
    s = b.Minimum(b.Maximum(s, _const_as(b, 0, s)), _const_as(b, 1, s))
    return [_joined(b, hsv_to_rgb(b, h, s, v), dtype)]


@translator("tf", "AdjustContrastv2")
def adjust_contrast(node, b):
    """(x - mean) * contrast_factor + mean, the mean per channel over the image's height and
    width (dimensions -3 and -2), in f32."""
    images = node.in_port(0).get_source()
    data = convert(b, images, "f32")
    mean = b.ReduceMean(data, i64(-3, -2), keep_dims=True)
    factor = convert(b, node.in_port(1).get_source(), "f32")
    return [convert(b, b.Add(b.Multiply(b.Subtract(data, mean), factor), mean), images.data.get_dtype())]
