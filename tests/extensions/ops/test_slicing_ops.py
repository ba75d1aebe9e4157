"""infer of Slice-8 and StridedSlice-1: clamping, negative steps, axes, dynamic dims, folding."""
import numpy as np

from tests.utils.graphs import infer_op


def i64(*v):
    return np.array(v, np.int64)


def test_slice_clamps_and_keeps_other_dims():
    (out,) = infer_op("Slice", ((5, -1, 7), "f32"), i64(1, -100), i64(100, 3), i64(1, 1), i64(0, 2))
    assert out.data.get_shape() == (4, -1, 3)


def test_slice_negative_step_and_default_axes():
    (out,) = infer_op("Slice", ((6, 4), "f32"), i64(-1), i64(np.iinfo(np.int64).min), i64(-2))
    assert out.data.get_shape() == (3, 4)


def test_slice_dynamic_dim_and_unknown_bounds():
    (out,) = infer_op("Slice", ((-1, 4), "f32"), i64(0), i64(2), i64(1), i64(0))
    assert out.data.get_shape() == (-1, 4)
    (out,) = infer_op("Slice", ((3, 4), "f32"), ((1,), "i64"), i64(2), i64(1), i64(1))
    assert out.data.get_shape() == (3, -1)


def test_slice_folds():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    (out,) = infer_op("Slice", x, i64(5, 1), i64(0, 3), i64(-2, 1), i64(1, 0))
    np.testing.assert_array_equal(out.data.get_value(), x[1:3, 5:0:-2])


def test_strided_slice_masks():
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    (out,) = infer_op("StridedSlice", x, i64(1, 0, 2), i64(0, 0, 4), i64(1, 1, 1),
                      begin_mask=[0, 1, 0], end_mask=[1, 0, 0], new_axis_mask=[0, 0, 0], shrink_axis_mask=[0, 0, 1])
    np.testing.assert_array_equal(out.data.get_value(), x[1:, :0, 2])
    (shape,) = infer_op("StridedSlice", ((3, -1, 5), "f32"), i64(0, 1), i64(2, 0), i64(1, 1),
                        begin_mask=[0, 0], end_mask=[0, 1], new_axis_mask=[], shrink_axis_mask=[])
    assert shape.data.get_shape() == (2, -1, 5)
