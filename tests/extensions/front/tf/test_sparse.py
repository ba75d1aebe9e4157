"""Layer tests of the TensorFlow sparse-tensor ops (extensions/front/tf/sparse.py)."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

raw = tf.raw_ops

INDICES = np.array([[0, 1], [1, 0], [1, 3], [3, 2]], np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("idx_type", [np.int32, np.int64])
def test_sparse_to_dense(tmp_path, dtype, idx_type):
    values, default = random((4,), dtype), np.array(True if dtype == np.bool_ else 7, dtype)
    check_tf(tmp_path, lambda i, v, d: raw.SparseToDense(sparse_indices=i, output_shape=np.array([4, 5], idx_type),
                                                         sparse_values=v, default_value=d),
             [INDICES.astype(idx_type), values, default])


@pytest.mark.parametrize("indices", [np.array([1, 2, 4], np.int32), np.array(3, np.int32)])
def test_sparse_to_dense_1d_scalar_value(tmp_path, indices):
    check_tf(tmp_path, lambda i: raw.SparseToDense(sparse_indices=i, output_shape=[6], sparse_values=2.5,
                                                   default_value=-1.0), [indices])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.float64])
def test_sparse_tensor_dense_add(tmp_path, dtype):
    check_tf(tmp_path, lambda i, v, d: raw.SparseTensorDenseAdd(a_indices=i, a_values=v, a_shape=[4, 5], b=d),
             [INDICES, random((4,), dtype, seed=1), random((4, 5), dtype, seed=2)])


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_tensor_dense_mat_mul(tmp_path, adjoint_a, adjoint_b, dtype):
    dense = random((3, 4) if adjoint_b else (4, 3), dtype, seed=2)
    a_shape = [4, 4]
    check_tf(tmp_path, lambda i, v, d: raw.SparseTensorDenseMatMul(a_indices=i, a_values=v, a_shape=a_shape, b=d,
                                                                   adjoint_a=adjoint_a, adjoint_b=adjoint_b),
             [INDICES, random((4,), dtype, seed=1), dense])


def test_sparse_tensor_dense_mat_mul_int32_indices(tmp_path):
    check_tf(tmp_path, lambda i, v, d: raw.SparseTensorDenseMatMul(a_indices=i, a_values=v, a_shape=[4, 6], b=d),
             [INDICES.astype(np.int32), random((4,), seed=1), random((6, 2), seed=2)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_sparse_fill_empty_rows(tmp_path, dtype):
    """Rows 2 and 4 of 5 are empty; the entries are not in row order."""
    indices = np.array([[3, 2], [0, 1], [1, 3], [1, 0], [0, 4]], np.int64)
    check_tf(tmp_path, lambda i, v, d: raw.SparseFillEmptyRows(indices=i, values=v, dense_shape=[5, 6],
                                                               default_value=d),
             [indices, random((5,), dtype), np.array(9, dtype)])


def test_sparse_fill_empty_rows_rank3_and_1(tmp_path):
    check_tf(tmp_path / "r3", lambda i, v: raw.SparseFillEmptyRows(indices=i, values=v, dense_shape=[3, 2, 2],
                                                                   default_value=-1.0),
             [np.array([[2, 1, 0], [0, 0, 1]], np.int64), random((2,))])
    check_tf(tmp_path / "r1", lambda i, v: raw.SparseFillEmptyRows(indices=i, values=v, dense_shape=[4],
                                                                   default_value=0),
             [np.array([[1], [3]], np.int64), np.array([5, 6], np.int32)])


@pytest.mark.parametrize("new_shape", [[2, 10], [-1, 4], [5, -1, 2], [20], [2, 2, 5]])
def test_sparse_reshape(tmp_path, new_shape):
    indices = np.array([[0, 1], [1, 0], [1, 3], [3, 2], [4, 3]], np.int64)
    check_tf(tmp_path, lambda i, s: raw.SparseReshape(input_indices=i, input_shape=s, new_shape=new_shape),
             [indices, np.array([5, 4], np.int64)])


def test_dynamic_entry_count(tmp_path):
    check_tf(tmp_path / "fill", lambda i, v: raw.SparseFillEmptyRows(indices=i, values=v, dense_shape=[4, 3],
                                                                     default_value=0.5),
             [np.array([[2, 1], [0, 0]], np.int64), random((2,))], dynamic_batch=True)
    check_tf(tmp_path / "dense", lambda i, v: raw.SparseToDense(sparse_indices=i, output_shape=[3, 3], sparse_values=v,
                                                                default_value=0.0),
             [np.array([[0, 1], [2, 2]], np.int64), random((2,))], dynamic_batch=True)
