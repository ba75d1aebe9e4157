"""Symmetric eigen-decomposition and singular value decomposition of [..., M, N] batches of small
matrices by cyclic Jacobi rotations, each a Loop of a fixed number of sweeps over the index pairs
(p < q) (sizes stay computed): the two-sided method for symmetric matrices (A <- J^T A J until A
is diagonal) and the one-sided (Hestenes) method for the SVD (X <- X J until the columns of X are
orthogonal; the singular values are their norms), which keeps small singular values accurate.
Eigenvalues come ascending, singular values descending, as LAPACK gives them; the signs of the
vectors are those of the rotations (LAPACK's are as arbitrary)."""
from __future__ import annotations

import numpy as np

from extensions.front.common.linalg import column_loop
from mo.graph.building import dim, dims_slice, i64, shape_of, typed_const
from mo.utils.types import np_dtype

# sweeps over all pairs: cyclic Jacobi converges quadratically, a handful reach f32 (f64) precision
SWEEPS = 10


def _eye(b, rows, dtype: str):
    return b.Select(b.Equal(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(rows, i64(0))), typed_const(b, 1, dtype),
                    typed_const(b, 0, dtype))


def batch_eye(b, x, n, rank: int, dtype: str):
    """Identity matrices [..., n, n] for the batch dims of ``x`` (of rank ``rank``)."""
    rows = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    n1 = b.Unsqueeze(n, i64(0))
    return b.Broadcast(_eye(b, rows, dtype), b.Concat(dims_slice(b, shape_of(b, x), 0, rank - 2), n1, n1, axis=0),
                       mode="numpy")


def _rotation(bb, app, aqq, apq, active, dtype: str):
    """(c, s) of the rotation J (J[p, p] = J[q, q] = c, J[p, q] = s, J[q, p] = -s) that makes
    J^T [[app, apq], [apq, aqq]] J diagonal: t = sign(tau) / (|tau| + sqrt(1 + tau^2)) with
    tau = (aqq - app) / (2 apq), c = 1 / sqrt(1 + t^2), s = t c; none (c 1, s 0) where apq is
    negligible or the pair is not ``active``."""
    zero, one = typed_const(bb, 0, dtype), typed_const(bb, 1, dtype)
    idle = bb.LogicalOr(bb.LogicalNot(active), bb.LessEqual(bb.Abs(apq), typed_const(bb, np.finfo(np_dtype(dtype)).tiny,
                                                                                        dtype)))
    safe = bb.Select(idle, one, apq)
    tau = bb.Divide(bb.Subtract(aqq, app), bb.Multiply(safe, typed_const(bb, 2, dtype)))
    sign = bb.Select(bb.GreaterEqual(tau, zero), one, typed_const(bb, -1, dtype))
    t = bb.Divide(sign, bb.Add(bb.Abs(tau), bb.Sqrt(bb.Add(one, bb.Multiply(tau, tau)))))
    c = bb.Divide(one, bb.Sqrt(bb.Add(one, bb.Multiply(t, t))))
    return bb.Select(idle, one, c), bb.Select(idle, zero, bb.Multiply(t, c))


def _rotation_matrix(bb, c, s, p, q, rows, dtype: str):
    """J [..., N, N] of the rotation (c, s [..., 1, 1]) in the plane (p, q)."""
    i, j = bb.Unsqueeze(rows, i64(1)), bb.Unsqueeze(rows, i64(0))
    ip, iq, jp, jq = bb.Equal(i, p), bb.Equal(i, q), bb.Equal(j, p), bb.Equal(j, q)
    on_pq_diagonal = bb.LogicalOr(bb.LogicalAnd(ip, jp), bb.LogicalAnd(iq, jq))
    return bb.Select(on_pq_diagonal, c, bb.Select(bb.LogicalAnd(ip, jq), s, bb.Select(bb.LogicalAnd(iq, jp),
                                                                                       bb.Negative(s),
                                                                                       _eye(bb, rows, dtype))))


def _pair(bb, k, n):
    """(p, q, p < q) of iteration k: the pairs of a sweep in row-major order."""
    index = bb.FloorMod(k, bb.Multiply(n, n))
    p, q = bb.Divide(index, n), bb.FloorMod(index, n)
    return p, q, bb.Less(p, q)


def _entry(bb, x, i, j, rank: int):
    """x[..., i, j] as [..., 1, 1]."""
    return bb.Gather(bb.Gather(x, bb.Unsqueeze(i, i64(0)), np.int64(rank - 2)), bb.Unsqueeze(j, i64(0)),
                     np.int64(rank - 1))


def _trips(b, n):
    return b.Multiply(b.Multiply(n, n), np.int64(SWEEPS))


def symmetric_eigen(b, node, x, rank: int, vectors: bool = True) -> tuple:
    """(eigenvalues [..., N] ascending, eigenvectors [..., N, N] as columns or None) of symmetric
    [..., N, N] matrices."""
    dtype = x.data.get_dtype()
    n = dim(b, x, rank - 1)
    rows = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    v0 = batch_eye(b, x, n, rank, dtype)

    def step(bb, k, carried, invariant):
        a, v = carried
        rws, size = invariant
        p, q, active = _pair(bb, k, size)
        c, s = _rotation(bb, _entry(bb, a, p, p, rank), _entry(bb, a, q, q, rank), _entry(bb, a, p, q, rank), active,
                         dtype)
        j = _rotation_matrix(bb, c, s, p, q, rws, dtype)
        return [bb.MatMul(bb.MatMul(j, a, transpose_a=True), j), bb.MatMul(v, j)]

    a, v = column_loop(b, node, _trips(b, n), [x, v0], [rows, n], step, "jacobi")
    diagonal = b.ReduceSum(b.Multiply(a, _eye(b, rows, dtype)), i64(-1), keep_dims=False)
    values, order = b.TopK(diagonal, n, axis=-1, mode="min", sort="value", index_element_type="i64", stable=True)
    if not vectors:
        return values, None
    return values, b.Gather(v, order, np.int64(rank - 1), batch_dims=rank - 2)


def one_sided_svd(b, node, x, rank: int, vectors: bool = True) -> tuple:
    """(X [..., M, N] with orthogonal columns, V [..., N, N] or None) with A = X V^T, of
    [..., M, N] matrices A: the columns' norms are the singular values (unsorted; those of the
    columns beyond min(M, N) are 0), U = X / norms."""
    dtype = x.data.get_dtype()
    n = dim(b, x, rank - 1)
    rows = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    carried = [x, batch_eye(b, x, n, rank, dtype)] if vectors else [x]

    def step(bb, k, carried, invariant):
        rws, size = invariant
        g = carried[0]
        p, q, active = _pair(bb, k, size)
        xp, xq = (bb.Gather(g, bb.Unsqueeze(i, i64(0)), np.int64(rank - 1)) for i in (p, q))   # [..., M, 1]
        dot = lambda u, w: bb.ReduceSum(bb.Multiply(u, w), i64(-2), keep_dims=True)  # noqa: E731
        c, s = _rotation(bb, dot(xp, xp), dot(xq, xq), dot(xp, xq), active, dtype)
        j = _rotation_matrix(bb, c, s, p, q, rws, dtype)
        return [bb.MatMul(m, j) for m in carried]

    result = column_loop(b, node, _trips(b, n), carried, [rows, n], step, "jacobi")
    return result[0], result[1] if vectors else None


def singular_values(b, node, x, rank: int) -> tuple:
    """(singular values [..., K] descending, K = min(M, N)) of [..., M, N] matrices; the
    one-sided method runs on the transposes of wide matrices."""
    m, n = dim(b, x, rank - 2), dim(b, x, rank - 1)
    shape = x.data.get_shape()
    if shape[-1] > shape[-2] >= 0:         # fewer columns to orthogonalise (dynamic sizes: as they are)
        x = b.Transpose(x, i64(list(range(rank - 2)) + [rank - 1, rank - 2]))
    g, _ = one_sided_svd(b, node, x, rank, vectors=False)
    norms = b.ReduceL2(g, i64(-2), keep_dims=False)
    k = b.Minimum(m, n)
    values, _ = b.TopK(norms, k, axis=-1, mode="max", sort="value", index_element_type="i64", stable=True)
    return values, k


def svd(b, node, x, rank: int) -> tuple:
    """(U [..., M, K], S [..., K] descending, V [..., N, K]) with A = U diag(S) V^T, of [..., M, N]
    matrices with static M, N (K = min(M, N)); U's columns of zero singular values are 0."""
    shape = x.data.get_shape()
    if shape[-1] < 0 or shape[-2] < 0:
        raise ValueError("svd needs static matrix sizes")
    wide = shape[-1] > shape[-2]
    swap = list(range(rank - 2)) + [rank - 1, rank - 2]
    if wide:
        x = b.Transpose(x, i64(swap))
    g, v = one_sided_svd(b, node, x, rank)
    dtype = x.data.get_dtype()
    norms = b.ReduceL2(g, i64(-2), keep_dims=False)
    k = dim(b, g, rank - 1)
    values, order = b.TopK(norms, k, axis=-1, mode="max", sort="value", index_element_type="i64", stable=True)
    g = b.Gather(g, order, np.int64(rank - 1), batch_dims=rank - 2)
    v = b.Gather(v, order, np.int64(rank - 1), batch_dims=rank - 2)
    zero = typed_const(b, 0, dtype)
    positive = b.Greater(values, zero)
    u = b.Divide(g, b.Unsqueeze(b.Select(positive, values, typed_const(b, 1, dtype)), i64(-2)))
    u = b.Select(b.Unsqueeze(positive, i64(-2)), u, zero)
    return (v, values, u) if wide else (u, values, v)
