"""ATen linear algebra: cross products (cross, linalg_cross), matrix inverses (inverse,
linalg_inv as Inverse-14), vector and matrix norms (linalg_norm, linalg_matrix_norm; the spectral
and nuclear ones from Jacobi singular values), the condition number (linalg_cond), and the
distances cdist / _cdist_forward and pairwise_distance, determinants (det, slogdet, logdet) and QR
from the decompositions of extensions/front/common/linalg.py: their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.common.jacobi import singular_values
from extensions.front.common.linalg import column_loop, determinant, householder_qr, log_determinant
from extensions.front.pytorch.aten import const, convert, is_float_type, promoted
from extensions.front.pytorch.reductions import p_norm
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import dim, i64, norm_axis, rank_of
from mo.utils.shape import broadcast_shapes

# orders of a matrix norm that need singular values (one-sided Jacobi, extensions/front/common/jacobi.py)
SINGULAR_VALUE_ORDERS = ("nuc", 2.0, -2.0)


def _floating(b, x, dtype: str | None = None):
    """``x`` in ``dtype``, or as floating point (integers in f32)."""
    if dtype is not None:
        return convert(b, x, dtype)
    return x if is_float_type(x.data.get_dtype()) else convert(b, x, "f32")


# ---------------------------------------------------------------------------- cross product


def _cross_dim(node, a, x, y) -> int:
    """The dim of the 3-vectors as a negative axis: ``dim``, or (torch.cross without one) the
    first dim of size 3 of the broadcast shape."""
    rank = max(rank_of(x, node), rank_of(y, node))
    dim = a.const("dim", None)
    if dim is None:
        shape = broadcast_shapes(x.data.get_shape(), y.data.get_shape())
        if shape is None or 3 not in shape or any(d < 0 for d in shape[:shape.index(3)]):
            raise ConversionError("torch.cross without dim takes the first dim of size 3, which the input shapes do "
                                  "not show; give dim (or the input shapes).")
        dim = shape.index(3)
    return norm_axis(dim, rank, node) - rank


@aten("aten::cross", "aten::linalg_cross")
def cross(node, a, b):
    """cross(self, other, dim) / linalg_cross(self, other, dim=-1): x[i+1] y[i+2] - x[i+2] y[i+1]
    along ``dim``, with broadcasting, in the promoted type."""
    _, (x, y) = promoted(a, (0, 1), b)
    axis = _cross_dim(node, a, x, y)

    def rolled(t, shift: int):
        return b.Gather(t, i64([(i + shift) % 3 for i in range(3)]), np.int64(axis + rank_of(t, node)))
    return [b.Subtract(b.Multiply(rolled(x, 1), rolled(y, 2)), b.Multiply(rolled(x, 2), rolled(y, 1)))]


# ---------------------------------------------------------------------------- inverse


@aten("aten::inverse", "aten::linalg_inv")
def inverse(node, a, b):
    """The inverse of each matrix in the last two dims (Inverse-14)."""
    x = a.tensor(0)
    if not is_float_type(x.data.get_dtype()):
        raise ConversionError(f"The inverse of a {x.data.get_dtype()} matrix: PyTorch inverts floating point "
                              f"matrices only.")
    if rank_of(x, node) < 2:
        raise ConversionError(f"The inverse of a rank-{x.data.get_rank()} tensor: matrices have rank 2 or more.")
    return [b.Inverse(x, adjoint=False)]


# ---------------------------------------------------------------------------- norms


def _order(value) -> str | float:
    return value if isinstance(value, str) else float(value)


def singular_value_norm(b, node, x, order: str | float, axes: list[int], keep: bool):
    """The nuclear (sum), spectral (2: largest) or -2 (smallest) norm from the singular values of
    the matrices in ``axes``, moved to the end."""
    rank = rank_of(x, node)
    moved = [d for d in range(rank) if d not in axes] + list(axes)
    if moved != list(range(rank)):
        x = b.Transpose(x, i64(moved))
    values, _ = singular_values(b, node, x, rank)
    reduce = {"nuc": "ReduceSum", 2.0: "ReduceMax", -2.0: "ReduceMin"}[order]
    y = b.op(reduce, values, i64(-1), keep_dims=False)
    return b.Unsqueeze(y, i64(sorted(axes))) if keep else y


def matrix_norm(b, node, x, order: str | float, axes: list[int], keep: bool):
    """The ``order`` norm of the matrices in ``axes`` (rows, columns): 'fro', the largest
    (smallest) absolute column sum (1 / -1) or row sum (inf / -inf), or from the singular values
    ('nuc', 2, -2)."""
    if order == "fro":
        return b.ReduceL2(x, i64(axes), keep_dims=keep)
    if order in SINGULAR_VALUE_ORDERS:
        return singular_value_norm(b, node, x, order, axes, keep)
    if order not in (1.0, -1.0, np.inf, -np.inf):
        raise ConversionError(f"ord={order!r} is not a matrix norm (PyTorch takes 'fro', 'nuc', 1, -1, 2, -2, inf, "
                              f"-inf).")
    summed, extreme = (axes[0], axes[1]) if abs(order) == 1 else (axes[1], axes[0])
    sums = b.ReduceSum(b.Abs(x), i64(summed), keep_dims=True)
    y = b.op("ReduceMax" if order > 0 else "ReduceMin", sums, i64(extreme), keep_dims=True)
    return y if keep else b.Squeeze(y, i64(sorted(axes)))


def _matrix_axes(node, dims, rank: int) -> list[int]:
    axes = [norm_axis(d, rank, node) for d in dims]
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ConversionError(f"A matrix norm needs two different dims, not {list(dims)}.")
    return axes


def _norm_input(a, b):
    return _floating(b, a.tensor(0), a.const("dtype", None) if a.has("dtype") else None)


@aten("aten::linalg_norm")
def linalg_norm(node, a, b):
    """linalg_norm(input, ord, dim, keepdim, dtype): without ord the 2-norm of the flattened input
    (dim None) or along dim; otherwise a vector norm (one dim, or a 1-D input) or a matrix norm
    (two dims, or a 2-D input)."""
    x = _norm_input(a, b)
    rank = rank_of(x, node)
    order, dims = a.const("ord", None), a.const("dim", None)
    keep = bool(a.const("keepdim", False))
    dims = None if dims is None else [int(d) for d in np.atleast_1d(dims)]
    if order is None:
        axes = list(range(rank)) if dims is None else sorted({norm_axis(d, rank, node) for d in dims})
        return [b.ReduceL2(x, i64(axes), keep_dims=keep)]
    if dims is None:
        if rank not in (1, 2):
            raise ConversionError(f"linalg.norm with ord and without dim takes a 1-D or 2-D input, not rank {rank}.")
        dims = list(range(rank))
    if len(dims) == 1:
        if isinstance(order, str):
            raise ConversionError(f"ord={order!r} is a matrix norm; it needs two dims.")
        return [p_norm(b, x, float(order), [norm_axis(dims[0], rank, node)], keep)]
    return [matrix_norm(b, node, x, _order(order), _matrix_axes(node, dims, rank), keep)]


@aten("aten::linalg_matrix_norm")
def linalg_matrix_norm(node, a, b):
    """linalg_matrix_norm(input, ord='fro', dim=(-2, -1), keepdim, dtype)."""
    x = _norm_input(a, b)
    dims = a.const("dim", [-2, -1])
    return [matrix_norm(b, node, x, _order(a.const("ord", "fro")), _matrix_axes(node, list(np.atleast_1d(dims)),
                                                                            rank_of(x, node)),
                        bool(a.const("keepdim", False)))]


# ---------------------------------------------------------------------------- distances


@aten("aten::cdist", "aten::_cdist_forward")
def cdist(node, a, b):
    """cdist(x1 [..., P, M], x2 [..., R, M], p, compute_mode): the p-norm distances [..., P, R] of
    every pair of rows (p 0 counts differing coordinates, inf takes the largest difference)."""
    x, y = (_floating(b, t) for t in promoted(a, (0, 1), b)[1])
    if rank_of(x, node) < 2 or rank_of(y, node) < 2:
        raise ConversionError("cdist takes inputs of rank 2 or more ([..., rows, features]).")
    p = float(a.const("p", 2.0))
    if p < 0:
        raise ConversionError(f"cdist with p={p}: PyTorch takes p >= 0 only.")
    difference = b.Subtract(b.Unsqueeze(x, i64(-2)), b.Unsqueeze(y, i64(-3)))
    return [p_norm(b, difference, p, [rank_of(difference, node) - 1], False)]


@aten("aten::pairwise_distance")
def pairwise_distance(node, a, b):
    """pairwise_distance(x1, x2, p, eps, keepdim): the p-norm of x1 - x2 + eps along the last dim."""
    _, (x, y) = promoted(a, (0, 1), b)
    x, y = _floating(b, x), _floating(b, y)
    et = x.data.get_dtype()
    difference = b.Add(b.Subtract(x, y), const(b, a.const("eps", 1e-6), et))
    rank = rank_of(difference, node)
    if rank == 0:
        raise ConversionError("pairwise_distance of 0-d tensors is not defined.")
    return [p_norm(b, difference, float(a.const("p", 2.0)), [rank - 1], bool(a.const("keepdim", False)))]


# ---------------------------------------------------------------------------- decompositions


def _square(node, a, what: str):
    """The [..., N, N] floating-point matrices of argument 0 and their rank."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    if rank < 2:
        raise ConversionError(f"{what} takes matrices ([..., N, N]), not a rank-{rank} tensor.")
    if not is_float_type(x.data.get_dtype()):
        raise ConversionError(f"{what} of {x.data.get_dtype()} matrices: PyTorch computes it for floating point "
                              f"matrices only.")
    shape = x.data.get_shape()
    if shape[-1] >= 0 and shape[-2] >= 0 and shape[-1] != shape[-2]:
        raise ConversionError(f"{what} of {shape[-2]}x{shape[-1]} matrices: they must be square.")
    return x, rank


@aten("aten::det", "aten::linalg_det")
def det(node, a, b):
    """The determinant from the LU factorisation by partial pivoting."""
    x, rank = _square(node, a, "det")
    return [determinant(b, node, x, rank)]


@aten("aten::slogdet", "aten::linalg_slogdet", "aten::_linalg_slogdet")
def slogdet(node, a, b):
    """(sign, log |det|) from the LU (_linalg_slogdet also gives the LU and pivots, unused)."""
    x, rank = _square(node, a, "slogdet")
    sign, log_abs = log_determinant(b, node, x, rank)
    return [sign, log_abs] + [None] * (node.num_outputs - 2)


@aten("aten::logdet")
def logdet(node, a, b):
    """log det: log |det| where the determinant is positive, NaN where negative, -inf at 0."""
    x, rank = _square(node, a, "logdet")
    sign, log_abs = log_determinant(b, node, x, rank)
    et = x.data.get_dtype()
    return [b.Select(b.Less(sign, const(b, 0, et)), const(b, np.nan, et), log_abs)]


@aten("aten::linalg_qr", "aten::qr")
def qr(node, a, b):
    """QR by Householder reflections: mode 'reduced' (qr: some=True) Q [..., M, K], R [..., K, N]
    with K = min(M, N); 'complete' (some=False) Q [..., M, M], R [..., M, N]; 'r' R alone (Q
    empty)."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    if rank < 2 or not is_float_type(x.data.get_dtype()):
        raise ConversionError("qr takes floating point matrices ([..., M, N]).")
    if node.fw_op == "aten::qr":
        mode = "reduced" if a.const("some", True) else "complete"
    else:
        mode = a.const("mode", "reduced")
    q, r, p = householder_qr(b, node, x, rank)
    if mode == "complete":
        return [q, r]
    p1 = b.Unsqueeze(p, i64(0))
    r = b.Slice(r, i64(0), p1, i64(1), i64(rank - 2))
    if mode == "r":
        return [b.Broadcast(const(b, 0, x.data.get_dtype()), i64([0])), r]
    return [b.Slice(q, i64(0), p1, i64(1), i64(rank - 1)), r]


@aten("aten::pdist", "aten::_pdist_forward")
def pdist(node, a, b):
    """pdist(x [N, M], p): the p-norm distances of the rows i < j, in row-major order (the upper
    triangle of the distance matrix, gathered at constant positions; N must be static)."""
    x = _floating(b, a.tensor(0))
    n = x.data.get_shape()[0] if rank_of(x, node) == 2 else -1
    if n < 0:
        raise ConversionError("pdist takes a matrix [N, M] whose N is known when converting.")
    difference = b.Subtract(b.Unsqueeze(x, i64(1)), b.Unsqueeze(x, i64(0)))
    distances = p_norm(b, difference, float(a.const("p", 2.0)), [2], False)          # [N, N]
    rows, cols = np.triu_indices(n, 1)
    flat = b.Reshape(distances, i64([-1]), special_zero=False)
    return [b.Gather(flat, b.const((rows * n + cols).astype(np.int64)), np.int64(0))]


# ---------------------------------------------------------------------------- solves (through Inverse-14)


def _matrix_args(node, a, what: str):
    x = a.tensor(0)
    if rank_of(x, node) < 2 or not is_float_type(x.data.get_dtype()):
        raise ConversionError(f"{what} takes floating point matrices ([..., N, N]).")
    return x


def _is_vector_rhs(node, matrix, rhs) -> bool:
    """linalg.solve's rule: B is a batch of vectors when it is 1-D, or has one dim less than A
    and A's leading dims."""
    rank_a, rank_b = rank_of(matrix, node), rank_of(rhs, node)
    if rank_b == 1:
        return True
    shape_a, shape_b = matrix.data.get_shape(), rhs.data.get_shape()
    return rank_b == rank_a - 1 and tuple(shape_b) == tuple(shape_a[:-1])


def solve(node, b, matrix, rhs, left: bool = True):
    """X with A X = B (left) or X A = B: inverse(A) times B, B a matrix or a batch of vectors."""
    inverse = b.Inverse(matrix, adjoint=False)
    if _is_vector_rhs(node, matrix, rhs):
        return b.Squeeze(b.MatMul(inverse, b.Unsqueeze(rhs, i64(-1))), i64(-1)) if left else \
            b.Squeeze(b.MatMul(b.Unsqueeze(rhs, i64(-2)), inverse), i64(-2))
    return b.MatMul(inverse, rhs) if left else b.MatMul(rhs, inverse)


def _no_errors(b, matrix, rank: int):
    """The ``info`` output of the *_ex forms: zeros (i32) per matrix of the batch."""
    return b.Broadcast(b.const(np.int32(0)), b.Slice(b.ShapeOf(matrix), i64([0]), i64([rank - 2]), i64([1]),
                                                     i64([0])))


@aten("aten::linalg_solve", "aten::linalg_solve_ex", "aten::_linalg_solve_ex")
def linalg_solve(node, a, b):
    """linalg_solve(A, B, left): through the inverse of A (the _ex forms also give info = 0; the
    internal form's LU and pivots are not given)."""
    matrix = _matrix_args(node, a, "linalg.solve")
    _, (matrix, rhs) = promoted(a, (0, 1), b)
    x = solve(node, b, matrix, rhs, bool(a.const("left", True)))
    if node.num_outputs == 1:
        return [x]
    return [x] + [None] * (node.num_outputs - 2) + [_no_errors(b, matrix, rank_of(matrix, node))]


def _triangle(b, matrix, upper: bool, unit: bool):
    """The upper (lower) triangle of the matrices, the rest 0; 1 on the diagonal when ``unit``."""
    n = _last_dim(b, matrix, -1)
    rows = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    i, j = b.Unsqueeze(rows, i64(1)), b.Unsqueeze(rows, i64(0))
    et = matrix.data.get_dtype()
    kept = b.Select(b.LessEqual(i, j) if upper else b.GreaterEqual(i, j), matrix, const(b, 0, et))
    return b.Select(b.Equal(i, j), const(b, 1, et), kept) if unit else kept


@aten("aten::linalg_solve_triangular")
def solve_triangular(node, a, b):
    """linalg_solve_triangular(A, B, upper, left, unitriangular): the triangle of A (the other
    part ignored) inverted."""
    _, (matrix, rhs) = promoted(a, (0, 1), b)
    triangle = _triangle(b, matrix, bool(a.const("upper")), bool(a.const("unitriangular", False)))
    inverse = b.Inverse(triangle, adjoint=False)
    return [b.MatMul(inverse, rhs) if a.const("left", True) else b.MatMul(rhs, inverse)]


@aten("aten::triangular_solve")
def triangular_solve(node, a, b):
    """triangular_solve(B, A, upper, transpose, unitriangular): (X with op(A) X = B, A)."""
    _, (rhs, matrix) = promoted(a, (0, 1), b)
    triangle = _triangle(b, matrix, bool(a.const("upper", True)), bool(a.const("unitriangular", False)))
    inverse = b.Inverse(triangle, adjoint=bool(a.const("transpose", False)))
    return [b.MatMul(inverse, rhs), matrix]


@aten("aten::linalg_inv_ex")
def inv_ex(node, a, b):
    """linalg_inv_ex(A): (inverse, info = 0)."""
    x = _matrix_args(node, a, "linalg.inv_ex")
    return [b.Inverse(x, adjoint=False), _no_errors(b, x, rank_of(x, node))]


@aten("aten::linalg_matrix_power", "aten::matrix_power")
def matrix_power(node, a, b):
    """A^n by repeated squaring (negative n: of the inverse; 0: the identity)."""
    x = a.tensor(0)
    n = int(a.const("n"))
    if n < 0:
        x, n = b.Inverse(_matrix_args(node, a, "matrix_power of a negative power"), adjoint=False), -n
    if n == 0:
        rows = b.Range(np.int64(0), _last_dim(b, x, -1), np.int64(1), output_type="i64")
        eye = b.Equal(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(rows, i64(0)))
        return [b.Broadcast(convert(b, eye, x.data.get_dtype()), b.ShapeOf(x), mode="numpy")]
    result, power = None, x
    while n:
        if n & 1:
            result = power if result is None else b.MatMul(result, power)
        n >>= 1
        if n:
            power = b.MatMul(power, power)
    return [result]


@aten("aten::linalg_tensorinv")
def tensorinv(node, a, b):
    """tensorinv(A, ind): A seen as a matrix [prod(shape[:ind]), prod(shape[ind:])], inverted, of
    shape shape[ind:] + shape[:ind]."""
    x = _matrix_args(node, a, "tensorinv") if rank_of(a.tensor(0), node) >= 2 else a.tensor(0)
    shape = list(x.data.get_shape())
    ind = int(a.const("ind", 2))
    if any(d < 0 for d in shape):
        raise ConversionError("tensorinv needs a static shape.")
    rows, cols = int(np.prod(shape[:ind])), int(np.prod(shape[ind:]))
    inverse = b.Inverse(b.Reshape(x, i64([rows, cols]), special_zero=False), adjoint=False)
    return [b.Reshape(inverse, i64(shape[ind:] + shape[:ind]), special_zero=False)]


@aten("aten::linalg_tensorsolve")
def tensorsolve(node, a, b):
    """tensorsolve(A, B, dims): X with tensordot(A, X) = B: the dims moved to the end, A as a
    matrix [numel(B), rest], solved."""
    _, (x, rhs) = promoted(a, (0, 1), b)
    rank = rank_of(x, node)
    dims = a.const("dims", None) if a.has("dims") else None
    if dims:
        moved = [norm_axis(d, rank, node) for d in dims]
        order = [d for d in range(rank) if d not in moved] + moved
        x = b.Transpose(x, i64(order))
    shape = list(x.data.get_shape())
    rhs_shape = list(rhs.data.get_shape())
    if any(d < 0 for d in shape + rhs_shape):
        raise ConversionError("tensorsolve needs static shapes.")
    rows = int(np.prod(rhs_shape))
    rest = shape[len(rhs_shape):]
    matrix = b.Reshape(x, i64([rows, int(np.prod(rest))]), special_zero=False)
    solution = b.MatMul(b.Inverse(matrix, adjoint=False), b.Reshape(rhs, i64([rows, 1]), special_zero=False))
    return [b.Reshape(solution, i64(rest), special_zero=False)]


# ---------------------------------------------------------------------------- Cholesky


def cholesky_lower(b, node, x, rank: int):
    """L with L L^T = A for [..., N, N] symmetric positive-definite A, column by column in a
    Loop: L[j, j] = sqrt(A[j, j] - sum L[j, :j]^2), L[i, j] = (A[i, j] - L[i, :j] . L[j, :j]) /
    L[j, j] below."""
    et = x.data.get_dtype()
    n = _last_dim(b, x, -1)
    rows = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    zeros = b.Multiply(x, const(b, 0, et))

    def step(bb, k, carried, invariant):
        (lower,), (matrix, rws) = carried, invariant
        zero = const(bb, 0, et)
        row_k = bb.Gather(lower, k, np.int64(rank - 2))                          # [..., N]
        dots = bb.Squeeze(bb.MatMul(lower, bb.Unsqueeze(row_k, i64(-1))), i64(-1))   # L[i, :] . L[k, :]
        column = bb.Subtract(bb.Gather(matrix, k, np.int64(rank - 1)), dots)       # [..., N]
        head = bb.ReduceSum(bb.Select(bb.Equal(rws, k), column, zero), i64(-1), keep_dims=True)
        diagonal = bb.Sqrt(head)
        new = bb.Select(bb.Equal(rws, k), diagonal, bb.Select(bb.Greater(rws, k), bb.Divide(column, diagonal), zero))
        in_column = bb.Unsqueeze(bb.Equal(rws, k), i64(0))                       # [1, N]
        return [bb.Select(in_column, bb.Unsqueeze(new, i64(-1)), lower)]
    (lower,) = column_loop(b, node, n, [zeros], [x, rows], step, "cholesky")
    return lower


def _transposed(b, x, rank: int):
    return b.Transpose(x, i64(list(range(rank - 2)) + [rank - 1, rank - 2]))


@aten("aten::linalg_cholesky", "aten::cholesky", "aten::linalg_cholesky_ex")
def cholesky(node, a, b):
    """The Cholesky factor (lower, or its transpose for ``upper``); the _ex form also info = 0."""
    x = _matrix_args(node, a, "cholesky")
    rank = rank_of(x, node)
    lower = cholesky_lower(b, node, x, rank)
    factor = _transposed(b, lower, rank) if a.const("upper", False) else lower
    return [factor] if node.num_outputs == 1 else [factor, _no_errors(b, x, rank)]


def _from_factor(b, factor, upper: bool, rank: int):
    """A = L L^T (or U^T U) of its Cholesky factor."""
    return b.MatMul(_transposed(b, factor, rank), factor) if upper else \
        b.MatMul(factor, _transposed(b, factor, rank))


@aten("aten::cholesky_inverse")
def cholesky_inverse(node, a, b):
    """The inverse of A from its Cholesky factor."""
    factor = _matrix_args(node, a, "cholesky_inverse")
    return [b.Inverse(_from_factor(b, factor, bool(a.const("upper", False)), rank_of(factor, node)), adjoint=False)]


@aten("aten::cholesky_solve")
def cholesky_solve(node, a, b):
    """cholesky_solve(B, factor, upper): X with A X = B, A from its Cholesky factor."""
    _, (rhs, factor) = promoted(a, (0, 1), b)
    matrix = _from_factor(b, factor, bool(a.const("upper", False)), rank_of(factor, node))
    return [b.MatMul(b.Inverse(matrix, adjoint=False), rhs)]


def _last_dim(b, x, axis: int):
    """The size of dim ``axis`` (negative: from the end) of x, as a scalar."""
    return dim(b, x, axis % x.data.get_rank())


TAYLOR_DEGREE = 14


@aten("aten::matrix_exp", "aten::linalg_matrix_exp")
def matrix_exp(node, a, b):
    """exp(A) by scaling and squaring: A / 2^s with s from the largest absolute column sum of the
    batch (the scaled norm at most 1/2), its Taylor polynomial of degree TAYLOR_DEGREE (Horner),
    then s squarings in a Loop."""
    x = _matrix_args(node, a, "matrix_exp")
    et = x.data.get_dtype()
    rank = rank_of(x, node)
    c = lambda v: const(b, v, et)  # noqa: E731
    norm = b.ReduceMax(b.Reshape(b.ReduceSum(b.Abs(x), i64(rank - 2), keep_dims=False), i64([-1]),
                                 special_zero=False), i64(0), keep_dims=False)
    s = b.Maximum(b.Add(b.Ceiling(b.Divide(b.Log(b.Maximum(norm, c(1e-30))), c(np.log(2.0)))), c(1)), c(0))
    scaled = b.Divide(x, b.Power(c(2), s))
    rows = b.Range(np.int64(0), _last_dim(b, x, -1), np.int64(1), output_type="i64")
    eye = b.Broadcast(convert(b, b.Equal(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(rows, i64(0))), et), b.ShapeOf(x),
                      mode="numpy")
    y = eye
    for k in range(TAYLOR_DEGREE, 0, -1):
        y = b.Add(eye, b.Divide(b.MatMul(scaled, y), c(k)))

    def square(bb, k, carried, invariant):
        (m,) = carried
        return [bb.MatMul(m, m)]
    (y,) = column_loop(b, node, convert(b, s, "i64"), [y], [], square, "squarings")
    return [y]


@aten("aten::linalg_vecdot")
def vecdot(node, a, b):
    """linalg_vecdot(x, y, dim=-1): the dot products along ``dim`` (of real vectors)."""
    _, (x, y) = promoted(a, (0, 1), b)
    product = b.Multiply(x, y)
    axis = norm_axis(a.const("dim", -1), rank_of(product, node), node)
    return [b.ReduceSum(product, i64(axis), keep_dims=False)]


@aten("aten::linalg_cond")
def cond(node, a, b):
    """linalg_cond(A, p): the ratio of the largest and smallest singular values (p None or 2; -2
    its inverse), else ||A|| ||inverse(A)|| in the matrix norm p ('fro', 'nuc', 1, -1, inf, -inf)."""
    x = _matrix_args(node, a, "linalg.cond")
    order = a.const("p", None)
    order = 2.0 if order is None else _order(order)
    rank = rank_of(x, node)
    if order in (2.0, -2.0):
        values, _ = singular_values(b, node, x, rank)
        largest, smallest = (b.op(r, values, i64(-1), keep_dims=False) for r in ("ReduceMax", "ReduceMin"))
        return [b.Divide(largest, smallest) if order > 0 else b.Divide(smallest, largest)]
    axes = [rank - 2, rank - 1]
    return [b.Multiply(matrix_norm(b, node, x, order, axes, False),
                       matrix_norm(b, node, b.Inverse(x, adjoint=False), order, axes, False))]
