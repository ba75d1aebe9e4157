"""TensorFlow linear algebra: the decompositions Qr (Householder reflections) and Lu (partial
pivoting), each a Loop over the columns, computed as TensorFlow's CPU kernels (Eigen's
HouseholderQR and PartialPivLU) compute them, so that the signs of Q and R and the pivots are
TensorFlow's; MatrixDeterminant and LogMatrixDeterminant from the LU; MatrixSolve and
MatrixTriangularSolve through Inverse-14.

They work on [..., M, N] batches of matrices; the sizes stay computed (the IR is reshapeable). The
decompositions are built in extensions/front/common/linalg.py (PyTorch's translators share them)."""
from __future__ import annotations

import numpy as np

from extensions.front.common.linalg import determinant, householder_qr, log_determinant, lu_loop
from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import convert, dim, i64, input_rank, typed_const
from mo.utils.types import is_float


def _matrix_input(node):
    x = node.in_port(0).get_source()
    rank = input_rank(node)
    if rank < 2:
        raise ConversionError("its input must have rank 2 or more (a batch of matrices).")
    if not is_float(x.data.get_dtype()):
        raise ConversionError(f"element type {x.data.get_dtype()} is not supported (real floating-point only).")
    return x, rank


@translator("tf", "Qr")
def qr(node, b):
    """Qr(input [..., M, N]) by Householder reflections (``householder_qr``): ``full_matrices``:
    Q [..., M, M] and R [..., M, N], else Q [..., M, P] and R [..., P, N]."""
    x, rank = _matrix_input(node)
    q, r, p = householder_qr(b, node, x, rank)
    if TfExtractor.attr(node, "full_matrices", False):
        return [q, r]
    p1 = b.Unsqueeze(p, i64(0))
    return [b.Slice(q, i64(0), p1, i64(1), i64(rank - 1)), b.Slice(r, i64(0), p1, i64(1), i64(rank - 2))]


def _square_input(node):
    x, rank = _matrix_input(node)
    shape = x.data.get_shape()
    if shape[-1] >= 0 and shape[-2] >= 0 and shape[-1] != shape[-2]:
        raise ConversionError(f"its matrices ({shape[-2]}x{shape[-1]}) are not square.")
    return x, rank


@translator("tf", "Lu")
def lu(node, b):
    """Lu(input [..., N, N]): the packed L\\U of partial pivoting (see lu_loop) and the
    permutation p (input[p] = L U) of ``output_idx_type``."""
    x, rank = _square_input(node)
    packed, perm, _, _, _ = lu_loop(b, node, x, rank)
    return [packed, convert(b, perm, TfExtractor.dtype(node, "output_idx_type") or "i32")]


@translator("tf", "MatrixDeterminant", "BatchMatrixDeterminant")
def matrix_determinant(node, b):
    """The product of U's diagonal, negated for an odd permutation."""
    x, rank = _square_input(node)
    return [determinant(b, node, x, rank)]


@translator("tf", "LogMatrixDeterminant")
def log_matrix_determinant(node, b):
    """(sign, log |det|) from the LU (``log_determinant``)."""
    x, rank = _square_input(node)
    return list(log_determinant(b, node, x, rank))


@translator("tf", "MatrixSolve", "BatchMatrixSolve")
def matrix_solve(node, b):
    """MatrixSolve(matrix, rhs): inverse(matrix) (``adjoint``: of its transpose) times rhs."""
    _square_input(node)
    matrix, rhs = node.in_port(0).get_source(), node.in_port(1).get_source()
    inverse = b.Inverse(matrix, adjoint=bool(TfExtractor.attr(node, "adjoint", False)))
    return [b.MatMul(inverse, rhs)]


@translator("tf", "MatrixTriangularSolve", "BatchMatrixTriangularSolve")
def matrix_triangular_solve(node, b):
    """MatrixTriangularSolve(matrix, rhs): the ``lower`` (else upper) triangle of matrix, the
    rest ignored, inverted (``adjoint``: its transpose) and times rhs (batch dims broadcast)."""
    matrix, rank = _square_input(node)
    rhs = node.in_port(1).get_source()
    rows = b.Range(np.int64(0), dim(b, matrix, rank - 1), np.int64(1), output_type="i64")
    i, j = b.Unsqueeze(rows, i64(1)), b.Unsqueeze(rows, i64(0))
    keep = b.GreaterEqual(i, j) if TfExtractor.attr(node, "lower", True) else b.LessEqual(i, j)
    triangle = b.Select(keep, matrix, typed_const(b, 0, matrix.data.get_dtype()))
    inverse = b.Inverse(triangle, adjoint=bool(TfExtractor.attr(node, "adjoint", False)))
    return [b.MatMul(inverse, rhs)]
