"""The symmetric indefinite factorisation A = L D L^T by Bunch-Kaufman diagonal pivoting (LAPACK's
sytrf, lower triangle), on [..., N, N] batches in a Loop: each matrix steps over its columns by
1x1 or 2x2 pivots of its own (a column index per matrix), and the product of the factors back, for
the solves."""
from __future__ import annotations

import numpy as np

from extensions.front.common.linalg import column_loop, outer
from mo.graph.building import dim, dims_slice, i64, shape_of, typed_const

# Bunch-Kaufman's pivot threshold (1 + sqrt(17)) / 8: the growth bound of 1x1 and 2x2 pivots
ALPHA = (1 + np.sqrt(17.0)) / 8


def _column(bb, w, at):
    """w[..., :, j] [..., N] of the column where ``at`` [..., N] is true."""
    return bb.ReduceSum(bb.Select(bb.Unsqueeze(at, i64(-2)), w, typed_const(bb, 0, w.data.get_dtype())), i64(-1),
                        keep_dims=False)


def _pick(bb, v, at):
    """v[..., j] [..., 1] where ``at`` [..., N] is true."""
    return bb.ReduceSum(bb.Select(at, v, typed_const(bb, 0, v.data.get_dtype())), i64(-1), keep_dims=True)


def _swap_order(bb, rows, i, j):
    """The row order that swaps i and j ([..., 1] each)."""
    return bb.Select(bb.Equal(rows, i), j, bb.Select(bb.Equal(rows, j), i, rows))


def _set_column(bb, m, at, column):
    """m with its column where ``at`` [..., N] is true replaced by column [..., N]."""
    return bb.Select(bb.Unsqueeze(at, i64(-2)), bb.Unsqueeze(column, i64(-1)), m)


def _batch_start(b, x, rank: int, n):
    """(rows [N], column index 0 [..., 1] per matrix)."""
    rows = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    start = b.Broadcast(b.const(np.int64(0)), b.Concat(dims_slice(b, shape_of(b, x), 0, rank - 2), i64([1]), axis=0))
    return rows, start


def ldl_factor(b, node, x, rank: int) -> tuple:
    """(LD [..., N, N]: L below the diagonal (unit diagonal implied), D's diagonal and 2x2 blocks'
    subdiagonal elements, zeros above; LAPACK pivots [..., N] (1-based: k for a 1x1 pivot with row
    k - 1 swapped, -k on both columns of a 2x2 pivot); info (the first zero column + 1, or 0))
    of the symmetric matrices of x's lower triangle (x symmetric)."""
    dtype = x.data.get_dtype()
    n = dim(b, x, rank - 1)
    rows, start = _batch_start(b, x, rank, n)
    zeros = b.Multiply(x, typed_const(b, 0, dtype))
    pivots0 = b.Broadcast(b.const(np.int64(0)), dims_slice(b, shape_of(b, x), 0, rank - 1))
    batch = rank - 2

    def step(bb, _, carried, invariant):
        w, ld, piv, kc, info = carried
        rws, size = invariant
        c = lambda v: typed_const(bb, v, dtype)  # noqa: E731
        active = bb.Less(kc, size)                                           # [..., 1]
        at_k, below_k = bb.Equal(rws, kc), bb.Greater(rws, kc)
        col_k = _column(bb, w, at_k)
        akk = _pick(bb, col_k, at_k)
        score = bb.Select(below_k, bb.Abs(col_k), c(-1))
        colmax, imax = bb.TopK(score, np.int64(1), axis=-1, mode="max", sort="value", index_element_type="i64",
                               stable=True)
        colmax = bb.Maximum(colmax, c(0))
        at_imax = bb.Equal(rws, imax)
        row_imax = _column(bb, w, at_imax)
        rowmax = bb.ReduceMax(bb.Select(bb.LogicalAnd(bb.GreaterEqual(rws, kc), bb.LogicalNot(at_imax)),
                                        bb.Abs(row_imax), c(-1)), i64(-1), keep_dims=True)
        aii = bb.Abs(_pick(bb, row_imax, at_imax))
        absakk = bb.Abs(akk)
        zero = bb.Equal(bb.Maximum(absakk, colmax), c(0))
        keep_k = bb.LogicalOr(bb.GreaterEqual(absakk, bb.Multiply(c(ALPHA), colmax)),
                              bb.GreaterEqual(bb.Multiply(absakk, rowmax),
                                              bb.Multiply(c(ALPHA), bb.Multiply(colmax, colmax))))
        keep_k = bb.LogicalOr(zero, keep_k)
        swap_one = bb.GreaterEqual(aii, bb.Multiply(c(ALPHA), rowmax))
        two = bb.LogicalAnd(bb.LogicalNot(keep_k), bb.LogicalNot(swap_one))      # [..., 1]
        kp = bb.Select(keep_k, kc, imax)
        kk = bb.Select(two, bb.Add(kc, np.int64(1)), kc)
        order = _swap_order(bb, rws, kk, kp)
        w = bb.Gather(bb.Gather(w, order, np.int64(rank - 2), batch_dims=batch), order, np.int64(rank - 1),
                      batch_dims=batch)
        col_k = _column(bb, w, at_k)
        d = _pick(bb, col_k, at_k)
        # 1x1 pivot
        x1 = bb.Select(below_k, col_k, c(0))
        l1 = bb.Divide(x1, bb.Select(zero, c(1), d))
        w1 = bb.Subtract(w, outer(bb, l1, x1))
        new_k1 = bb.Select(at_k, d, l1)
        # 2x2 pivot
        at_k1 = bb.Equal(rws, bb.Add(kc, np.int64(1)))
        below2 = bb.Greater(rws, bb.Add(kc, np.int64(1)))
        col_k1 = _column(bb, w, at_k1)
        d21, d22 = _pick(bb, col_k, at_k1), _pick(bb, col_k1, at_k1)
        det = bb.Subtract(bb.Multiply(d, d22), bb.Multiply(d21, d21))
        det = bb.Select(two, det, c(1))
        x2, y2 = bb.Select(below2, col_k, c(0)), bb.Select(below2, col_k1, c(0))
        lk = bb.Divide(bb.Subtract(bb.Multiply(x2, d22), bb.Multiply(y2, d21)), det)
        lk1 = bb.Divide(bb.Subtract(bb.Multiply(y2, d), bb.Multiply(x2, d21)), det)
        w2 = bb.Subtract(w, bb.Add(outer(bb, lk, x2), outer(bb, lk1, y2)))
        new_k2 = bb.Select(at_k, d, bb.Select(at_k1, d21, lk))
        new_k12 = bb.Select(at_k1, d22, lk1)
        two_m = bb.Unsqueeze(two, i64(-1))
        w_new = bb.Select(two_m, w2, bb.Select(bb.Unsqueeze(zero, i64(-1)), w, w1))
        ld_new = _set_column(bb, ld, at_k, bb.Select(two, new_k2, new_k1))
        ld_new = bb.Select(two_m, _set_column(bb, ld_new, at_k1, new_k12), ld_new)
        one_based = bb.Add(kp, np.int64(1))
        piv_new = bb.Select(two, bb.Select(bb.LogicalOr(at_k, at_k1), bb.Negative(one_based), piv),
                            bb.Select(at_k, one_based, piv))
        info_new = bb.Select(bb.LogicalAnd(zero, bb.Equal(info, np.int64(0))), bb.Add(kc, np.int64(1)), info)
        kc_new = bb.Add(kc, bb.Select(two, np.int64(2), np.int64(1)))
        active_m = bb.Unsqueeze(active, i64(-1))
        return [bb.Select(active_m, w_new, w), bb.Select(active_m, ld_new, ld), bb.Select(active, piv_new, piv),
                bb.Select(active, kc_new, kc), bb.Select(active, info_new, info)]

    _, ld, piv, _, info = column_loop(b, node, n, [x, zeros, pivots0, start, start], [rows, n], step,
                                        "bunch_kaufman")
    return ld, piv, b.Squeeze(info, i64(-1))


def ldl_product(b, node, ld, pivots, rank: int):
    """A = M D M^T of a factorisation (ld, pivots as ldl_factor gives them): M = P(1) L(1) P(2)
    L(2) ..., the swaps P(k) and the unit block columns L(k) of the pivots in order, D the 1x1
    and 2x2 blocks."""
    dtype = ld.data.get_dtype()
    n = dim(b, ld, rank - 1)
    rows, start = _batch_start(b, ld, rank, n)
    eye = b.Select(b.Equal(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(rows, i64(0))), typed_const(b, 1, dtype),
                   typed_const(b, 0, dtype))
    m0 = b.Broadcast(eye, b.ShapeOf(ld), mode="numpy")
    piv = b.Convert(pivots, destination_type="i64")
    batch = rank - 2

    def step(bb, _, carried, invariant):
        m, d, kc = carried
        factors, pv, rws, size = invariant
        zero = typed_const(bb, 0, dtype)
        active = bb.Less(kc, size)
        at_k, at_k1 = bb.Equal(rws, kc), bb.Equal(rws, bb.Add(kc, np.int64(1)))
        piv_k = _pick(bb, pv, at_k)
        two = bb.Less(piv_k, np.int64(0))
        kp = bb.Subtract(bb.Abs(piv_k), np.int64(1))
        kk = bb.Select(two, bb.Add(kc, np.int64(1)), kc)
        m = bb.Gather(m, _swap_order(bb, rws, kk, kp), np.int64(rank - 1), batch_dims=batch)
        col_k, col_k1 = _column(bb, factors, at_k), _column(bb, factors, at_k1)
        below = bb.Greater(rws, bb.Select(two, bb.Add(kc, np.int64(1)), kc))
        lk, lk1 = bb.Select(below, col_k, zero), bb.Select(bb.LogicalAnd(two, below), col_k1, zero)
        mlk = bb.Squeeze(bb.MatMul(m, bb.Unsqueeze(lk, i64(-1))), i64(-1))
        mlk1 = bb.Squeeze(bb.MatMul(m, bb.Unsqueeze(lk1, i64(-1))), i64(-1))
        m = bb.Add(bb.Add(m, outer(bb, mlk, convert_like(bb, at_k, dtype))), outer(bb, mlk1, convert_like(bb, at_k1,
                                                                                                         dtype)))
        d11, d21, d22 = _pick(bb, col_k, at_k), _pick(bb, col_k, at_k1), _pick(bb, col_k1, at_k1)
        block = bb.Select(bb.Unsqueeze(at_k, i64(-1)), bb.Unsqueeze(bb.Select(at_k, d11, bb.Select(at_k1, d21, zero)),
                                                                     i64(-2)), d)
        block2 = bb.Select(bb.Unsqueeze(at_k1, i64(-1)), bb.Unsqueeze(bb.Select(at_k, d21, bb.Select(at_k1, d22, zero)),
                                                                      i64(-2)), block)
        active_m, two_m = bb.Unsqueeze(active, i64(-1)), bb.Unsqueeze(two, i64(-1))
        d_new = bb.Select(two_m, block2, bb.Select(bb.Unsqueeze(at_k, i64(-1)), bb.Unsqueeze(bb.Select(at_k, d11, zero),
                                                                                            i64(-2)), d))
        kc_new = bb.Add(kc, bb.Select(two, np.int64(2), np.int64(1)))
        return [bb.Select(active_m, m, carried[0]), bb.Select(active_m, d_new, d), bb.Select(active, kc_new, kc)]

    zeros = b.Multiply(ld, typed_const(b, 0, dtype))
    m, d, _ = column_loop(b, node, n, [m0, zeros, start], [ld, piv, rows, n], step, "ldl_product")
    return b.MatMul(b.MatMul(m, d), m, transpose_b=True)


def convert_like(bb, mask, dtype: str):
    return bb.Convert(mask, destination_type=dtype)
