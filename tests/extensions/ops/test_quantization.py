"""A Convert marked not foldable (the dequantization of quantized weights) keeps its value unknown;
infer of FakeQuantize-1: shapes, and values against torch's fake quantization."""
import numpy as np
import pytest
import torch

from tests.utils.graphs import infer_op
from tests.utils.reference import build_graph, run_reference


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


def _fake_quantized(x, *bounds, levels):
    graph = build_graph(lambda b: b.FakeQuantize(b.Parameter(shape=x.shape, element_type="f32"), *bounds,
                                                 levels=levels))
    return run_reference(graph, [x])[0]


def test_fake_quantize_matches_torch_per_tensor_and_per_channel():
    x = np.random.default_rng(0).normal(size=(2, 3, 5)).astype(np.float32) * 4
    scale, zp = 0.05, 3
    low, high = np.float32((-128 - zp) * scale), np.float32((127 - zp) * scale)
    out = _fake_quantized(x, low, high, low, high, levels=256)
    expected = torch.fake_quantize_per_tensor_affine(torch.from_numpy(x), scale, zp, -128, 127).numpy()
    np.testing.assert_allclose(out, expected, atol=scale * 1.01)
    scales = np.array([0.05, 0.1, 0.02], np.float32).reshape(3, 1)
    out = _fake_quantized(x, 0 * scales, 255 * scales, 0 * scales, 255 * scales, levels=256)
    expected = torch.fake_quantize_per_channel_affine(torch.from_numpy(x), torch.from_numpy(scales.reshape(3)),
                                                      torch.zeros(3, dtype=torch.int32), 1, 0, 255).numpy()
    np.testing.assert_allclose(out, expected, atol=0.1 * 1.01)
    assert out.dtype == np.float32


def test_fake_quantize_of_weights_is_not_folded_small_constants_are():
    """Constant weights (16 values and more) keep their FakeQuantize for the middle phase to store
    them as integers; a few constant values fold."""
    w = np.linspace(-1, 1, 16, dtype=np.float32)
    (out,) = infer_op("FakeQuantize", w, np.float32(-1), np.float32(1), np.float32(-1), np.float32(1), levels=256)
    assert out.data.get_value() is None and out.data.get_shape() == (16,)
    (out,) = infer_op("FakeQuantize", w[:8], np.float32(-1), np.float32(1), np.float32(-1), np.float32(1), levels=256)
    assert out.data.get_value() is not None


def test_fake_quantize_shapes_and_levels():
    (out,) = infer_op("FakeQuantize", ((-1, 3, 4), "f32"), np.float32(0), np.float32(1), np.float32(0),
                      np.float32(1), levels=2)
    assert out.data.get_shape() == (-1, 3, 4)
    with pytest.raises(Exception, match="at least 2 levels"):
        infer_op("FakeQuantize", ((2,), "f32"), np.float32(0), np.float32(1), np.float32(0), np.float32(1), levels=1)
