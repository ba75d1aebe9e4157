"""A Convert marked not foldable (the dequantization of quantized weights) keeps its value unknown;
infer of FakeQuantize-1: shapes, and values against torch's fake quantization."""
import numpy as np
import pytest
import torch

from tests.utils.graphs import infer_op


def test_unfoldable_node_keeps_its_value_unknown():
    weights = np.arange(6, dtype=np.int8).reshape(2, 3)
    (folded,) = infer_op("Convert", weights, destination_type="f32")
    np.testing.assert_array_equal(folded.data.get_value(), weights.astype(np.float32))
    (kept,) = infer_op("Convert", weights, destination_type="f32", foldable=False)
    assert kept.data.get_value() is None
    assert kept.data.get_shape() == (2, 3) and kept.data.get_dtype() == "f32"


def test_fake_quantize_levels_and_bounds():
    """4 levels over [0, 3] mapped onto [-1, 2]: each value goes to the nearest level, the values
    outside the input range to the output bounds; per-channel bounds broadcast."""
    x = np.array([[-0.5, 0.0, 0.4, 0.6, 1.2, 2.6, 3.0, 3.5]], np.float32)
    (out,) = infer_op("FakeQuantize", x, np.float32(0), np.float32(3), np.float32(-1), np.float32(2), levels=4)
    np.testing.assert_allclose(out.data.get_value(), [[-1, -1, -1, 0, 0, 2, 2, 2]])
    bounds = np.array([[0.0], [10.0]], np.float32)
    (out,) = infer_op("FakeQuantize", np.array([[0.3], [13.0]], np.float32), bounds, bounds + 10, bounds, bounds + 10,
                      levels=11)
    np.testing.assert_allclose(out.data.get_value(), [[0.0], [13.0]])
    (out,) = infer_op("FakeQuantize", ((2, -1), "f32"), bounds, bounds + 10, bounds, bounds + 10, levels=3)
    assert out.data.get_shape() == (2, -1) and out.data.get_dtype() == "f32"


def test_fake_quantize_matches_torch_per_tensor_and_per_channel():
    x = np.random.default_rng(0).normal(size=(2, 3, 5)).astype(np.float32) * 4
    scale, zp = 0.05, 3
    low, high = np.float32((-128 - zp) * scale), np.float32((127 - zp) * scale)
    (out,) = infer_op("FakeQuantize", x, low, high, low, high, levels=256)
    expected = torch.fake_quantize_per_tensor_affine(torch.from_numpy(x), scale, zp, -128, 127).numpy()
    np.testing.assert_allclose(out.data.get_value(), expected, atol=scale * 1.01)
    scales = np.array([0.05, 0.1, 0.02], np.float32).reshape(3, 1)
    (out,) = infer_op("FakeQuantize", x, 0 * scales, 255 * scales, 0 * scales, 255 * scales, levels=256)
    expected = torch.fake_quantize_per_channel_affine(torch.from_numpy(x), torch.from_numpy(scales.reshape(3)),
                                                      torch.zeros(3, dtype=torch.int32), 1, 0, 255).numpy()
    np.testing.assert_allclose(out.data.get_value(), expected, atol=0.1 * 1.01)
    assert out.data.get_dtype() == "f32"


def test_fake_quantize_shapes_and_levels():
    (out,) = infer_op("FakeQuantize", ((-1, 3, 4), "f32"), np.float32(0), np.float32(1), np.float32(0),
                      np.float32(1), levels=2)
    assert out.data.get_shape() == (-1, 3, 4)
    with pytest.raises(Exception, match="at least 2 levels"):
        infer_op("FakeQuantize", ((2,), "f32"), np.float32(0), np.float32(1), np.float32(0), np.float32(1), levels=1)
