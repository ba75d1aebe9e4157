"""Layer tests of the TensorFlow image ops: CropAndResize, ExtractImagePatches and the colour
ops, over their attributes and element types."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

raw = tf.raw_ops

IMAGES = random((2, 7, 9, 3), seed=1, low=0, high=10)
# inside, partly outside, flipped (y2 < y1), a single row, a point
CROP_BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [-0.3, 0.5, 0.6, 1.4], [0.9, 0.7, 0.2, 0.1], [0.5, 0.0, 0.5, 1.0],
                       [0.3, 0.3, 0.3, 0.3]], np.float32)
CROP_INDEX = np.array([0, 1, 1, 0, 1], np.int32)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("crop_size", [(4, 5), (1, 3), (6, 1)])
@pytest.mark.parametrize("extrapolation", [0.0, -1.5])
def test_crop_and_resize(tmp_path, method, crop_size, extrapolation):
    check_tf(tmp_path, lambda x, boxes: raw.CropAndResize(image=x, boxes=boxes, box_ind=CROP_INDEX, crop_size=crop_size,
                                                          method=method, extrapolation_value=extrapolation),
             [IMAGES, CROP_BOXES])


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64, np.float16,
                                   np.float64])
def test_crop_and_resize_types(tmp_path, dtype):
    check_tf(tmp_path, lambda x: raw.CropAndResize(image=x, boxes=CROP_BOXES, box_ind=CROP_INDEX, crop_size=(3, 4)),
             [IMAGES.astype(dtype)], atol=1e-3)


def test_crop_and_resize_dynamic_batch(tmp_path):
    check_tf(tmp_path, lambda x, i: raw.CropAndResize(image=x, boxes=CROP_BOXES, box_ind=i, crop_size=(3, 4)),
             [IMAGES, CROP_INDEX], dynamic_batch=True)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("sizes,strides,rates", [((2, 3), (1, 1), (1, 1)), ((3, 2), (2, 3), (1, 1)),
                                                 ((2, 2), (1, 2), (2, 1)), ((1, 1), (3, 3), (1, 1))])
def test_extract_image_patches(tmp_path, padding, sizes, strides, rates):
    check_tf(tmp_path, lambda x: raw.ExtractImagePatches(images=x, ksizes=[1, *sizes, 1], strides=[1, *strides, 1],
                                                         rates=[1, *rates, 1], padding=padding), [IMAGES])


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64, np.uint32, np.uint64,
                                   np.float16, np.float64])
def test_extract_image_patches_types(tmp_path, dtype):
    check_tf(tmp_path, lambda x: raw.ExtractImagePatches(images=x, ksizes=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                                         rates=[1, 1, 1, 1], padding="SAME"), [IMAGES.astype(dtype)])


RGB = np.concatenate([random((2, 4, 5, 3), seed=5, low=0, high=1),
                      np.array([[[[0.5, 0.5, 0.5], [0, 0, 0], [1, 0, 0], [0.2, 0.9, 0.9], [0.3, 0.3, 0.8]]] * 4])
                      .astype(np.float32)])      # greys, black, and ties between the largest channels
HSV = np.concatenate([random((2, 4, 5, 3), seed=6, low=0, high=1), np.zeros((1, 4, 5, 3), np.float32)])
COLOUR_TYPES = [(np.float32, 1e-5), (np.float64, 1e-6), (np.float16, 5e-3)]


@pytest.mark.parametrize("dtype,tol", COLOUR_TYPES)
def test_rgb_to_hsv(tmp_path, dtype, tol):
    check_tf(tmp_path, lambda x: raw.RGBToHSV(images=x), [RGB.astype(dtype)], atol=tol, rtol=tol)


@pytest.mark.parametrize("dtype,tol", COLOUR_TYPES)
def test_hsv_to_rgb(tmp_path, dtype, tol):
    check_tf(tmp_path, lambda x: raw.HSVToRGB(images=x), [HSV.astype(dtype)], atol=tol, rtol=tol)


# TensorFlow runs AdjustHue, AdjustSaturation and AdjustContrastv2 on f32 only (f16 under XLA)
@pytest.mark.parametrize("delta", [0.0, 0.3, -0.45, 0.9])
def test_adjust_hue(tmp_path, delta):
    check_tf(tmp_path, lambda x: raw.AdjustHue(images=x, delta=delta), [RGB], atol=1e-5)


@pytest.mark.parametrize("scale", [0.0, 0.5, 1.7, 4.0])
def test_adjust_saturation(tmp_path, scale):
    check_tf(tmp_path, lambda x: raw.AdjustSaturation(images=x, scale=scale), [RGB], atol=1e-5)


@pytest.mark.parametrize("factor", [0.0, 0.4, 2.5, -1.0])
def test_adjust_contrast(tmp_path, factor):
    check_tf(tmp_path, lambda x: raw.AdjustContrastv2(images=x, contrast_factor=factor), [IMAGES])


def test_adjust_contrast_batch_of_batches(tmp_path):
    """Images [..., H, W, C] of rank 5: the mean is over H and W only."""
    check_tf(tmp_path, lambda x: raw.AdjustContrastv2(images=x, contrast_factor=1.5), [IMAGES.reshape(2, 1, 7, 9, 3)])


def test_adjust_hue_computed_delta(tmp_path):
    check_tf(tmp_path, lambda x, d: raw.AdjustHue(images=x, delta=d), [RGB, np.array(0.2, np.float32)])
