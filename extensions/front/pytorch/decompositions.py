"""ATen matrix decompositions beyond det / QR / Cholesky: the LU family (_lu_with_info,
linalg_lu_factor[_ex], linalg_lu, lu_unpack, lu_solve, linalg_lu_solve) from the partial-pivoting
Loop of extensions/front/common/linalg.py, with PyTorch's (LAPACK's) 1-based i32 pivots."""
from __future__ import annotations

import numpy as np

from extensions.front.common.linalg import column_loop, lu_loop
from extensions.front.pytorch.aten import const, convert, is_float_type
from extensions.front.pytorch.linalg import solve
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import dim, dims_slice, i64, rank_of, shape_of


def _matrices(node, a, key, what: str):
    """The floating-point [..., M, N] matrices of argument ``key`` and their rank."""
    x = a.tensor(key)
    rank = rank_of(x, node)
    if rank < 2 or not is_float_type(x.data.get_dtype()):
        raise ConversionError(f"{what} takes floating point matrices ([..., M, N]), not a rank-{rank} "
                              f"{x.data.get_dtype()} tensor.")
    return x, rank


def _pivoting(a, what: str) -> None:
    if not a.const("pivot", True):
        raise ConversionError(f"{what} without pivoting: PyTorch computes it on CUDA only (pivot=False is "
                              f"refused on the CPU).")


def _ranges(b, x, rank: int):
    """(rows [M], cols [N], K = min(M, N)) of [..., M, N] matrices."""
    m, n = dim(b, x, rank - 2), dim(b, x, rank - 1)
    return (b.Range(np.int64(0), m, np.int64(1), output_type="i64"),
            b.Range(np.int64(0), n, np.int64(1), output_type="i64"), b.Minimum(m, n))


def _lapack_pivots(b, pivots):
    """0-based i64 pivots as LAPACK's 1-based i32."""
    return convert(b, b.Add(pivots, i64(1)), "i32")


def _lu_info(b, packed, rank: int):
    """LAPACK's info of the factorisation: the (1-based) index of U's first zero diagonal element
    among the first K, else 0 (i32, one per matrix)."""
    rows, cols, k = _ranges(b, packed, rank)
    et = packed.data.get_dtype()
    on_diagonal = b.Equal(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(cols, i64(0)))
    diagonal = b.ReduceSum(b.Select(on_diagonal, packed, const(b, 0, et)), i64(-1), keep_dims=False)   # [..., M]
    m = dim(b, packed, rank - 2)
    zero = b.LogicalAnd(b.Equal(diagonal, const(b, 0, et)), b.Less(rows, k))
    # the first zero at i has the largest M - i; none: 0
    distance = b.ReduceMax(b.Select(zero, b.Subtract(m, rows), np.int64(0)), i64(-1), keep_dims=False)
    return convert(b, b.Select(b.Greater(distance, np.int64(0)), b.Add(b.Subtract(m, distance), np.int64(1)),
                               np.int64(0)), "i32")


def _unpacked(b, packed, rank: int):
    """(L [..., M, K] unit lower, U [..., K, N] upper) of packed L\\U [..., M, N]."""
    rows, cols, k = _ranges(b, packed, rank)
    et = packed.data.get_dtype()
    i, j = b.Unsqueeze(rows, i64(1)), b.Unsqueeze(cols, i64(0))
    zero = const(b, 0, et)
    lower = b.Select(b.Greater(i, j), packed, b.Select(b.Equal(i, j), const(b, 1, et), zero))
    upper = b.Select(b.LessEqual(i, j), packed, zero)
    k1 = b.Unsqueeze(k, i64(0))
    return (b.Slice(lower, i64(0), k1, i64(1), i64(rank - 1)), b.Slice(upper, i64(0), k1, i64(1), i64(rank - 2)))


def _permutation_matrix(b, perm, rows, et: str):
    """P [..., M, M] with P[perm[i], i] = 1: A = P L U for A[perm] = L U."""
    return convert(b, b.Equal(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(perm, i64(-2))), et)


def _permutation_of_pivots(b, node, pivots, m, rank: int):
    """The row order perm [..., M] (A[perm] = L U) of LAPACK pivots [..., K] (1-based): the swaps
    of rows k and pivots[k] - 1 applied in order, in a Loop."""
    rows = b.Range(np.int64(0), m, np.int64(1), output_type="i64")
    zero_based = b.Subtract(convert(b, pivots, "i64"), np.int64(1))
    shape = b.Concat(dims_slice(b, shape_of(b, pivots), 0, rank - 1), b.Unsqueeze(m, i64(0)), axis=0)
    perm0 = b.Broadcast(rows, shape, mode="numpy")

    def step(bb, k, carried, invariant):
        (perm,), (piv, rws) = carried, invariant
        pivot = bb.Gather(piv, bb.Unsqueeze(k, i64(0)), np.int64(rank - 1))          # [..., 1]
        order = bb.Select(bb.Equal(rws, k), pivot, bb.Select(bb.Equal(rws, pivot), k, rws))
        return [bb.Gather(perm, order, np.int64(rank - 1), batch_dims=rank - 1)]
    (perm,) = column_loop(b, node, dim(b, pivots, rank - 1), [perm0], [zero_based, rows], step, "swaps")
    return perm, rows


@aten("aten::_lu_with_info", "aten::linalg_lu_factor", "aten::linalg_lu_factor_ex")
def lu_factor(node, a, b):
    """(packed L\\U, pivots (1-based i32)[, info]) of partial pivoting; info (the _ex and
    _lu_with_info forms) is the index of the first zero pivot, or 0."""
    x, rank = _matrices(node, a, 0, node.fw_op[6:])
    _pivoting(a, node.fw_op[6:])
    packed, _, _, pivots, _ = lu_loop(b, node, x, rank)
    outputs = [packed, _lapack_pivots(b, pivots)]
    return outputs + [_lu_info(b, packed, rank)] if node.fw_op != "aten::linalg_lu_factor" else outputs


@aten("aten::linalg_lu")
def linalg_lu(node, a, b):
    """(P, L, U) with A = P L U: P [..., M, M], L [..., M, K] unit lower, U [..., K, N]."""
    x, rank = _matrices(node, a, 0, "linalg.lu")
    _pivoting(a, "linalg.lu")
    packed, perm, _, _, rows = lu_loop(b, node, x, rank)
    lower, upper = _unpacked(b, packed, rank)
    return [_permutation_matrix(b, perm, rows, x.data.get_dtype()), lower, upper]


@aten("aten::lu_unpack")
def lu_unpack(node, a, b):
    """lu_unpack(LU, pivots, unpack_data, unpack_pivots): (P, L, U) of a packed LU and its LAPACK
    pivots (the parts not asked for are empty)."""
    packed, rank = _matrices(node, a, 0, "lu_unpack")
    et = packed.data.get_dtype()
    empty = b.Broadcast(const(b, 0, et), i64([0]))
    outputs = [empty, empty, empty]
    if a.const("unpack_data", True):
        outputs[1:] = _unpacked(b, packed, rank)
    if a.const("unpack_pivots", True):
        perm, rows = _permutation_of_pivots(b, node, a.tensor(1), dim(b, packed, rank - 2), rank - 1)
        outputs[0] = _permutation_matrix(b, perm, rows, et)
    return outputs


def _lu_product(b, node, packed, pivots, rank: int):
    """A = P L U of square packed LU [..., N, N] and its pivots."""
    perm, rows = _permutation_of_pivots(b, node, pivots, dim(b, packed, rank - 2), rank - 1)
    lower, upper = _unpacked(b, packed, rank)
    return b.MatMul(_permutation_matrix(b, perm, rows, packed.data.get_dtype()), b.MatMul(lower, upper))


@aten("aten::lu_solve")
def lu_solve(node, a, b):
    """lu_solve(B, LU, pivots): X with A X = B, A = P L U rebuilt and inverted (Inverse-14)."""
    packed, rank = _matrices(node, a, 1, "lu_solve")
    return [b.MatMul(b.Inverse(_lu_product(b, node, packed, a.tensor(2), rank), adjoint=False), a.tensor(0))]


@aten("aten::linalg_lu_solve")
def linalg_lu_solve(node, a, b):
    """linalg_lu_solve(LU, pivots, B, left, adjoint): X with op(A) X = B (left) or X op(A) = B,
    op the transpose when ``adjoint``."""
    packed, rank = _matrices(node, a, 0, "linalg.lu_solve")
    matrix = _lu_product(b, node, packed, a.tensor(1), rank)
    if a.const("adjoint", False):
        matrix = b.Transpose(matrix, i64(list(range(rank - 2)) + [rank - 1, rank - 2]))
    return [solve(node, b, matrix, a.tensor(2), bool(a.const("left", True)))]
