"""evaluate of Interpolate-11, compared with torch.nn.functional.interpolate where torch has the
same coordinate and rounding rules, and with small hand-computed cases elsewhere."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.utils.graphs import infer_op

RNG = np.random.default_rng(1)
X = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
AXES = np.array([2, 3], np.int64)


def resized(x, target, axes=AXES, **attrs):
    mode = "scales" if np.asarray(target).dtype.kind == "f" else "sizes"
    (out,) = infer_op("Interpolate", x, np.asarray(target), axes, shape_calculation_mode=mode, **attrs)
    return out.data.get_value()


@pytest.mark.parametrize("size", [(9, 13), (3, 4), (10, 12), (1, 6)])
def test_nearest_modes_as_torch(size):
    t = torch.from_numpy(X)
    floor = F.interpolate(t, size=size, mode="nearest").numpy()
    np.testing.assert_array_equal(resized(X, size, mode="nearest", coordinate_transformation_mode="asymmetric",
                                          nearest_mode="floor"), floor)
    exact = F.interpolate(t, size=size, mode="nearest-exact").numpy()
    np.testing.assert_array_equal(resized(X, size, mode="nearest", coordinate_transformation_mode="half_pixel",
                                          nearest_mode="round_prefer_ceil"), exact)


@pytest.mark.parametrize("mode", ["linear", "linear_onnx"])
@pytest.mark.parametrize("size", [(9, 13), (3, 4), (2, 11), (1, 1)])
@pytest.mark.parametrize("align", [False, True])
def test_linear_modes_as_torch_bilinear(mode, size, align):
    expected = F.interpolate(torch.from_numpy(X), size=size, mode="bilinear", align_corners=align).numpy()
    ctm = "align_corners" if align else "half_pixel"
    np.testing.assert_allclose(resized(X, size, mode=mode, coordinate_transformation_mode=ctm), expected,
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("size", [(9, 13), (3, 4), (5, 12)])
def test_cubic_as_torch_bicubic(size):
    expected = F.interpolate(torch.from_numpy(X), size=size, mode="bicubic", align_corners=False).numpy()
    np.testing.assert_allclose(resized(X, size, mode="cubic", coordinate_transformation_mode="half_pixel",
                                       cube_coeff=-0.75), expected, rtol=1e-4, atol=1e-5)


def test_trilinear_over_three_axes_and_scales():
    x = RNG.standard_normal((1, 2, 4, 5, 6)).astype(np.float32)
    expected = F.interpolate(torch.from_numpy(x), scale_factor=(2.0, 1.5, 0.5), mode="trilinear").numpy()
    out = resized(x, np.array([2.0, 1.5, 0.5], np.float32), np.array([2, 3, 4], np.int64), mode="linear_onnx",
                  coordinate_transformation_mode="half_pixel")
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("size", [(3, 4), (2, 3), (4, 2)])
def test_linear_antialias_widens_the_triangle_as_torch(size):
    expected = F.interpolate(torch.from_numpy(X), size=size, mode="bilinear", antialias=True,
                             align_corners=False).numpy()
    out = resized(X, size, mode="linear", antialias=True, coordinate_transformation_mode="half_pixel")
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_one_axis_coordinate_and_rounding_modes_by_hand():
    x = np.arange(5, dtype=np.float32).reshape(1, 5) * 10
    axis = np.array([1], np.int64)
    cases = [   # (attrs, size, expected)
        (dict(mode="nearest", coordinate_transformation_mode="tf_half_pixel_for_nn", nearest_mode="floor"),
         2, [10, 30]),                     # x = (i + 0.5) * 2.5 = 1.25, 3.75
        (dict(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="ceil"), 2, [0, 30]),
        (dict(mode="nearest", coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_floor"),
         10, [0, 0, 10, 10, 20, 20, 30, 30, 40, 40]),     # x = i / 2 - 0.25: 0.75 rounds up, 1.25 down
        (dict(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="simple"),
         3, [0, 20, 40]),                  # downscale: ceil(i * 5 / 3)
        (dict(mode="linear_onnx", coordinate_transformation_mode="asymmetric"), 2, [0, 25]),
        (dict(mode="linear", coordinate_transformation_mode="tf_half_pixel_for_nn"), 1, [25]),
        (dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"), 1, [0]),
        (dict(mode="linear_onnx", coordinate_transformation_mode="align_corners"), 3, [0, 20, 40]),
    ]
    for attrs, size, expected in cases:
        np.testing.assert_allclose(resized(x, np.array([size], np.int64), axis, **attrs)[0], expected,
                                   rtol=1e-6, err_msg=str(attrs))


def test_unchanged_axis_is_copied_and_pads_are_zeros():
    x = np.arange(4, dtype=np.float32).reshape(1, 4)
    # an axis keeping its size is not resampled, whatever the coordinate mode
    out = resized(x, np.array([4], np.int64), np.array([1], np.int64), mode="linear",
                  coordinate_transformation_mode="tf_half_pixel_for_nn")
    np.testing.assert_array_equal(out, x)
    out = resized(x, np.array([12], np.int64), np.array([1], np.int64), mode="nearest",
                  coordinate_transformation_mode="asymmetric", nearest_mode="floor", pads_begin=[0, 1], pads_end=[0, 1])
    np.testing.assert_array_equal(out[0], np.repeat([0, 0, 1, 2, 3, 0], 2))


def test_pillow_modes_are_not_folded():
    (out,) = infer_op("Interpolate", X, np.array([3, 4], np.int64), AXES, mode="bilinear_pillow")
    assert out.data.get_value() is None and out.data.get_shape() == (2, 3, 3, 4)
