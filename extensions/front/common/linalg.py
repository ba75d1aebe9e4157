"""Matrix decompositions shared by the translators of several frameworks, on [..., M, N] batches
of matrices with sizes that stay computed (the IR is reshapeable): the LU factorisation by partial
pivoting and the QR factorisation by Householder reflections, each a Loop over the columns, as
Eigen (TensorFlow's and PyTorch's CPU kernels) computes them, so that pivots and signs agree; the
determinant and its logarithm from the LU."""
from __future__ import annotations

import numpy as np

from extensions.ops.control_flow import new_body, port_entry
from mo.graph.builder import OpBuilder
from mo.graph.building import dim, dims_slice, i64, shape_of, typed_const
from mo.utils.types import np_dtype


def column_loop(b, node, trip, carried: list, invariant: list, step, what: str) -> list:
    """A Loop of ``trip`` iterations over the values ``carried`` (fed back each iteration) with
    ``invariant`` inputs; ``step(bb, k, carried params, invariant params)`` builds one iteration
    and returns the new carried values. Returns the carried values after the last iteration."""
    body = new_body(b.graph)
    bb = OpBuilder(body, f"{node.name}/{what}")
    k = bb.node("Parameter", shape=(), element_type="i64", name=f"{node.name}/{what}/k")
    params = [bb.node("Parameter", element_type=v.data.get_dtype() or "f32", name=f"{node.name}/{what}/in{i}")
              for i, v in enumerate(carried + invariant)]
    new = step(bb, k.out_port(0), [p.out_port(0) for p in params[:len(carried)]],
               [p.out_port(0) for p in params[len(carried):]])
    results = [bb.node("Result", bb.const(np.array(True)), name=f"{node.name}/{what}/continue")]
    results += [bb.node("Result", v, name=f"{node.name}/{what}/out{i}") for i, v in enumerate(new)]
    in_map = [port_entry(-1, k, purpose="current_iteration")]
    in_map += [port_entry(2 + i, p) for i, p in enumerate(params)]
    out_map = [port_entry(-1, results[0], purpose="execution_condition")]
    out_map += [port_entry(i, r) for i, r in enumerate(results[1:])]
    loop = b.node("Loop", trip, b.const(np.array(True)), *carried, *invariant, name=f"{node.name}/{what}",
                  bodies={"body": body}, input_port_map=in_map, output_port_map=out_map,
                  back_edges=[{"from": r.id, "to": p.id} for r, p in zip(results[1:], params)],
                  num_outputs=len(carried))
    return [loop.out_port(i) for i in range(len(carried))]


def outer(b, u, v):
    """u [..., M] x v [..., N] -> [..., M, N]."""
    return b.Multiply(b.Unsqueeze(u, i64(-1)), b.Unsqueeze(v, i64(-2)))


def householder_qr(b, node, x, rank: int) -> tuple:
    """(Q [..., M, M], R [..., M, N], P = min(M, N)) of [..., M, N] matrices: Householder
    reflections H_k = I - w w^T / (beta (beta - c0)) for k < P, where c0 is the pivot A[k, k],
    beta = -sign(c0) |A[k:, k]| and w = A[k:, k] - beta e_k (no reflection when A[k+1:, k] is 0);
    R = triu(H... H_0 A), Q = H_0 ... H_k. The reduced factors are Q[..., :P] and R[..., :P, :]."""
    dtype = x.data.get_dtype()
    zero, one = typed_const(b, 0, dtype), typed_const(b, 1, dtype)
    m, n = dim(b, x, rank - 2), dim(b, x, rank - 1)
    p = b.Minimum(m, n)
    rows = b.Range(np.int64(0), m, np.int64(1), output_type="i64")
    cols = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    eye = b.Select(b.Equal(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(rows, i64(0))), one, zero)
    q0 = b.Broadcast(eye, b.Concat(dims_slice(b, shape_of(b, x), 0, rank - 1), b.Unsqueeze(m, i64(0)), axis=0),
                     mode="numpy")
    tiny = np.finfo(np_dtype(dtype)).tiny

    def step(bb, k, carried, invariant):
        a, q = carried
        rws, identity = invariant
        zero_, one_ = typed_const(bb, 0, dtype), typed_const(bb, 1, dtype)
        col = bb.Gather(a, k, np.int64(rank - 1))
        at_k = bb.Equal(rws, k)
        c0 = bb.ReduceSum(bb.Select(at_k, col, zero_), i64(-1), keep_dims=True)
        tail = bb.Select(bb.Greater(rws, k), col, zero_)
        tail_sq = bb.ReduceSum(bb.Multiply(tail, tail), i64(-1), keep_dims=True)
        norm = bb.Sqrt(bb.Add(bb.Multiply(c0, c0), tail_sq))
        beta = bb.Select(bb.GreaterEqual(c0, zero_), bb.Negative(norm), norm)
        w = bb.Subtract(bb.Select(bb.GreaterEqual(rws, k), col, zero_), bb.Select(at_k, beta, zero_))
        flat = bb.LessEqual(tail_sq, typed_const(bb, tiny, dtype))
        denom = bb.Select(flat, one_, bb.Multiply(beta, bb.Subtract(beta, c0)))
        scale = bb.Select(flat, zero_, bb.Divide(one_, denom))
        h = bb.Subtract(identity, outer(bb, w, bb.Multiply(w, scale)))
        return [bb.MatMul(h, a), bb.MatMul(q, h)]

    a, q = column_loop(b, node, p, [x, q0], [rows, eye], step, "householder")
    r = b.Select(b.LessEqual(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(cols, i64(0))), a, zero)
    return q, r, p


def householder_packed(b, node, x, rank: int) -> tuple:
    """LAPACK's compact QR (geqrf) of [..., M, N] matrices: (R on and above the diagonal with the
    Householder vectors v_k below it (v_k[k] = 1 implied), tau [..., K], K = min(M, N)) with
    H_k = I - tau_k v_k v_k^T, as householder_qr reflects (tau_k = (beta - c0) / beta, v_k =
    A[k:, k] / (c0 - beta) below the pivot; tau_k 0 where A[k+1:, k] is 0)."""
    dtype = x.data.get_dtype()
    m, n = dim(b, x, rank - 2), dim(b, x, rank - 1)
    p = b.Minimum(m, n)
    rows = b.Range(np.int64(0), m, np.int64(1), output_type="i64")
    cols = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    positions = b.Range(np.int64(0), p, np.int64(1), output_type="i64")
    taus0 = b.Broadcast(typed_const(b, 0, dtype), b.Concat(dims_slice(b, shape_of(b, x), 0, rank - 2),
                                                           b.Unsqueeze(p, i64(0)), axis=0))
    tiny = np.finfo(np_dtype(dtype)).tiny

    def step(bb, k, carried, invariant):
        a, taus = carried
        rws, cls, pos = invariant
        zero_, one_ = typed_const(bb, 0, dtype), typed_const(bb, 1, dtype)
        col = bb.Gather(a, k, np.int64(rank - 1))
        at_k, below = bb.Equal(rws, k), bb.Greater(rws, k)
        c0 = bb.ReduceSum(bb.Select(at_k, col, zero_), i64(-1), keep_dims=True)
        tail = bb.Select(below, col, zero_)
        tail_sq = bb.ReduceSum(bb.Multiply(tail, tail), i64(-1), keep_dims=True)
        norm = bb.Sqrt(bb.Add(bb.Multiply(c0, c0), tail_sq))
        flat = bb.LessEqual(tail_sq, typed_const(bb, tiny, dtype))
        beta = bb.Select(flat, c0, bb.Select(bb.GreaterEqual(c0, zero_), bb.Negative(norm), norm))
        tau = bb.Select(flat, zero_, bb.Divide(bb.Subtract(beta, c0), bb.Select(flat, one_, beta)))
        v = bb.Select(below, bb.Divide(col, bb.Select(flat, one_, bb.Subtract(c0, beta))), bb.Select(at_k, one_, zero_))
        reflected = bb.Select(bb.Greater(cls, k), bb.Squeeze(bb.MatMul(bb.Unsqueeze(v, i64(-2)), a), i64(-2)), zero_)
        a = bb.Subtract(a, outer(bb, bb.Multiply(v, tau), reflected))      # the columns j > k (j < k hold v_j)
        column_k = bb.Unsqueeze(bb.Equal(cls, k), i64(0))
        a = bb.Select(column_k, bb.Unsqueeze(bb.Select(below, v, bb.Select(at_k, beta, col)), i64(-1)), a)
        return [a, bb.Select(bb.Equal(pos, k), tau, taus)]

    packed, taus = column_loop(b, node, p, [x, taus0], [rows, cols, positions], step, "householder")
    return packed, taus


def householder_matrix(b, node, reflectors, taus, rank: int):
    """Q = H_0 H_1 ... H_{K-1} [..., M, M] of Householder vectors below the diagonal of
    reflectors [..., M, N] (v_k[k] = 1 implied) and tau [..., K], H_k = I - tau_k v_k v_k^T."""
    dtype = reflectors.data.get_dtype()
    m = dim(b, reflectors, rank - 2)
    rows = b.Range(np.int64(0), m, np.int64(1), output_type="i64")
    eye = b.Select(b.Equal(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(rows, i64(0))), typed_const(b, 1, dtype),
                   typed_const(b, 0, dtype))
    q0 = b.Broadcast(eye, b.Concat(dims_slice(b, shape_of(b, reflectors), 0, rank - 2), b.Unsqueeze(m, i64(0)),
                                   b.Unsqueeze(m, i64(0)), axis=0), mode="numpy")

    def step(bb, k, carried, invariant):
        (q,), (vectors, tau, rws) = carried, invariant
        zero_ = typed_const(bb, 0, dtype)
        col = bb.Gather(vectors, k, np.int64(rank - 1))
        v = bb.Select(bb.Greater(rws, k), col, bb.Select(bb.Equal(rws, k), typed_const(bb, 1, dtype), zero_))
        tau_k = bb.Gather(tau, bb.Unsqueeze(k, i64(0)), np.int64(rank - 2))              # [..., 1]
        qv = bb.Squeeze(bb.MatMul(q, bb.Unsqueeze(v, i64(-1))), i64(-1))
        return [bb.Subtract(q, outer(bb, bb.Multiply(qv, tau_k), v))]

    (q,) = column_loop(b, node, dim(b, taus, rank - 2), [q0], [reflectors, taus, rows], step, "reflections")
    return q


def lu_loop(b, node, x, rank: int) -> tuple:
    """(packed L\\U [..., M, N], permutation p [..., M] with x[p] = L U, sign of p, LAPACK pivots
    [..., K] (0-based: row k swapped with row pivots[k] at step k), K = min(M, N)) of [..., M, N]
    matrices by partial pivoting: for each column k < K, the row of the largest |A[i, k]| (i >= k,
    the first among equals) swapped with row k, then the rows below eliminated: A[i, k] becomes
    l_i = A[i, k] / A[k, k] and A[i, j] -= l_i A[k, j] for j > k (nothing for a zero pivot)."""
    dtype = x.data.get_dtype()
    m, n = dim(b, x, rank - 2), dim(b, x, rank - 1)
    rows = b.Range(np.int64(0), m, np.int64(1), output_type="i64")
    cols = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    k_steps = b.Minimum(m, n)
    perm0 = b.Broadcast(rows, dims_slice(b, shape_of(b, x), 0, rank - 1), mode="numpy")
    sign0 = b.Broadcast(typed_const(b, 1, dtype), dims_slice(b, shape_of(b, x), 0, rank - 2), mode="numpy")
    batch = rank - 2

    def step(bb, k, carried, invariant):
        a, perm, sign, pivots = carried
        rws, cls = invariant
        zero_, one_ = typed_const(bb, 0, dtype), typed_const(bb, 1, dtype)
        col = bb.Gather(a, k, np.int64(rank - 1))
        score = bb.Select(bb.GreaterEqual(rws, k), bb.Abs(col), typed_const(bb, -1, dtype))
        _, pivot = bb.TopK(score, np.int64(1), axis=-1, mode="max", sort="value", index_element_type="i64",
                           stable=True)
        at_k = bb.Equal(rws, k)
        order = bb.Select(at_k, pivot, bb.Select(bb.Equal(rws, pivot), k, rws))
        a = bb.Gather(a, order, np.int64(rank - 2), batch_dims=batch)
        perm = bb.Gather(perm, order, np.int64(rank - 2), batch_dims=batch)
        pivots = bb.Select(at_k, pivot, pivots)
        swapped = bb.Squeeze(bb.NotEqual(pivot, k), i64(-1))
        sign = bb.Select(swapped, bb.Negative(sign), sign)
        row_k = bb.Gather(a, k, np.int64(rank - 2))
        col_k = bb.Gather(a, k, np.int64(rank - 1))
        below = bb.Greater(rws, k)
        head = bb.ReduceSum(bb.Select(at_k, col_k, zero_), i64(-1), keep_dims=True)
        nonzero = bb.NotEqual(head, zero_)
        factors = bb.Select(bb.LogicalAnd(below, nonzero), bb.Divide(col_k, bb.Select(nonzero, head, one_)), zero_)
        a = bb.Subtract(a, outer(bb, factors, bb.Select(bb.Greater(cls, k), row_k, zero_)))
        in_column_k = bb.LogicalAnd(bb.Unsqueeze(below, i64(1)), bb.Unsqueeze(bb.Equal(cls, k), i64(0)))
        return [bb.Select(in_column_k, bb.Unsqueeze(factors, i64(-1)), a), perm, sign, pivots]

    packed, perm, sign, pivots = column_loop(b, node, k_steps, [x, perm0, sign0, perm0], [rows, cols], step,
                                             "elimination")
    pivots = b.Slice(pivots, i64(0), b.Unsqueeze(k_steps, i64(0)), i64(1), i64(-1))
    return packed, perm, sign, pivots, rows


def matrix_diagonal(b, packed, rows, dtype):
    """The diagonals [..., N] of [..., N, N] matrices."""
    eye = b.Equal(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(rows, i64(0)))
    return b.ReduceSum(b.Select(eye, packed, typed_const(b, 0, dtype)), i64(-1), keep_dims=False)


def _empty_matrices(b, x, rank: int, value: float):
    """``value`` for each matrix of a batch of 0x0 matrices (det 1, log |det| 0), else None."""
    if x.data.get_shape()[-1] != 0:
        return None
    return b.Broadcast(typed_const(b, value, x.data.get_dtype()), dims_slice(b, shape_of(b, x), 0, rank - 2))


def determinant(b, node, x, rank: int):
    """det of [..., N, N] matrices: the product of U's diagonal, negated for an odd permutation."""
    empty = _empty_matrices(b, x, rank, 1)
    if empty is not None:
        return empty
    packed, _, sign, _, rows = lu_loop(b, node, x, rank)
    diagonal = matrix_diagonal(b, packed, rows, x.data.get_dtype())
    return b.Multiply(sign, b.ReduceProd(diagonal, i64(-1), keep_dims=False))


def log_determinant(b, node, x, rank: int) -> tuple:
    """(sign, log |det|) of [..., N, N] matrices: the permutation's sign times the signs of U's
    diagonal, and the sum of the logs of its magnitudes (a singular matrix: 0 and -inf)."""
    empty = _empty_matrices(b, x, rank, 1)
    if empty is not None:
        return empty, _empty_matrices(b, x, rank, 0)
    packed, _, sign, _, rows = lu_loop(b, node, x, rank)
    diagonal = matrix_diagonal(b, packed, rows, x.data.get_dtype())
    sign = b.Multiply(sign, b.ReduceProd(b.Sign(diagonal), i64(-1), keep_dims=False))
    return sign, b.ReduceSum(b.Log(b.Abs(diagonal)), i64(-1), keep_dims=False)
