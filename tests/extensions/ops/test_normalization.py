"""infer of the normalization ops; evaluate of LRN."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

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


@pytest.mark.parametrize("size", [1, 3, 5])
def test_lrn_across_channels_evaluates_as_torch(size):
    x = np.random.default_rng(3).standard_normal((2, 7, 4, 5)).astype(np.float32)
    expected = F.local_response_norm(torch.from_numpy(x), size, alpha=0.3, beta=0.75, k=1.5).numpy()
    (out,) = infer_op("LRN", x, np.array([1], np.int64), alpha=0.3, beta=0.75, bias=1.5, size=size)
    np.testing.assert_allclose(out.data.get_value(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("size", [2, 3, 4])
def test_lrn_over_spatial_axes_sums_a_centred_square(size):
    """The window reaches (size - 1) // 2 positions each way along every axis (an even size
    gives the same window as size - 1) and alpha is divided by size^len(axes)."""
    x = np.random.default_rng(4).standard_normal((1, 2, 5, 6)).astype(np.float32)
    half = (size - 1) // 2
    sq = np.pad(x.astype(np.float64) ** 2, ((0, 0), (0, 0), (half, half), (half, half)))
    total = np.zeros(x.shape)
    for i in range(2 * half + 1):
        for j in range(2 * half + 1):
            total += sq[:, :, i:i + 5, j:j + 6]
    expected = x / (2.0 + 0.5 / size ** 2 * total) ** 0.6
    (out,) = infer_op("LRN", x, np.array([2, 3], np.int64), alpha=0.5, beta=0.6, bias=2.0, size=size)
    np.testing.assert_allclose(out.data.get_value(), expected, rtol=1e-5, atol=1e-6)
