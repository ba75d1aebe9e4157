"""Layer tests of the TensorFlow matrix decompositions (extensions/front/tf/linalg.py): Q, R,
the packed LU and the pivots as TensorFlow computes them."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random, renamed_op

raw = tf.raw_ops


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3), (2, 1, 3, 3)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_qr(tmp_path, shape, full_matrices):
    check_tf(tmp_path, lambda a: raw.Qr(input=a, full_matrices=full_matrices), [random(shape)],
             rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_qr_types_and_a_column_already_reduced(tmp_path, dtype):
    """Column 0 has zeros below the pivot: no reflection (R keeps the pivot's sign)."""
    x = random((3, 3), dtype)
    x[1:, 0] = 0
    x[0, 0] = 1.5
    check_tf(tmp_path, lambda a: raw.Qr(input=a), [x], rtol=1e-3, atol=1e-4)


def test_qr_dynamic_batch(tmp_path):
    check_tf(tmp_path, lambda a: raw.Qr(input=a), [random((3, 4, 2))], rtol=1e-3, atol=1e-4, dynamic_batch=True)


@pytest.mark.parametrize("shape", [(4, 4), (1, 1), (3, 5, 5), (2, 2, 3, 3)])
@pytest.mark.parametrize("idx_type", [tf.int32, tf.int64])
def test_lu(tmp_path, shape, idx_type):
    check_tf(tmp_path, lambda a: raw.Lu(input=a, output_idx_type=idx_type), [random(shape)], rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lu_equal_pivot_candidates(tmp_path, dtype):
    """Equal candidates for a pivot (the first is taken: row 1, then row 2 of what is left);
    TensorFlow refuses a singular input."""
    x = np.array([[1, 2, 1, 3], [-3, -2, 4, 1], [3, 1, 1, 1], [0, 1, 5, 2]], dtype)
    check_tf(tmp_path, lambda a: raw.Lu(input=a), [x], rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matrix_determinant(tmp_path, shape, dtype):
    check_tf(tmp_path, lambda a: raw.MatrixDeterminant(input=a), [random(shape, dtype)], rtol=1e-3, atol=1e-4)


def test_determinants_of_a_singular_matrix(tmp_path):
    x = np.array([[[1, 2], [2, 4]], [[0, 1], [1, 0]]], np.float32)  # singular; a swap (det -1)
    check_tf(tmp_path / "det", lambda a: raw.MatrixDeterminant(input=a), [x])
    check_tf(tmp_path / "log", lambda a: raw.LogMatrixDeterminant(input=a), [x])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_matrix_determinant(tmp_path, dtype):
    check_tf(tmp_path, lambda a: raw.LogMatrixDeterminant(input=a), [random((3, 4, 4), dtype)], rtol=1e-3,
             atol=1e-4)


@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matrix_solve(tmp_path, adjoint, dtype):
    a = (random((2, 3, 3), dtype) + 4 * np.eye(3)).astype(dtype)
    check_tf(tmp_path, lambda m, r: raw.MatrixSolve(matrix=m, rhs=r, adjoint=adjoint), [a, random((2, 3, 2), dtype)],
             rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_matrix_triangular_solve(tmp_path, lower, adjoint):
    """The other triangle holds values that must be ignored."""
    a = (random((2, 3, 3)) + 4 * np.eye(3)).astype(np.float32)
    check_tf(tmp_path, lambda m, r: raw.MatrixTriangularSolve(matrix=m, rhs=r, lower=lower, adjoint=adjoint),
             [a, random((2, 3, 4), seed=1)], rtol=1e-3, atol=1e-4)


def test_batch_aliases(tmp_path):
    """The Batch* ops are gone from TensorFlow 2's op set: the graphs of their successors renamed."""
    a = (random((2, 3, 3)) + 4 * np.eye(3)).astype(np.float32)
    r = random((2, 3, 2), seed=1)
    check_tf(tmp_path / "det", lambda m: raw.MatrixDeterminant(input=m), [a], rtol=1e-3,
             graph_patch=renamed_op("MatrixDeterminant", "BatchMatrixDeterminant"))
    check_tf(tmp_path / "solve", lambda m, b: raw.MatrixSolve(matrix=m, rhs=b), [a, r], rtol=1e-3, atol=1e-4,
             graph_patch=renamed_op("MatrixSolve", "BatchMatrixSolve"))
    check_tf(tmp_path / "tri", lambda m, b: raw.MatrixTriangularSolve(matrix=m, rhs=b), [a, r], rtol=1e-3,
             atol=1e-4, graph_patch=renamed_op("MatrixTriangularSolve", "BatchMatrixTriangularSolve"))
