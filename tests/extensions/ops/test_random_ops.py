"""RandomUniform and Multinomial: never folded, shapes and types inferred; evaluate (the
reference interpreter's) draws from the distribution."""
import numpy as np

from tests.utils.graphs import infer_op


def test_random_uniform_is_not_folded_and_takes_its_shape():
    (out,) = infer_op("RandomUniform", np.array([2, 5], np.int64), np.float32(1), np.float32(3), output_type="f32")
    assert out.data.get_value() is None and out.data.get_shape() == (2, 5) and out.data.get_dtype() == "f32"
    (dynamic,) = infer_op("RandomUniform", ((3,), "i32"), np.int32(0), np.int32(4), output_type="i32")
    assert dynamic.data.get_shape() == (-1, -1, -1) and dynamic.data.get_dtype() == "i32"


def test_random_uniform_evaluate_is_in_range():
    (out,) = infer_op("RandomUniform", np.array([1000], np.int64), np.int64(-2), np.int64(3), output_type="i64",
                      global_seed=4)
    node = out.node
    values = node.op_class.evaluate(node, np.array([1000]), np.array(-2), np.array(3))
    assert values.dtype == np.int64 and set(np.unique(values)) == {-2, -1, 0, 1, 2}


def test_multinomial_shape_type_and_evaluate():
    probs = np.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]], np.float32)
    (out,) = infer_op("Multinomial", probs, np.array([6], np.int64), convert_type="i32")
    assert out.data.get_value() is None and out.data.get_shape() == (2, 6) and out.data.get_dtype() == "i32"
    samples = out.node.op_class.evaluate(out.node, probs, np.array([6]))
    assert samples.shape == (2, 6) and (samples[0] == 1).all() and set(np.unique(samples[1])) <= {0, 2}
