"""infer of TopK-11, Unique-10 and NonZero-3."""
import numpy as np

from tests.utils.graphs import infer_op


def test_topk_shapes_and_types():
    values, indices = infer_op("TopK", ((2, 7, -1), "f32"), np.int64(3), axis=1, index_element_type="i64")
    assert values.data.get_shape() == indices.data.get_shape() == (2, 3, -1)
    assert values.data.get_dtype() == "f32" and indices.data.get_dtype() == "i64"
    values, _ = infer_op("TopK", ((2, 2), "f32"), ((), "i64"), axis=0)
    assert values.data.get_shape() == (-1, 2)


def test_topk_stable_folding():
    x = np.array([[1, 3, 3, 2]], np.float32)
    values, indices = infer_op("TopK", x, np.int64(2), axis=1, mode="max", stable=True)
    np.testing.assert_array_equal(values.data.get_value(), [[3, 3]])
    np.testing.assert_array_equal(indices.data.get_value(), [[1, 2]])
    values, indices = infer_op("TopK", x, np.int64(2), axis=-1, mode="min", sort="index")
    np.testing.assert_array_equal(indices.data.get_value(), [[0, 3]])


def test_unique_flat_and_axis():
    y, idx, inv, counts = infer_op("Unique", ((2, 3), "f32"))
    assert [p.data.get_shape() for p in (y, idx, inv, counts)] == [(-1,), (-1,), (6,), (-1,)]
    y, _, inv, _ = infer_op("Unique", ((4, 3), "f32"), np.int64(1))
    assert y.data.get_shape() == (4, -1) and inv.data.get_shape() == (3,)


def test_unique_unsorted_folds_in_first_occurrence_order():
    y, idx, inv, counts = infer_op("Unique", np.array([2, 1, 2, 3, 1], np.int64), sorted=False)
    np.testing.assert_array_equal(y.data.get_value(), [2, 1, 3])
    np.testing.assert_array_equal(idx.data.get_value(), [0, 1, 3])
    np.testing.assert_array_equal(inv.data.get_value(), [0, 1, 0, 2, 1])
    np.testing.assert_array_equal(counts.data.get_value(), [2, 2, 1])


def test_nonzero():
    (out,) = infer_op("NonZero", ((2, -1, 3), "f32"))
    assert out.data.get_shape() == (3, -1) and out.data.get_dtype() == "i64"
    (out,) = infer_op("NonZero", np.array([[0, 1], [2, 0]]))
    np.testing.assert_array_equal(out.data.get_value(), [[0, 1], [1, 0]])


def test_bucketize_left_and_right_bound_as_the_specification_example():
    x, buckets = np.array([[3, 50], [10, -1]], np.float32), np.array([0, 5, 10], np.float32)
    (right,) = infer_op("Bucketize", x, buckets, output_type="i32")
    np.testing.assert_array_equal(right.data.get_value(), [[1, 3], [2, 0]])
    assert right.data.get_dtype() == "i32"
    (left,) = infer_op("Bucketize", x, buckets, with_right_bound=False)
    np.testing.assert_array_equal(left.data.get_value(), [[1, 3], [3, 0]])
    (empty,) = infer_op("Bucketize", ((2, -1), "f32"), np.zeros(0, np.float32))
    assert empty.data.get_shape() == (2, -1) and empty.data.get_dtype() == "i64"


def test_search_sorted_left_right_and_batched():
    sequence = np.array([[0, 1, 3, 3, 5], [2, 4, 6, 8, 10]], np.float32)
    values = np.array([[3, 6], [1, 10]], np.float32)
    (left,) = infer_op("SearchSorted", sequence, values)
    np.testing.assert_array_equal(left.data.get_value(), [[2, 5], [0, 4]])
    (right,) = infer_op("SearchSorted", sequence, values, right_mode=True)
    np.testing.assert_array_equal(right.data.get_value(), [[4, 5], [0, 5]])
    (flat,) = infer_op("SearchSorted", np.array([1, 2, 3], np.int32), np.array([[0, 2], [3, 4]], np.int32))
    np.testing.assert_array_equal(flat.data.get_value(), [[0, 1], [2, 3]])
    assert flat.data.get_dtype() == "i64"
