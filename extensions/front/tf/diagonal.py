"""TensorFlow diagonals of matrices: MatrixDiag, MatrixDiagPart and MatrixSetDiag (v1, V2, V3
and the Batch* aliases), built from index arithmetic and Gather.

Diagonal d of a matrix holds the elements (i, i + d); a band k = [k0, k1] packs diagonals k1 down
to k0 into rows of ``max_diag_len`` elements, a shorter diagonal aligned to the left or right of
its row by ``align`` (V3; V2 aligns everything left): the first word for superdiagonals (d >= 0),
the second for subdiagonals (d <= 0), the main diagonal left if either word says LEFT. A single k
packs one diagonal without the band dimension. The matrix sizes stay computed (the IR is
reshapeable); k must be constant (it fixes the output's rank)."""
from __future__ import annotations

import numpy as np

from extensions.front.tf.shape import constant_input
from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import convert, dim, dims_slice, i64, input_rank, input_sources, shape_of, typed_const

# op type -> (input of k or None for the main diagonal, default align)
DIAG = {"MatrixDiag": (None, "LEFT_LEFT"), "BatchMatrixDiag": (None, "LEFT_LEFT"), "MatrixDiagV2": (1, "LEFT_LEFT"),
        "MatrixDiagV3": (1, "RIGHT_LEFT")}
DIAG_PART = {"MatrixDiagPart": (None, "LEFT_LEFT"), "BatchMatrixDiagPart": (None, "LEFT_LEFT"),
             "MatrixDiagPartV2": (1, "LEFT_LEFT"), "MatrixDiagPartV3": (1, "RIGHT_LEFT")}
SET_DIAG = {"MatrixSetDiag": (None, "LEFT_LEFT"), "BatchMatrixSetDiag": (None, "LEFT_LEFT"),
            "MatrixSetDiagV2": (2, "LEFT_LEFT"), "MatrixSetDiagV3": (2, "RIGHT_LEFT")}
ALIGNS = ("LEFT_LEFT", "LEFT_RIGHT", "RIGHT_LEFT", "RIGHT_RIGHT")


def _band(node, k_port: int | None) -> tuple[int, int, bool]:
    """(k0, k1, whether a band dimension is packed) of the node's k input."""
    if k_port is None:
        return 0, 0, False
    k = np.asarray(constant_input(node, k_port, "k")).reshape(-1).astype(np.int64)
    if k.size not in (1, 2) or k[0] > k[-1]:
        raise ConversionError(f"k {k.tolist()} should be one diagonal or [low, high] with low <= high.")
    return int(k[0]), int(k[-1]), k.size == 2


def _align(node, default: str) -> tuple[bool, bool]:
    """Whether superdiagonals and subdiagonals are left-aligned."""
    align = str(TfExtractor.attr(node, "align", default) or default)
    if align not in ALIGNS:
        raise ConversionError(f"align '{align}' is not one of {', '.join(ALIGNS)}.")
    return align.startswith("LEFT"), align.endswith("LEFT")


def _content_offset(b, d, rows, cols, max_len, left_super: bool, left_sub: bool):
    """(length of diagonal d, where its elements start in its packed row) for i64 ports."""
    zero = np.int64(0)
    length = b.Minimum(b.Add(rows, b.Minimum(d, zero)), b.Subtract(cols, b.Maximum(d, zero)))
    left = b.LogicalOr(b.LogicalAnd(b.GreaterEqual(d, zero), np.array(left_super)),
                       b.LogicalAnd(b.LessEqual(d, zero), np.array(left_sub)))
    return length, b.Select(left, zero, b.Subtract(max_len, length))


def _packed_index(b, rows, cols, k0: int, k1: int, max_len, align):
    """For a [rows, cols] matrix: which elements lie on the band, and the position of each in
    the packed diagonals flattened to [(k1 - k0 + 1) * max_len]."""
    i = b.Unsqueeze(b.Range(np.int64(0), rows, np.int64(1), output_type="i64"), i64(1))
    j = b.Unsqueeze(b.Range(np.int64(0), cols, np.int64(1), output_type="i64"), i64(0))
    d = b.Subtract(j, i)
    _, offset = _content_offset(b, d, rows, cols, max_len, *align)
    index = b.Add(b.Add(b.Multiply(b.Subtract(np.int64(k1), d), max_len), b.Minimum(i, j)), offset)
    on_band = b.LogicalAnd(b.GreaterEqual(d, np.int64(k0)), b.LessEqual(d, np.int64(k1)))
    return on_band, b.Select(on_band, index, np.int64(0))


def _flat_diagonals(b, diagonal, rank: int, packed: bool):
    """The packed diagonals [..., (D,) L] as [..., D * L]."""
    if not packed:
        return diagonal
    return b.Reshape(diagonal, b.Concat(dims_slice(b, shape_of(b, diagonal), 0, rank - 2), i64(-1), axis=0),
                     special_zero=False)


def _scalar_i64(b, port):
    return b.Reshape(convert(b, port, "i64"), i64(), special_zero=False)


@translator("tf", *DIAG)
def matrix_diag(node, b):
    """MatrixDiag*(diagonal[, k, num_rows, num_cols, padding_value]): matrices with the packed
    diagonals on their band and padding_value (v1: 0) elsewhere; num_rows/num_cols of -1 are
    the least that hold the band (square when both are -1)."""
    k_port, default = DIAG[node.fw_op]
    k0, k1, packed = _band(node, k_port)
    ports = input_sources(node)
    diagonal = ports[0]
    rank = input_rank(node)
    if rank < 1 + packed:
        raise ConversionError(f"its diagonal must have rank {1 + packed} or more.")
    max_len = dim(b, diagonal, rank - 1)
    least_rows, least_cols = b.Subtract(max_len, np.int64(min(k1, 0))), b.Add(max_len, np.int64(max(k0, 0)))
    if k_port is None:
        rows = cols = max_len
        pad = typed_const(b, 0, diagonal.data.get_dtype())
    else:
        n_rows, n_cols, pad = _scalar_i64(b, ports[2]), _scalar_i64(b, ports[3]), ports[4]
        square = b.Maximum(least_rows, least_cols)
        both = b.LogicalAnd(b.Equal(n_rows, np.int64(-1)), b.Equal(n_cols, np.int64(-1)))
        rows = b.Select(both, square, b.Select(b.Equal(n_rows, np.int64(-1)), least_rows, n_rows))
        cols = b.Select(both, square, b.Select(b.Equal(n_cols, np.int64(-1)), least_cols, n_cols))
    on_band, index = _packed_index(b, rows, cols, k0, k1, max_len, _align(node, default))
    values = b.Gather(_flat_diagonals(b, diagonal, rank, packed), index, np.int64(-1))
    return [b.Select(on_band, values, pad)]


@translator("tf", *DIAG_PART)
def matrix_diag_part(node, b):
    """MatrixDiagPart*(input[, k, padding_value]): the diagonals k1 down to k0 of each matrix,
    packed into rows of the longest one's length, padded with padding_value (v1: 0)."""
    k_port, default = DIAG_PART[node.fw_op]
    k0, k1, packed = _band(node, k_port)
    ports = input_sources(node)
    x = ports[0]
    rank = input_rank(node)
    if rank < 2:
        raise ConversionError("its input must have rank 2 or more.")
    pad = ports[2] if k_port is not None else typed_const(b, 0, x.data.get_dtype())
    rows, cols = dim(b, x, rank - 2), dim(b, x, rank - 1)
    max_len = b.Minimum(b.Add(rows, np.int64(min(k1, 0))), b.Subtract(cols, np.int64(max(k0, 0))))
    d = b.const(np.arange(k1, k0 - 1, -1, dtype=np.int64).reshape(-1, 1))
    length, offset = _content_offset(b, d, rows, cols, max_len, *_align(node, default))
    n = b.Subtract(b.Unsqueeze(b.Range(np.int64(0), max_len, np.int64(1), output_type="i64"), i64(0)), offset)
    valid = b.LogicalAnd(b.GreaterEqual(n, np.int64(0)), b.Less(n, length))
    flat = b.Add(b.Multiply(b.Subtract(n, b.Minimum(d, np.int64(0))), cols), b.Add(n, b.Maximum(d, np.int64(0))))
    matrices = b.Reshape(x, b.Concat(dims_slice(b, shape_of(b, x), 0, rank - 2), i64(-1), axis=0),
                         special_zero=False)
    values = b.Select(valid, b.Gather(matrices, b.Select(valid, flat, np.int64(0)), np.int64(-1)), pad)
    return [values if packed else b.Squeeze(values, i64(-2))]


@translator("tf", *SET_DIAG)
def matrix_set_diag(node, b):
    """MatrixSetDiag*(input, diagonal[, k]): input with the band replaced by the packed
    diagonals."""
    k_port, default = SET_DIAG[node.fw_op]
    k0, k1, packed = _band(node, k_port)
    x, diagonal = node.in_port(0).get_source(), node.in_port(1).get_source()
    rank = input_rank(node)
    if rank < 2:
        raise ConversionError("its input must have rank 2 or more.")
    d_rank = input_rank(node, 1)
    on_band, index = _packed_index(b, dim(b, x, rank - 2), dim(b, x, rank - 1), k0, k1,
                                   dim(b, diagonal, d_rank - 1), _align(node, default))
    values = b.Gather(_flat_diagonals(b, diagonal, d_rank, packed), index, np.int64(-1))
    return [b.Select(on_band, values, x)]
