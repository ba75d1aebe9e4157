"""Layer tests of the TensorFlow MatrixDiag family (extensions/front/tf/diagonal.py)."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random, renamed_op

raw = tf.raw_ops
ALIGNS = ["LEFT_LEFT", "LEFT_RIGHT", "RIGHT_LEFT", "RIGHT_RIGHT"]


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
@pytest.mark.parametrize("shape", [(4,), (2, 3)])
def test_matrix_diag_v1(tmp_path, dtype, shape):
    check_tf(tmp_path, lambda a: raw.MatrixDiag(diagonal=a), [random(shape, dtype)])


def test_matrix_diag_keeps_inf_off_the_diagonal_zero(tmp_path):
    check_tf(tmp_path, lambda a: raw.MatrixDiag(diagonal=a), [np.array([np.inf, -1.0, np.nan], np.float32)])


# (diagonal shape, k, num_rows, num_cols)
DIAG_CASES = [((2, 4), 0, -1, -1), ((3,), 1, -1, -1), ((3,), -2, -1, -1), ((2, 3, 4), [-1, 1], -1, -1),
              ((3, 3), [0, 2], -1, -1), ((2, 3), [-2, -1], 5, -1), ((2, 2), [0, 1], 2, 4), ((4,), 0, 6, 4)]


@pytest.mark.parametrize("shape,k,num_rows,num_cols", DIAG_CASES)
@pytest.mark.parametrize("align", ALIGNS)
def test_matrix_diag_v3(tmp_path, shape, k, num_rows, num_cols, align):
    check_tf(tmp_path, lambda a: raw.MatrixDiagV3(diagonal=a, k=k, num_rows=num_rows, num_cols=num_cols,
                                                  padding_value=-7.0, align=align), [random(shape)])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_matrix_diag_v2(tmp_path, dtype):
    check_tf(tmp_path, lambda a, p: raw.MatrixDiagV2(diagonal=a, k=[-1, 1], num_rows=-1, num_cols=-1,
                                                     padding_value=p),
             [random((2, 3, 4), dtype), np.array(9, dtype)])


# (input shape, k)
PART_CASES = [((4, 4), 0), ((3, 5), 1), ((5, 3), -2), ((2, 4, 5), [-1, 2]), ((3, 3), [-2, 0]), ((2, 5, 3), [1, 2])]


@pytest.mark.parametrize("shape,k", PART_CASES)
@pytest.mark.parametrize("align", ALIGNS)
def test_matrix_diag_part_v3(tmp_path, shape, k, align):
    check_tf(tmp_path, lambda a: raw.MatrixDiagPartV3(input=a, k=k, padding_value=5.0, align=align),
             [random(shape)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_matrix_diag_part_v1_v2(tmp_path, dtype):
    x = random((2, 3, 4), dtype)
    check_tf(tmp_path / "v1", lambda a: raw.MatrixDiagPart(input=a), [x])
    check_tf(tmp_path / "v2", lambda a: raw.MatrixDiagPartV2(input=a, k=[-1, 1], padding_value=np.array(3, dtype)),
             [x])


@pytest.mark.parametrize("shape,k,d_shape", [((4, 4), 0, (4,)), ((3, 5), 1, (3,)), ((2, 4, 5), [-1, 2], (2, 4, 4)),
                                             ((5, 3), [-2, 0], (3, 3))])
@pytest.mark.parametrize("align", ALIGNS)
def test_matrix_set_diag_v3(tmp_path, shape, k, d_shape, align):
    check_tf(tmp_path, lambda a, d: raw.MatrixSetDiagV3(input=a, diagonal=d, k=k, align=align),
             [random(shape), random(d_shape, seed=1)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_matrix_set_diag_v1_v2(tmp_path, dtype):
    x, d = random((2, 3, 4), dtype), random((2, 3), dtype, seed=1)
    check_tf(tmp_path / "v1", lambda a, b: raw.MatrixSetDiag(input=a, diagonal=b), [x, d])
    check_tf(tmp_path / "v2", lambda a, b: raw.MatrixSetDiagV2(input=a, diagonal=b, k=0), [x, d])


@pytest.mark.parametrize("op,legacy", [("MatrixDiag", "BatchMatrixDiag"), ("MatrixDiagPart", "BatchMatrixDiagPart")])
def test_batch_aliases(tmp_path, op, legacy):
    """The Batch* ops are gone from TensorFlow 2's op set: the graphs of their successors renamed."""
    fn = (lambda a: raw.MatrixDiag(diagonal=a)) if op == "MatrixDiag" else (lambda a: raw.MatrixDiagPart(input=a))
    check_tf(tmp_path, fn, [random((2, 3))], graph_patch=renamed_op(op, legacy))


def test_dynamic_sizes(tmp_path):
    check_tf(tmp_path / "diag", lambda a: raw.MatrixDiagV3(diagonal=a, k=[-1, 0], num_rows=-1, num_cols=-1,
                                                           padding_value=0.0), [random((2, 2, 3))],
             dynamic_batch=True)
    check_tf(tmp_path / "part", lambda a: raw.MatrixDiagPartV3(input=a, k=[0, 1], padding_value=0.0),
             [random((2, 3, 4))], dynamic_batch=True)


def test_k_computed_by_the_model_is_refused(tmp_path):
    from mo.errors import ConversionError
    with pytest.raises(ConversionError, match=r"(?s)tf MatrixDiagPartV3.*k \(input 1\) is not constant"):
        check_tf(tmp_path, lambda a, k: raw.MatrixDiagPartV3(input=a, k=k, padding_value=0.0),
                 [random((3, 3)), np.array(0, np.int32)])
