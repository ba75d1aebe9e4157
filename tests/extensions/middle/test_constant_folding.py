"""ConstantFolding: folds computed values, keeps ShapeOf-derived ones unless --static_shape."""

import numpy as np

from extensions.middle.constant_folding import ConstantFolding
from tests.utils.graphs import new_graph


def _graph(static_shape):
    g, b = new_graph(data_form=True, static_shape=static_shape)
    x = b.node("Parameter", shape=(2, 3), element_type="f32", name="x")
    folded = b.node("Add", b.const(np.ones(3, np.float32)), b.const(np.ones(3, np.float32)), name="c")
    shape = b.node("ShapeOf", x, name="shape")
    target = b.node("Multiply", shape, b.const(np.array([1, 1], np.int64)), name="target")
    reshaped = b.node("Reshape", x, target, name="reshape")
    out = b.node("Add", reshaped, folded, name="out")
    b.node("Result", out, name="result")
    return g


def test_folds_values_but_keeps_shape_subgraph():
    g = _graph(static_shape=False)
    ConstantFolding().find_and_replace_pattern(g)
    g.lint()
    ops = sorted(n.op for n in g.op_nodes())
    assert "ShapeOf" in ops and "Multiply" in ops
    c = [n for n in g.op_nodes() if n.name == "c"][0]
    assert c.op == "Const" and np.array_equal(c.value, [2, 2, 2])


def test_static_shape_folds_shape_subgraph():
    g = _graph(static_shape=True)
    ConstantFolding().find_and_replace_pattern(g)
    g.lint()
    ops = {n.op for n in g.op_nodes()}
    assert "ShapeOf" not in ops and "Multiply" not in ops
    reshape = [n for n in g.op_nodes() if n.name == "reshape"][0]
    assert np.array_equal(reshape.in_value(1), [2, 3])
