"""infer of Softmax, LogSoftmax and onnx::Softmax (2-D view, Hardmax)."""
import numpy as np

from tests.utils.graphs import infer_op


def test_softmax_keeps_shape_and_folds():
    (out,) = infer_op("Softmax", ((2, -1), "f32"), axis=-1)
    assert out.data.get_shape() == (2, -1) and out.data.get_dtype() == "f32"
    (out,) = infer_op("Softmax", np.array([[0.0, np.log(3.0)]], np.float32), axis=1)
    np.testing.assert_allclose(out.data.get_value(), [[0.25, 0.75]], rtol=1e-6)


def test_log_softmax_folds():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    (out,) = infer_op("LogSoftmax", x, axis=0)
    np.testing.assert_allclose(out.data.get_value(), x - np.log(np.exp(x).sum()), rtol=1e-6)


def test_onnx_softmax_flattens_trailing_axes():
    x = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    (out,) = infer_op("onnx::Softmax", x, variant="Softmax", axis=1, flatten=True)
    np.testing.assert_allclose(out.data.get_value().reshape(2, 4).sum(axis=1), [1, 1], rtol=1e-6)


def test_onnx_hardmax_marks_first_maximum():
    x = np.array([[1, 3, 3], [2, 0, 2]], np.float32)
    (out,) = infer_op("onnx::Softmax", x, variant="Hardmax", axis=-1)
    np.testing.assert_array_equal(out.data.get_value(), [[0, 1, 0], [1, 0, 0]])
    (out,) = infer_op("onnx::Softmax", ((-1, 3), "f32"), variant="Hardmax", axis=0)
    assert out.data.get_shape() == (-1, 3)
