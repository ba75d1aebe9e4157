"""infer of the normalization ops."""
import numpy as np

from tests.utils.graphs import infer_op


def test_batch_norm_inference_keeps_shape_and_folds():
    (out,) = infer_op("BatchNormInference", ((-1, 3, 4, 4), "f32"), *[np.ones(3, np.float32)] * 4, epsilon=0.0)
    assert out.data.get_shape() == (-1, 3, 4, 4) and out.data.get_dtype() == "f32"
    x = np.arange(6, dtype=np.float32).reshape(1, 3, 2)
    ones = np.ones(3, np.float32)
    (out,) = infer_op("BatchNormInference", x, ones * 2, ones, ones, ones * 3, epsilon=1.0)
    np.testing.assert_allclose(out.data.get_value(), (x - 1) / 2 * 2 + 1)


def test_mvn_folds_inside_and_outside_sqrt():
    x = np.array([[1.0, 3.0], [2.0, 6.0]], np.float32)
    (inside,) = infer_op("MVN", x, np.array([1]), eps=1.0, eps_mode="inside_sqrt")
    expected = [[-1 / np.sqrt(2), 1 / np.sqrt(2)], [-2 / np.sqrt(5), 2 / np.sqrt(5)]]
    np.testing.assert_allclose(inside.data.get_value(), expected, rtol=1e-6)
    (outside,) = infer_op("MVN", x, np.array([1]), eps=1.0, eps_mode="outside_sqrt")
    np.testing.assert_allclose(outside.data.get_value(), [[-0.5, 0.5], [-2 / 3, 2 / 3]], rtol=1e-6)
    (dynamic,) = infer_op("MVN", ((2, -1, 5), "f16"), np.array([2]))
    assert dynamic.data.get_shape() == (2, -1, 5) and dynamic.data.get_dtype() == "f16"


def test_normalize_l2_and_group_normalization_fold():
    x = np.array([[3.0, 4.0]], np.float32)
    (out,) = infer_op("NormalizeL2", x, np.array([1]), eps=0.0, eps_mode="add")
    np.testing.assert_allclose(out.data.get_value(), [[0.6, 0.8]])
    x = np.arange(8, dtype=np.float32).reshape(1, 4, 2)
    (out,) = infer_op("GroupNormalization", x, np.ones(4, np.float32), np.zeros(4, np.float32), num_groups=2,
                      epsilon=0.0)
    group = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(out.data.get_value().reshape(2, 4), [(group - group.mean()) / group.std()] * 2,
                               rtol=1e-6)
