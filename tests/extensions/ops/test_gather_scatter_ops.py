"""infer of Gather-8, GatherElements-6, GatherND-8 and the scatter updates."""
import numpy as np
import pytest

from mo.errors import GraphError
from tests.utils.graphs import infer_op

DATA = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def test_gather_shape_with_batch_dims_and_dynamic_dims():
    (out,) = infer_op("Gather", ((2, -1, 4), "f32"), ((2, 5), "i64"), np.int64(2), batch_dims=1)
    assert out.data.get_shape() == (2, -1, 5)
    (out,) = infer_op("Gather", ((2, 3, 4), "f32"), ((7,), "i32"), np.int64(-2))
    assert out.data.get_shape() == (2, 7, 4)


def test_gather_folds_negative_indices_and_batch_dims():
    (out,) = infer_op("Gather", DATA, np.array([[-1, 0]]), np.int64(1))
    np.testing.assert_array_equal(out.data.get_value(), np.take(DATA, [[2, 0]], axis=1))
    (out,) = infer_op("Gather", DATA, np.array([[0, 1], [2, 2]]), np.int64(1), batch_dims=1)
    np.testing.assert_array_equal(out.data.get_value(), np.stack([DATA[0, [0, 1]], DATA[1, [2, 2]]]))


def test_gather_rejects_batch_dims_beyond_axis():
    with pytest.raises(GraphError, match="batch_dims"):
        infer_op("Gather", ((2, 3), "f32"), ((2, 3), "i64"), np.int64(0), batch_dims=1)


def test_gather_elements_and_nd():
    idx = np.array([[[0, -1, 1, 0]] * 3] * 2)
    (out,) = infer_op("GatherElements", DATA, idx, axis=2)
    np.testing.assert_array_equal(out.data.get_value(), np.take_along_axis(DATA, idx % 4, axis=2))
    (nd,) = infer_op("GatherND", ((2, 3, 4), "f32"), ((5, 2), "i64"))
    assert nd.data.get_shape() == (5, 4)
    (nd,) = infer_op("GatherND", DATA, np.array([[1], [0]]), batch_dims=1)
    np.testing.assert_array_equal(nd.data.get_value(), np.stack([DATA[0, 1], DATA[1, 0]]))


def test_scatter_elements_reductions_fold():
    data = np.ones((2, 3), np.float32)
    idx = np.array([[0, 0, 2]])
    upd = np.array([[2, 3, 4]], np.float32)
    for reduction, first in (("none", 3), ("sum", 6), ("prod", 6), ("max", 3), ("min", 1), ("mean", 2)):
        (out,) = infer_op("ScatterElementsUpdate", data, idx, upd, np.int64(1), reduction=reduction)
        assert out.data.get_value()[0, 0] == first, reduction
        assert out.data.get_shape() == (2, 3)


def test_scatter_nd_and_scatter_update():
    data = np.zeros((3, 2), np.float32)
    (out,) = infer_op("ScatterNDUpdate", data, np.array([[1], [1]]), np.ones((2, 2), np.float32), reduction="sum")
    np.testing.assert_array_equal(out.data.get_value(), [[0, 0], [2, 2], [0, 0]])
    (out,) = infer_op("ScatterUpdate", data, np.array([-1]), np.full((1, 2), 5, np.float32), np.int64(0))
    np.testing.assert_array_equal(out.data.get_value(), [[0, 0], [0, 0], [5, 5]])
    (shape,) = infer_op("ScatterNDUpdate", ((-1, 2), "f32"), ((4, 1), "i64"), ((4, 2), "f32"))
    assert shape.data.get_shape() == (-1, 2)
