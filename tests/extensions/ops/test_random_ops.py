"""RandomUniform and Multinomial: never folded, shapes and types inferred; evaluate (the
reference interpreter's) draws from the distribution."""
import numpy as np
import pytest

from tests.utils.graphs import infer_op
from tests.utils.reference import build_graph, run_reference


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
    (out,) = infer_op("Multinomial", probs, np.array([6], np.int64), convert_type="i32", with_replacement=True)
    assert out.data.get_value() is None and out.data.get_shape() == (2, 6) and out.data.get_dtype() == "i32"
    samples = out.node.op_class.evaluate(out.node, probs, np.array([6]))
    assert samples.shape == (2, 6) and (samples[0] == 1).all() and set(np.unique(samples[1])) <= {0, 2}


def test_random_uniform_shapes_types_and_no_folding():
    (out,) = infer_op("RandomUniform", np.array([2, 3], np.int64), np.float32(0), np.float32(1), output_type="f32")
    assert out.data.get_shape() == (2, 3) and out.data.get_dtype() == "f32" and out.data.get_value() is None
    (out,) = infer_op("RandomUniform", ((3,), "i64"), np.int64(0), np.int64(5), output_type="i64")
    assert out.data.get_shape() == (-1, -1, -1) and out.data.get_dtype() == "i64"
    with pytest.raises(Exception, match="cannot make u8"):
        infer_op("RandomUniform", np.array([2], np.int64), np.uint8(0), np.uint8(5), output_type="u8")


def test_multinomial_shapes_and_rank():
    (out,) = infer_op("Multinomial", ((4, 5), "f32"), np.int64(3), convert_type="i32")
    assert out.data.get_shape() == (4, 3) and out.data.get_dtype() == "i32"
    with pytest.raises(Exception, match="rank 2"):
        infer_op("Multinomial", ((5,), "f32"), np.int64(3))


def test_reference_draws():
    def build(b):
        shape = np.array([1000], np.int64)
        uniform = b.RandomUniform(shape, np.float32(-1), np.float32(1), output_type="f32", op_seed=3)
        ints = b.RandomUniform(shape, np.int64(2), np.int64(4), output_type="i64")
        probs = b.Parameter(shape=(1, 3), element_type="f32", name="p")
        picks = b.Multinomial(probs, np.int64(3), convert_type="i64", with_replacement=False)
        return uniform, ints, picks

    uniform, ints, picks = run_reference(build_graph(build), [np.array([[1, 1, 1]], np.float32)])
    assert -1 <= uniform.min() and uniform.max() < 1 and abs(uniform.mean()) < 0.1
    assert set(np.unique(ints)) == {2, 3}
    assert sorted(picks[0].tolist()) == [0, 1, 2]
