"""infer of the shape-manipulation ops: shapes with dynamic dims and constant folding."""
import numpy as np
import pytest

from mo.errors import GraphError
from tests.utils.graphs import infer_op


def test_reshape_special_zero_keeps_dynamic_batch():
    (out,) = infer_op("Reshape", ((-1, 3, 4, 4), "f32"), np.array([0, -1]), special_zero=True)
    assert out.data.get_shape() == (-1, 48)      # the copied dynamic dim does not hide the -1 (as OpenVINO infers)
    assert out.data.get_dtype() == "f32"
    (out,) = infer_op("Reshape", ((-1, 3, 4, 4), "f32"), np.array([-1, 0]), special_zero=True)
    assert out.data.get_shape() == (-1, 3)


def test_reshape_infers_minus_one():
    (out,) = infer_op("Reshape", ((2, 3, 4), "f32"), np.array([-1, 4]), special_zero=False)
    assert out.data.get_shape() == (6, 4)


def test_reshape_rejects_impossible_target():
    with pytest.raises(GraphError, match="Reshape"):
        infer_op("Reshape", ((2, 3), "f32"), np.array([4, 2]))


def test_reshape_folds_constant():
    (out,) = infer_op("Reshape", np.arange(6, dtype=np.float32), np.array([2, 3]))
    np.testing.assert_array_equal(out.data.get_value(), np.arange(6, dtype=np.float32).reshape(2, 3))


def test_shapeof_static_value_and_dynamic_shape():
    (static,) = infer_op("ShapeOf", ((2, 3), "f32"))
    np.testing.assert_array_equal(static.data.get_value(), [2, 3])
    (dynamic,) = infer_op("ShapeOf", ((-1, 3), "f32"))
    assert dynamic.data.get_value() is None and dynamic.data.get_shape() == (2,)


def test_concat_sums_axis_and_keeps_dynamic():
    (out,) = infer_op("Concat", ((1, 2), "f32"), ((1, 3), "f32"), axis=-1)
    assert out.data.get_shape() == (1, 5)
    (out,) = infer_op("Concat", ((-1, 2), "f32"), ((1, -1), "f32"), axis=1)
    assert out.data.get_shape() == (1, -1)


def test_transpose_and_unsqueeze_squeeze():
    (t,) = infer_op("Transpose", ((1, 2, 3), "f32"), np.array([2, 0, 1]))
    assert t.data.get_shape() == (3, 1, 2)
    (u,) = infer_op("Unsqueeze", ((2, 3), "f32"), np.array([0, -1]))
    assert u.data.get_shape() == (1, 2, 3, 1)
    (s,) = infer_op("Squeeze", ((1, 2, 1), "f32"), np.array([0]))
    assert s.data.get_shape() == (2, 1)


def test_split_and_variadic_split():
    parts = infer_op("Split", ((4, 6), "f32"), np.array(1), num_splits=3)
    assert [p.data.get_shape() for p in parts] == [(4, 2)] * 3
    parts = infer_op("VariadicSplit", ((4, 6), "f32"), np.array(1), np.array([1, -1]))
    assert [p.data.get_shape() for p in parts] == [(4, 1), (4, 5)]


def test_broadcast_modes():
    (n,) = infer_op("Broadcast", ((3, 1), "f32"), np.array([2, 3, 4]), mode="numpy")
    assert n.data.get_shape() == (2, 3, 4)
    (b,) = infer_op("Broadcast", ((3, 1), "f32"), np.array([1, 5]), mode="bidirectional")
    assert b.data.get_shape() == (3, 5)


def test_roll_folds_as_index_arithmetic():
    """out[(i + shift) mod n] = x[i] along each axis; an axis given twice shifts by the sum."""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    (out,) = infer_op("Roll", x, np.array([1, -5, 2], np.int64), np.array([2, 1, -1], np.int64))
    expected = np.empty_like(x)
    for i, j, k in np.ndindex(*x.shape):
        expected[i, (j - 5) % 3, (k + 3) % 4] = x[i, j, k]
    np.testing.assert_array_equal(out.data.get_value(), expected)
    (dynamic,) = infer_op("Roll", ((-1, 3), "f32"), np.array(1, np.int64), np.array([0, 1], np.int64))
    assert dynamic.data.get_shape() == (-1, 3)
