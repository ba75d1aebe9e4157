"""A Convert marked not foldable (the dequantization of quantized weights) keeps its value unknown."""
import numpy as np

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
