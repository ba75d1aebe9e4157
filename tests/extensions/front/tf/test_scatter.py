"""Layer tests of the TensorFlow scatters and partitions (extensions/front/tf/scatter.py)."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

raw = tf.raw_ops

TYPES = [np.float32, np.int32, np.int64, np.float64]


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("idx_type", [np.int32, np.int64])
def test_scatter_nd_elements_duplicates_add(tmp_path, dtype, idx_type):
    indices = np.array([[0, 1], [2, 3], [0, 1]], idx_type)
    check_tf(tmp_path, lambda i, u: raw.ScatterNd(indices=i, updates=u, shape=np.array([3, 4], idx_type)),
             [indices, random((3,), dtype, low=-5, high=5)])


def test_scatter_nd_slices_shape_input(tmp_path):
    indices = np.array([[1], [3]], np.int32)
    check_tf(tmp_path, lambda i, u, s: raw.ScatterNd(indices=i, updates=u, shape=s),
             [indices, random((2, 3)), np.array([4, 3], np.int32)])


@pytest.mark.parametrize("op", sorted(["TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
                                       "TensorScatterMax", "TensorScatterMin"]))
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_tensor_scatter(tmp_path, op, dtype):
    indices = np.array([[0], [2]], np.int64)
    check_tf(tmp_path, lambda t, i, u: getattr(raw, op)(tensor=t, indices=i, updates=u),
             [random((3, 4), dtype, seed=1, low=-5, high=5), indices, random((2, 4), dtype, seed=2, low=-5, high=5)])


@pytest.mark.parametrize("idx_type", [np.int32, np.int64])
def test_scatter_nd_non_aliasing_add(tmp_path, idx_type):
    check_tf(tmp_path, lambda t, i, u: raw.ScatterNdNonAliasingAdd(input=t, indices=i, updates=u),
             [random((4, 3)), np.array([[1], [3], [1]], idx_type), random((3, 3), seed=1)])


def test_tensor_scatter_update_bool_elements(tmp_path):
    check_tf(tmp_path, lambda t, i, u: raw.TensorScatterUpdate(tensor=t, indices=i, updates=u),
             [random((2, 3), np.bool_), np.array([[0, 0], [1, 2]], np.int32), np.array([True, False])])


@pytest.mark.parametrize("op", ["DynamicStitch", "ParallelDynamicStitch"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.bool_])
def test_dynamic_stitch(tmp_path, op, dtype):
    i0, i1 = np.array([0, 4], np.int32), np.array([[1, 2], [5, 3]], np.int32)
    d0, d1 = random((2, 3), dtype, seed=1), random((2, 2, 3), dtype, seed=2)
    check_tf(tmp_path, lambda a, b, c, d: getattr(raw, op)(indices=[a, b], data=[c, d]), [i0, i1, d0, d1])


def test_dynamic_stitch_scalar_index(tmp_path):
    check_tf(tmp_path, lambda a, b, c, d: raw.DynamicStitch(indices=[a, b], data=[c, d]),
             [np.array(1, np.int32), np.array([0, 2], np.int32), random((4,)), random((2, 4), seed=1)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_dynamic_partition(tmp_path, dtype):
    parts = np.array([2, 0, 2, 1, 0], np.int32)
    check_tf(tmp_path, lambda d, p: raw.DynamicPartition(data=d, partitions=p, num_partitions=4),
             [random((5, 3), dtype), parts])


def test_dynamic_partition_2d(tmp_path):
    check_tf(tmp_path, lambda d, p: raw.DynamicPartition(data=d, partitions=p, num_partitions=2),
             [random((2, 3, 2)), np.array([[1, 0, 1], [0, 0, 1]], np.int32)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.float64])
def test_bincount_weights(tmp_path, dtype):
    arr = np.array([1, 3, 3, 4, 7, 0, 3], np.int32)  # 7 is past size: dropped
    check_tf(tmp_path, lambda a, w: raw.Bincount(arr=a, size=5, weights=w), [arr, random((7,), dtype, low=0, high=5)])


def test_bincount_counts(tmp_path):
    arr = np.array([[1, 3], [3, 2]], np.int32)
    check_tf(tmp_path, lambda a, s: raw.Bincount(arr=a, size=s, weights=tf.constant([], tf.int32)),
             [arr, np.array(6, np.int32)])


def test_dynamic_stitch_later_index_wins(tmp_path):
    check_tf(tmp_path, lambda a, b, c, d: raw.DynamicStitch(indices=[a, b], data=[c, d]),
             [np.array([0, 1, 2], np.int32), np.array([1, 0], np.int32), random((3, 2)), random((2, 2), seed=1)])


@pytest.mark.parametrize("binary_output", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("rank", [1, 2])
def test_dense_bincount(tmp_path, binary_output, dtype, rank):
    arr = np.array([[1, 3, 3, 0], [2, 2, 9, 1]], np.int32)[:rank].reshape((-1,) if rank == 1 else (2, 4))
    weights = random(arr.shape, dtype, low=1, high=4)
    check_tf(tmp_path, lambda a, w: raw.DenseBincount(input=a, size=5, weights=w, binary_output=binary_output),
             [arr, weights])


def test_dense_bincount_counts_i64(tmp_path):
    check_tf(tmp_path, lambda a: raw.DenseBincount(input=a, size=np.int64(4), weights=tf.constant([], tf.float32)),
             [np.array([[1, 3, 3], [0, 0, 2]], np.int64)])


def test_dynamic_batch(tmp_path):
    check_tf(tmp_path / "nd", lambda i, u, x: raw.ScatterNd(indices=i, updates=u, shape=tf.shape(x)),
             [np.array([[1], [0]], np.int32), random((2, 3)), random((4, 3))], dynamic_batch=True)
    check_tf(tmp_path / "partition", lambda d, p: raw.DynamicPartition(data=d, partitions=p, num_partitions=2),
             [random((5, 3)), np.array([1, 0, 1, 1, 0], np.int32)], dynamic_batch=True)
    check_tf(tmp_path / "bincount", lambda a, w: raw.Bincount(arr=a, size=4, weights=w),
             [np.array([0, 3, 3, 1], np.int32), random((4,))], dynamic_batch=True)
