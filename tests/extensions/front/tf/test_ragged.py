"""Layer tests of the TensorFlow ragged-tensor conversions (extensions/front/tf/ragged.py)."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

SPLITS = np.array([0, 2, 2, 5], np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("split_type", [np.int32, np.int64])
def test_row_splits_to_tensor(tmp_path, dtype, split_type):
    def fn(v, s):
        return tf.RaggedTensor.from_row_splits(v, s, validate=False).to_tensor(default_value=7)
    check_tf(tmp_path, fn, [random((5,), dtype), SPLITS.astype(split_type)])


@pytest.mark.parametrize("shape", [[4, 5], [2, 2], [None, 4], [3, None], [2, 6, 3]])
def test_to_tensor_with_shape(tmp_path, shape):
    """Rows and columns padded or cut to the shape; inner dims of the values."""
    def fn(v, s):
        return tf.RaggedTensor.from_row_splits(v, s, validate=False).to_tensor(shape=shape)
    values = random((5, 3)) if len(shape) == 3 else random((5,))
    check_tf(tmp_path, fn, [values, SPLITS])


def test_value_rowids_to_tensor(tmp_path):
    def fn(v, r):
        return tf.RaggedTensor.from_value_rowids(v, r, nrows=5, validate=False).to_tensor(default_value=-1.0)
    check_tf(tmp_path, fn, [random((5, 2)), np.array([0, 0, 2, 2, 3], np.int64)])


def test_nested_to_tensor(tmp_path):
    def fn(v, s1, s2):
        return tf.RaggedTensor.from_nested_row_splits(v, [s1, s2], validate=False).to_tensor()
    check_tf(tmp_path, fn, [random((6,)), np.array([0, 2, 3], np.int64), np.array([0, 1, 1, 6], np.int64)])


def test_nested_value_rowids_to_tensor(tmp_path):
    def fn(v, r1, r2):
        inner = tf.RaggedTensor.from_value_rowids(v, r2, nrows=4, validate=False)
        return tf.RaggedTensor.from_value_rowids(inner, r1, nrows=3, validate=False).to_tensor()
    check_tf(tmp_path, fn, [random((5,)), np.array([0, 0, 2, 2], np.int64), np.array([0, 1, 1, 3, 3], np.int64)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_to_sparse(tmp_path, dtype):
    def fn(v, s):
        sparse = tf.RaggedTensor.from_row_splits(v, s, validate=False).to_sparse()
        return sparse.indices, sparse.values, sparse.dense_shape
    check_tf(tmp_path, fn, [random((5,), dtype), SPLITS])


def test_nested_to_sparse(tmp_path):
    def fn(v, s1, s2):
        sparse = tf.RaggedTensor.from_nested_row_splits(v, [s1, s2], validate=False).to_sparse()
        return sparse.indices, sparse.values, sparse.dense_shape
    check_tf(tmp_path, fn, [random((6,)), np.array([0, 2, 3], np.int64), np.array([0, 1, 1, 6], np.int64)])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("splits", [tf.int32, tf.int64])
def test_ragged_range(tmp_path, dtype, splits):
    """Rows up, down, empty (delta pointing away) and with a delta that does not divide."""
    starts = np.array([0, 10, 3, 2, -4], dtype)
    limits = np.array([5, 2, 1, 9, 4], dtype)
    deltas = np.array([1, -3, 2, 2, 3], dtype)
    check_tf(tmp_path, lambda s, l, d: tf.raw_ops.RaggedRange(starts=s, limits=l, deltas=d, Tsplits=splits),
             [starts, limits, deltas])


def test_ragged_range_broadcast_scalars(tmp_path):
    check_tf(tmp_path, lambda s, l: tf.raw_ops.RaggedRange(starts=s, limits=l, deltas=np.float32(0.5)),
             [np.array(1.0, np.float32), np.array([2.0, 3.2, 0.0], np.float32)])
