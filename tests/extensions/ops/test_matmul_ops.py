"""infer of MatMul, Einsum and Inverse."""
import numpy as np
import pytest

from mo.errors import GraphError
from tests.utils.graphs import infer_op


@pytest.mark.parametrize("a, b, flags, expected", [
    ((2, 3), (3, 4), {}, (2, 4)),
    ((3,), (3,), {}, ()),
    ((3,), (-1, 3, 4), {}, (-1, 4)),
    ((5, 2, 3), (3,), {}, (5, 2)),
    ((1, 2, 3), (7, 4, 3), {"transpose_b": True}, (7, 2, 4)),
    ((3, 2), (3, 4), {"transpose_a": True}, (2, 4)),
    ((-1, 3), (-1, -1), {}, (-1, -1)),
])
def test_matmul_shapes(a, b, flags, expected):
    (out,) = infer_op("MatMul", (a, "f32"), (b, "f32"), **flags)
    assert out.data.get_shape() == expected


def test_matmul_rejects_mismatched_inner_dims():
    with pytest.raises(GraphError, match="MatMul"):
        infer_op("MatMul", ((2, 3), "f32"), ((4, 5), "f32"))


def test_matmul_folds_with_transpose():
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    (out,) = infer_op("MatMul", a, a, transpose_a=True)
    np.testing.assert_array_equal(out.data.get_value(), a.T @ a)


@pytest.mark.parametrize("equation, shapes, expected", [
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)], (5, 2, 4)),
    ("...ii->...i", [(3, 5, 5)], (3, 5)),
    ("i,i->", [(5,), (5,)], ()),
    ("ij->ji", [(-1, 4)], (4, -1)),
    ("...j,j->...", [(2, 7, 3), (3,)], (2, 7)),
])
def test_einsum_shapes(equation, shapes, expected):
    (out,) = infer_op("Einsum", *[(s, "f32") for s in shapes], equation=equation)
    assert out.data.get_shape() == expected


def test_einsum_folds():
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    (out,) = infer_op("Einsum", x, equation="ii->")
    assert out.data.get_value() == 3


@pytest.mark.parametrize("adjoint", [False, True])
def test_inverse_folds(adjoint):
    """Each matrix of the batch times its inverse is the identity; adjoint transposes it."""
    x = np.array([[[1, 2], [3, 5]], [[2, 0], [0, 4]]], np.float32)
    (out,) = infer_op("Inverse", x, adjoint=adjoint)
    inverse = out.data.get_value()
    if adjoint:
        inverse = np.swapaxes(inverse, -1, -2)
    assert inverse.dtype == np.float32
    np.testing.assert_allclose(x @ inverse, np.broadcast_to(np.eye(2), (2, 2, 2)), atol=1e-5)
    np.testing.assert_allclose(inverse[0], [[-5, 2], [3, -1]], rtol=1e-5)


@pytest.mark.parametrize("shape, et, message", [((3, 3), "i32", "floating point"), ((3,), "f32", "rank-1"),
                                                ((2, 3), "f32", "do not match")])
def test_inverse_refuses(shape, et, message):
    with pytest.raises(GraphError, match=message):
        infer_op("Inverse", (shape, et))


def test_inverse_shapes():
    (out,) = infer_op("Inverse", ((-1, 4, 4), "f32"))
    assert out.data.get_shape() == (-1, 4, 4)


def test_grouped_matmul_rows_by_offsets():
    """Rows offsets[g-1]..offsets[g] times group g's (transposed) matrix; an empty group is skipped
    and rows past the last offset are zero; without offsets, one product per group."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((7, 3)).astype(np.float32), rng.standard_normal((4, 5, 3)).astype(np.float32)
    offsets = np.array([2, 2, 5, 6], np.int32)
    (out,) = infer_op("GroupedMatMul", a, b, offsets)
    expected = np.concatenate([a[:2] @ b[0].T, a[2:5] @ b[2].T, a[5:6] @ b[3].T, np.zeros((1, 5), np.float32)])
    np.testing.assert_allclose(out.data.get_value(), expected, rtol=1e-6)
    batched = rng.standard_normal((4, 2, 3)).astype(np.float32)
    (out,) = infer_op("GroupedMatMul", batched, b)
    np.testing.assert_allclose(out.data.get_value(), batched @ np.swapaxes(b, 1, 2), rtol=1e-6)


@pytest.mark.parametrize("a, b, offsets, expected", [
    ((-1, 3), (4, 5, 3), (4,), (-1, 5)),
    ((4, -1, 3), (4, 5, 3), None, (4, -1, 5)),
])
def test_grouped_matmul_shapes(a, b, offsets, expected):
    inputs = [(a, "f32"), (b, "f32")] + ([(offsets, "i64")] if offsets else [])
    (out,) = infer_op("GroupedMatMul", *inputs)
    assert out.data.get_shape() == expected


def test_grouped_matmul_rejects_a_2d_input_without_offsets():
    with pytest.raises(GraphError, match="GroupedMatMul"):
        infer_op("GroupedMatMul", ((6, 3), "f32"), ((4, 5, 3), "f32"))
