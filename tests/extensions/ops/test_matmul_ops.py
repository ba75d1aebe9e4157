"""infer of MatMul and Einsum."""
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
def test_inverse_folds_to_the_inverse(adjoint):
    a = np.array([[[4, 1, 0], [2, 5, 1], [0, 1, 3]], [[2, 0, 1], [1, 3, 0], [0, 1, 2]]], np.float32)
    (out,) = infer_op("Inverse", a, adjoint=adjoint)
    product = out.data.get_value() @ (np.swapaxes(a, -1, -2) if adjoint else a)
    np.testing.assert_allclose(product, np.broadcast_to(np.eye(3), a.shape), atol=1e-5)


def test_inverse_rejects_non_square_matrices():
    with pytest.raises(GraphError, match="square"):
        infer_op("Inverse", ((2, 3, 4), "f32"))
