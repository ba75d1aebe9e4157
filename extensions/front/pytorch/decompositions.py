"""ATen matrix decompositions beyond det / QR / Cholesky: the LU family (_lu_with_info,
linalg_lu_factor[_ex], linalg_lu, lu_unpack, lu_solve, linalg_lu_solve) from the partial-pivoting
Loop of extensions/front/common/linalg.py, with PyTorch's (LAPACK's) 1-based i32 pivots; the
symmetric eigen-decomposition (linalg_eigh, linalg_eigvalsh) and the SVD (linalg_svdvals,
linalg_svd, svd) by the Jacobi rotations of extensions/front/common/jacobi.py, and from them
linalg_matrix_rank, linalg_pinv, pinverse and linalg_lstsq; LAPACK's compact QR (geqrf) and the products of its
Householder reflections (linalg_householder_product, ormqr); the Bunch-Kaufman LDL^T
(linalg_ldl_factor[_ex], linalg_ldl_solve) of extensions/front/common/ldl.py."""
from __future__ import annotations

import numpy as np

from extensions.front.common.jacobi import singular_values, svd, symmetric_eigen
from extensions.front.common.ldl import ldl_factor, ldl_product
from extensions.front.common.linalg import column_loop, householder_matrix, householder_packed, lu_loop
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


# ---------------------------------------------------------------------------- eigen-decomposition, SVD


def _swap_last(rank: int):
    return i64(list(range(rank - 2)) + [rank - 1, rank - 2])


def _is_empty(x) -> bool:
    """Matrices with a (static) zero dim: their decompositions are empty."""
    shape = x.data.get_shape()
    return shape[-1] == 0 or shape[-2] == 0


def _empty_values(b, x, rank: int):
    """[..., 0] values of matrices with a zero dim (the sums over rows, sliced to none)."""
    return b.Slice(b.ReduceSum(x, i64(rank - 2), keep_dims=False), i64(0), i64(0), i64(1), i64(-1))


def _symmetric(b, node, a, what: str):
    """The symmetric matrices that argument 0's lower (UPLO 'L') or upper ('U') triangle gives."""
    x, rank = _matrices(node, a, 0, what)
    return _mirrored(b, x, rank, str(a.const("UPLO", "L")).upper() == "U"), rank


def _mirrored(b, x, rank: int, upper: bool = False):
    """The symmetric matrices of the lower (upper) triangle of x."""
    n = dim(b, x, rank - 1)
    rows = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    i, j = b.Unsqueeze(rows, i64(1)), b.Unsqueeze(rows, i64(0))
    return b.Select(b.LessEqual(i, j) if upper else b.GreaterEqual(i, j), x, b.Transpose(x, _swap_last(rank)))


@aten("aten::linalg_eigh", "aten::_linalg_eigh", "aten::linalg_eigvalsh")
def eigh(node, a, b):
    """Eigenvalues (ascending) and eigenvectors (columns; their signs are those of the Jacobi
    rotations, LAPACK's are as arbitrary) of the symmetric matrices of one triangle."""
    x, rank = _symmetric(b, node, a, node.fw_op[6:])
    vectors = node.fw_op == "aten::linalg_eigh" or (node.fw_op == "aten::_linalg_eigh" and a.const("compute_v", True))
    if _is_empty(x):
        values, v = _empty_values(b, x, rank), x
    else:
        values, v = symmetric_eigen(b, node, x, rank, vectors)
    if node.fw_op == "aten::linalg_eigvalsh":
        return [values]
    return [values, v if vectors else b.Broadcast(const(b, 0, x.data.get_dtype()), i64([0]))]


@aten("aten::linalg_svdvals")
def svdvals(node, a, b):
    """The singular values, descending."""
    x, rank = _matrices(node, a, 0, "linalg.svdvals")
    return [_empty_values(b, x, rank) if _is_empty(x) else singular_values(b, node, x, rank)[0]]


def _static_sizes(node, x, what: str) -> tuple:
    shape = x.data.get_shape()
    if shape[-1] < 0 or shape[-2] < 0:
        raise ConversionError(f"{what} needs the matrix sizes when converting (input shape {list(shape)}).")
    return shape[-2], shape[-1]


@aten("aten::linalg_svd", "aten::_linalg_svd", "aten::svd")
def linalg_svd(node, a, b):
    """(U, S, Vh) (svd: (U, S, V)) by one-sided Jacobi: the reduced factors (full_matrices False,
    some True), or the full ones of square matrices; without compute_uv, U and V are zeros (svd)
    or empty (_linalg_svd). The singular vectors' signs are those of the rotations (LAPACK's are
    as arbitrary)."""
    x, rank = _matrices(node, a, 0, node.fw_op[6:])
    m, n = _static_sizes(node, x, node.fw_op[6:])
    et = x.data.get_dtype()
    legacy = node.fw_op == "aten::svd"
    full = not a.const("some", True) if legacy else bool(a.const("full_matrices", node.fw_op == "aten::linalg_svd"))
    compute_uv = bool(a.const("compute_uv", True))
    if full and m != n and compute_uv:
        raise ConversionError(f"The full SVD of {m}x{n} matrices needs the orthogonal complement of the singular "
                              f"vectors, which is not converted; full_matrices=False (some=True) converts.")
    if m == 0 or n == 0:
        batch = dims_slice(b, shape_of(b, x), 0, rank - 2)
        u = b.Broadcast(const(b, 0, et), b.Concat(batch, i64([m, m if full else 0]), axis=0))
        v = b.Broadcast(const(b, 0, et), b.Concat(batch, i64([n, n if full else 0]), axis=0))
        s = _empty_values(b, x, rank)
    else:
        u, s, v = svd(b, node, x, rank)
    if not compute_uv:
        if not legacy:
            empty = b.Broadcast(const(b, 0, et), i64([0]))
            return [empty, s, empty]
        zeros = lambda size: b.Broadcast(const(b, 0, et), b.Concat(  # noqa: E731
            dims_slice(b, shape_of(b, x), 0, rank - 2), i64([size, size]), axis=0))
        return [zeros(m), s, zeros(n)]
    return [u, s, v if legacy else b.Transpose(v, _swap_last(rank))]


def _tolerance(b, a, key, et: str):
    """A tolerance argument (float or tensor) as a tensor of ``et``, or None."""
    if not a.has(key) or a.is_none(key):
        return None
    port = a.port(key)
    return convert(b, port, et) if port is not None else const(b, float(a.const(key)), et)


def _cutoff(b, a, largest, m: int, n: int, et: str, atol_key, rtol_key):
    """max(atol, rtol * largest) [..., 1]; rtol defaults to eps * max(M, N) without atol, else 0."""
    atol = _tolerance(b, a, atol_key, et) if atol_key else None
    rtol = _tolerance(b, a, rtol_key, et) if rtol_key else None
    if rtol is None:
        rtol = const(b, 0.0 if atol is not None else np.finfo(np.float32 if et != "f64" else np.float64).eps
                     * max(m, n), et)
    cutoff = b.Multiply(rtol, largest)
    if atol is not None:
        cutoff = b.Maximum(atol, cutoff)
    return b.Unsqueeze(cutoff, i64(-1))


def _tolerance_keys(node, a) -> tuple:
    """(atol, rtol) argument names of the overloads of matrix_rank / pinv."""
    if a.has("atol") or a.has("rtol"):
        return "atol", "rtol"
    if a.has("tol"):
        return "tol", None
    return None, "rcond"


@aten("aten::linalg_matrix_rank")
def matrix_rank(node, a, b):
    """The number of singular values (|eigenvalues| for ``hermitian``) above max(atol, rtol *
    the largest), as i64."""
    x, rank = _matrices(node, a, 0, "linalg.matrix_rank")
    m, n = _static_sizes(node, x, "linalg.matrix_rank")
    et = x.data.get_dtype()
    if m == 0 or n == 0:
        return [b.Broadcast(b.const(np.int64(0)), dims_slice(b, shape_of(b, x), 0, rank - 2))]
    values = _magnitudes(b, node, a, x, rank)
    largest = b.ReduceMax(values, i64(-1), keep_dims=False)
    cutoff = _cutoff(b, a, largest, m, n, et, *_tolerance_keys(node, a))
    return [b.ReduceSum(convert(b, b.Greater(values, cutoff), "i64"), i64(-1), keep_dims=False)]


def _magnitudes(b, node, a, x, rank: int):
    """The singular values, or for ``hermitian`` the |eigenvalues| of the lower triangle."""
    if a.const("hermitian", False):
        values, _ = symmetric_eigen(b, node, _mirrored(b, x, rank), rank, vectors=False)
        return b.Abs(values)
    return singular_values(b, node, x, rank)[0]




@aten("aten::linalg_pinv", "aten::pinverse")
def pinv(node, a, b):
    """The pseudo-inverse V diag(1 / s) U^T over the singular values s above max(atol, rtol *
    the largest) (``hermitian``: V diag(1 / w) V^T over the eigenvalues w of the lower triangle
    with |w| above it)."""
    x, rank = _matrices(node, a, 0, node.fw_op[6:])
    m, n = _static_sizes(node, x, node.fw_op[6:])
    et = x.data.get_dtype()
    if m == 0 or n == 0:
        return [b.Transpose(x, _swap_last(rank))]
    keys = _tolerance_keys(node, a)
    if a.const("hermitian", False):
        w, v = symmetric_eigen(b, node, _mirrored(b, x, rank), rank)
        magnitudes = b.Abs(w)
        kept = b.Greater(magnitudes, _cutoff(b, a, b.ReduceMax(magnitudes, i64(-1), keep_dims=False), m, n, et, *keys))
        return [_pseudo_inverse(b, v, w, v, kept)]
    u, s, v = svd(b, node, x, rank)
    kept = b.Greater(s, _cutoff(b, a, b.ReduceMax(s, i64(-1), keep_dims=False), m, n, et, *keys))
    return [_pseudo_inverse(b, u, s, v, kept)]


def _pseudo_inverse(b, u, s, v, kept):
    """V diag(1 / s) U^T over the singular values ``kept``."""
    et = s.data.get_dtype()
    inverse = b.Select(kept, b.Divide(const(b, 1, et), b.Select(kept, s, const(b, 1, et))), const(b, 0, et))
    return b.MatMul(b.Multiply(v, b.Unsqueeze(inverse, i64(-2))), u, transpose_b=True)


# ---------------------------------------------------------------------------- Householder reflections


@aten("aten::geqrf")
def geqrf(node, a, b):
    """(R with the Householder vectors below its diagonal, tau), as LAPACK's geqrf gives them."""
    x, rank = _matrices(node, a, 0, "geqrf")
    if _is_empty(x):
        return [x, _empty_values(b, x, rank)]
    return list(householder_packed(b, node, x, rank))


@aten("aten::linalg_householder_product")
def householder_product(node, a, b):
    """The first N columns of H_0 ... H_{K-1} of the reflectors [..., M, N] and tau [..., K]."""
    x, rank = _matrices(node, a, 0, "linalg.householder_product")
    q = householder_matrix(b, node, x, a.tensor(1), rank)
    return [b.Slice(q, i64(0), b.Unsqueeze(dim(b, x, rank - 1), i64(0)), i64(1), i64(rank - 1))]


@aten("aten::ormqr")
def ormqr(node, a, b):
    """ormqr(A, tau, C, left, transpose): Q C, Q^T C, C Q or C Q^T with Q = H_0 ... H_{K-1}."""
    x, rank = _matrices(node, a, 0, "ormqr")
    q = householder_matrix(b, node, x, a.tensor(1), rank)
    transpose, other = bool(a.const("transpose", False)), a.tensor(2)
    if a.const("left", True):
        return [b.MatMul(q, other, transpose_a=transpose)]
    return [b.MatMul(other, q, transpose_b=transpose)]


@aten("aten::linalg_lstsq")
def lstsq(node, a, b):
    """linalg_lstsq(A [..., M, N], B [..., M, K], rcond, driver): (the minimum-norm least-squares
    solution pinv(A) B over the singular values above rcond * the largest (rcond default eps *
    max(M, N)), the squared residuals per column (M > N, drivers other than gelsy, every matrix of
    full rank: else empty), the rank (not for gels: empty), the singular values (gelsd, gelss;
    else empty)) as LAPACK's drivers give them."""
    x, rank = _matrices(node, a, 0, "linalg.lstsq")
    m, n = _static_sizes(node, x, "linalg.lstsq")
    if m == 0 or n == 0:
        raise ConversionError("linalg.lstsq of empty matrices is not converted.")
    et = x.data.get_dtype()
    rhs = a.tensor(1)
    driver = a.const("driver", None) or "gelsy"
    rcond = a.const("rcond", None)
    rcond = np.finfo(np.float64 if et == "f64" else np.float32).eps * max(m, n) if rcond is None else float(rcond)
    u, s, v = svd(b, node, x, rank)
    kept = b.Greater(s, b.Unsqueeze(b.Multiply(b.ReduceMax(s, i64(-1), keep_dims=False), const(b, rcond, et)), i64(-1)))
    solution = b.MatMul(_pseudo_inverse(b, u, s, v, kept), rhs)
    empty = b.Broadcast(const(b, 0, et), i64([0]))
    full_rank = b.ReduceSum(convert(b, kept, "i64"), i64(-1), keep_dims=False)
    residuals = empty
    if m > n and driver != "gelsy":
        error = b.Subtract(b.MatMul(x, solution), rhs)
        squares = b.ReduceSum(b.Multiply(error, error), i64(-2), keep_dims=False)
        everywhere = b.ReduceMin(b.Reshape(full_rank, i64([-1]), special_zero=False), i64(0), keep_dims=False)
        count = b.Select(b.Equal(everywhere, np.int64(n)), dim(b, squares, rank - 2), np.int64(0))
        residuals = b.Slice(squares, i64(0), b.Unsqueeze(count, i64(0)), i64(1), i64(-1))
    ranks = b.Broadcast(b.const(np.int64(0)), i64([0])) if driver == "gels" else full_rank
    return [solution, residuals, ranks, s if driver in ("gelsd", "gelss") else empty]


# ---------------------------------------------------------------------------- LDL^T


@aten("aten::linalg_ldl_factor", "aten::linalg_ldl_factor_ex")
def ldl(node, a, b):
    """(LD, pivots (i32, LAPACK's)[, info]) of the symmetric matrices of the lower triangle."""
    x, rank = _matrices(node, a, 0, node.fw_op[6:])
    if _is_empty(x):
        batch = dims_slice(b, shape_of(b, x), 0, rank - 2)
        outputs = [x, b.Broadcast(b.const(np.int32(0)), dims_slice(b, shape_of(b, x), 0, rank - 1)),
                   b.Broadcast(b.const(np.int32(0)), batch)]
    else:
        ld, pivots, info = ldl_factor(b, node, _mirrored(b, x, rank), rank)
        outputs = [ld, convert(b, pivots, "i32"), convert(b, info, "i32")]
    return outputs if node.fw_op.endswith("_ex") else outputs[:2]


@aten("aten::linalg_ldl_solve")
def ldl_solve(node, a, b):
    """X with A X = B, A = M D M^T rebuilt from its LDL^T factorisation and inverted."""
    ld, rank = _matrices(node, a, 0, "linalg.ldl_solve")
    return [b.MatMul(b.Inverse(ldl_product(b, node, ld, a.tensor(1), rank), adjoint=False), a.tensor(2))]
