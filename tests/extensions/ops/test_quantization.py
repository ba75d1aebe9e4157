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
