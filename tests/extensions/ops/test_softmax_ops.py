"""infer of Softmax and LogSoftmax."""
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
