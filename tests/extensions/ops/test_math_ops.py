"""infer of Convert, ConvertLike and PRelu."""
import numpy as np

from tests.utils.graphs import infer_op


def test_convert_rounds_to_bf16_and_saturates_narrow_ints():
    (out,) = infer_op("Convert", np.array([1.00390625, 3.0], np.float32), destination_type="bf16")
    np.testing.assert_array_equal(out.data.get_value(), [1.0, 3.0])
    (out,) = infer_op("Convert", np.array([-20.7, 3.9, 100.0], np.float32), destination_type="i4")
    np.testing.assert_array_equal(out.data.get_value(), [-8, 3, 7])
    (out,) = infer_op("Convert", np.array([0.0, 2.5], np.float32), destination_type="boolean")
    np.testing.assert_array_equal(out.data.get_value(), [False, True])


def test_convert_to_float8_is_not_folded():
    (out,) = infer_op("Convert", np.array([1.0, 500.0], np.float32), destination_type="f8e4m3")
    assert out.data.get_value() is None and out.data.get_shape() == (2,)
    assert out.data.get_dtype() == "f8e4m3"


def test_convert_like_takes_the_type_of_input_1():
    (out,) = infer_op("ConvertLike", ((2, 3), "f32"), ((1,), "i32"))
    assert out.data.get_dtype() == "i32" and out.data.get_shape() == (2, 3)


def test_prelu_one_d_slope_of_channel_length_is_per_channel():
    x = -np.ones((1, 2, 2), np.float32)
    (out,) = infer_op("PRelu", x, np.array([1, 2], np.float32))
    np.testing.assert_array_equal(out.data.get_value(), [[[-1, -1], [-2, -2]]])
    (out,) = infer_op("PRelu", x, np.array([[1, 2]], np.float32))
    np.testing.assert_array_equal(out.data.get_value(), [[[-1, -2], [-1, -2]]])
