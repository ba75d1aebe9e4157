"""infer of the ONNX tensor ops that wait for the middle phase: Split with num_outputs, CumProd and
Col2Im."""
import numpy as np

from extensions.ops.onnx_tensor_internal import split_lengths
from tests.utils.graphs import infer_op


def test_split_lengths_last_part_smaller():
    assert split_lengths(8, 3) == [3, 3, 2]
    assert split_lengths(2, 3) == [1, 1, 0]


def test_onnx_split_shapes():
    parts = infer_op("onnx::Split", ((2, 7), "f32"), axis=1, num_outputs=3)
    assert [p.data.get_shape() for p in parts] == [(2, 3), (2, 3), (2, 1)]
    parts = infer_op("onnx::Split", ((-1, 7), "f32"), axis=0, num_outputs=2)
    assert [p.data.get_shape() for p in parts] == [(-1, 7), (-1, 7)]


def test_middle_ops_fold_constants():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    parts = infer_op("onnx::Split", x, axis=1, num_outputs=3)
    assert [p.data.get_value().shape for p in parts] == [(3, 2), (3, 2), (3, 0)]
    (cum,) = infer_op("onnx::CumProd", x + 1, np.int64(0), exclusive=True, reverse=False)
    np.testing.assert_array_equal(cum.data.get_value()[:, 0], [1, 1, 5])


def test_onnx_col2im_shapes():
    (out,) = infer_op("onnx::Col2Im", ((2, 24, 30), "f32"), np.array([4, 5, 3]), np.array([2, 2, 2]),
                      strides=None, dilations=None, pads_begin=None, pads_end=None)
    assert out.data.get_shape() == (2, 3, 4, 5, 3)
    (out,) = infer_op("onnx::Col2Im", ((2, 24, 30), "f32"), ((3,), "i64"), ((3,), "i64"),
                      strides=None, dilations=None, pads_begin=None, pads_end=None)
    assert out.data.get_shape() == (2, -1, -1, -1, -1)
