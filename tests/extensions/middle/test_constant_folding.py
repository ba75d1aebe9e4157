"""ConstantFolding: folds computed values, keeps ShapeOf-derived ones unless --static_shape."""

import numpy as np
import pytest

from extensions.middle.constant_folding import ConstantFolding
from tests.utils.reference import assert_rewrite, assert_untouched


def _build(b):
    x = b.node("Parameter", shape=(2, 3), element_type="f32", name="x")
    folded = b.node("Add", b.const(np.ones(3, np.float32)), b.const(np.ones(3, np.float32)), name="c")
    shape = b.node("ShapeOf", x, name="shape")
    target = b.node("Multiply", shape, b.const(np.array([1, 1], np.int64)), name="target")
    reshaped = b.node("Reshape", x, target, name="reshape")
    out = b.node("Add", reshaped, folded, name="out")
    b.node("Result", out, name="result")


def test_folds_values_but_keeps_shape_subgraph():
    g = assert_rewrite(_build, ConstantFolding, expect_ops=["ShapeOf", "Multiply", "Reshape", "Add"])
    c = [n for n in g.op_nodes() if n.name == "c"][0]
    assert c.op == "Const" and np.array_equal(c.value, [2, 2, 2])


def test_static_shape_folds_shape_subgraph():
    g = assert_rewrite(_build, ConstantFolding, expect_ops=["Reshape", "Add"], static_shape=True)
    reshape = [n for n in g.op_nodes() if n.name == "reshape"][0]
    assert np.array_equal(reshape.in_value(1), [2, 3])


@pytest.mark.parametrize("foldable", [False, True])
def test_unfoldable_nodes_and_computed_values_stay(foldable):
    """A Convert marked not foldable (weight decompression) stays; an op of a Parameter has no
    value to fold."""
    def build(b):
        x = b.Parameter(shape=(4,), element_type="f32", name="x")
        w = b.node("Convert", np.arange(4, dtype=np.float16), destination_type="f32", foldable=foldable)
        return b.Multiply(x, w)
    if foldable:
        assert_rewrite(build, ConstantFolding, expect_ops=["Multiply"])
    else:
        assert_untouched(build, ConstantFolding)
