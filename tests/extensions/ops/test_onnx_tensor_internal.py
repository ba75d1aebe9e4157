"""infer of the ONNX tensor ops that wait for the middle phase: Pad with axes, Resize and
CenterCropPad."""
import numpy as np

from tests.utils.graphs import infer_op


def test_onnx_pad_with_axes():
    (out,) = infer_op("onnx::Pad", ((1, 3, 4), "f32"), np.array([1, 2, 0, 3]), None, np.array([-1, 0]), mode="constant")
    assert out.data.get_shape() == (6, 3, 5)
    (out,) = infer_op("onnx::Pad", ((1, 3, 4), "f32"), ((6,), "i64"), mode="wrap")
    assert out.data.get_shape() == (-1, -1, -1)


def test_onnx_resize_shapes():
    attrs = {"scales_port": 2, "sizes_port": 3, "axes": None, "keep_aspect_ratio_policy": "stretch"}
    (out,) = infer_op("onnx::Resize", ((1, 3, 4, 6), "f32"), None, np.array([1, 1, 0.5, 1.5], np.float32), **attrs)
    assert out.data.get_shape() == (1, 3, 2, 9)
    attrs.update(axes=[2, 3], keep_aspect_ratio_policy="not_larger")
    (out,) = infer_op("onnx::Resize", ((1, 3, 4, 6), "f32"), None, None, np.array([2, 9]), **attrs)
    assert out.data.get_shape() == (1, 3, 2, 3)
    (out,) = infer_op("onnx::Resize", ((1, 3, 4, 6), "f32"), None, None, ((2,), "i64"), **attrs)
    assert out.data.get_shape() == (1, 3, -1, -1)


def test_onnx_center_crop_pad():
    (out,) = infer_op("onnx::CenterCropPad", ((5, 6, 3), "f32"), np.array([4, 8]), axes=[0, -2])
    assert out.data.get_shape() == (4, 8, 3)


def test_middle_ops_fold_constants():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (pad,) = infer_op("onnx::Pad", x, np.array([1, 1]), None, np.array([1]), mode="wrap")
    np.testing.assert_array_equal(pad.data.get_value(), np.pad(x, [(0, 0), (1, 1)], mode="wrap"))
    (crop,) = infer_op("onnx::CenterCropPad", x, np.array([2, 6]), axes=None)
    np.testing.assert_array_equal(crop.data.get_value(), np.pad(x[0:2], [(0, 0), (1, 1)]))

