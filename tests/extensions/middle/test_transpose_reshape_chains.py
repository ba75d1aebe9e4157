"""Consecutive Transposes/Reshapes merge; identity ones disappear; values stay the same."""
import numpy as np
import pytest

from extensions.middle.transpose_reshape_chains import MergeConsecutiveReshapes, MergeConsecutiveTransposes
from mo.emit.ir import emit_ir
from tests.utils.graphs import new_graph
from tests.utils.reference import assert_rewrite, assert_untouched
from tests.utils.runtime import run_ir

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _run(g, tmp_path):
    g.remove_dead_nodes(keep=[n.id for n in g.nodes_by_op("Parameter")])
    g.lint()
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    return run_ir(xml, [X])[0]


def test_transposes_merge_and_identity_disappears(tmp_path):
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=X.shape, element_type="f32", name="x")
    t = b.Transpose(b.Transpose(x, np.array([2, 0, 1])), np.array([1, 0, 2]))
    back = b.Transpose(b.Transpose(t, np.array([1, 0, 2])), np.array([1, 2, 0]))
    b.Result(b.Add(t, np.float32(1)), name="y")
    b.Result(back, name="z")
    MergeConsecutiveTransposes().find_and_replace_pattern(g)
    np.testing.assert_array_equal(_run(g, tmp_path), X.transpose(2, 0, 1).transpose(1, 0, 2) + 1)
    assert len(g.nodes_by_op("Transpose")) == 1


def test_reshapes_merge_and_noop_reshape_goes(tmp_path):
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=X.shape, element_type="f32", name="x")
    r = b.Reshape(b.Reshape(x, np.array([6, 4])), np.array([4, 6]))
    b.Result(b.Reshape(r, np.array([4, 6])), name="y")
    MergeConsecutiveReshapes().find_and_replace_pattern(g)
    np.testing.assert_array_equal(_run(g, tmp_path), X.reshape(4, 6))
    assert len(g.nodes_by_op("Reshape")) == 1


# ------------------------------------------------------------------ reference interpreter
def _x(b):
    return b.Parameter(shape=X.shape, element_type="f32", name="x")


@pytest.mark.parametrize("orders,expect", [
    (([2, 0, 1], [1, 0, 2]), ["Transpose"]),           # merged into one
    (([2, 0, 1], [1, 2, 0]), []),                      # inverse of each other
    (([0, 1, 2],), []),                                # identity
    (([1, 0, 2], [], [2, 1, 0]), ["Transpose"]),       # empty order: reversed dims; three merge
], ids=["merged", "cancelled", "identity", "default_order"])
def test_transposes_merge_with_the_same_values(orders, expect):
    def build(b):
        y = _x(b)
        for order in orders:
            y = b.Transpose(y, np.array(order, np.int64))
        return b.ReLU(y)
    assert_rewrite(build, MergeConsecutiveTransposes, expect_ops=expect + ["ReLU"])


def test_transpose_by_a_computed_order_stays():
    def build(b):
        x = _x(b)
        order = b.Gather(np.array([2, 1, 0], np.int64), b.Parameter(shape=(3,), element_type="i64", name="p"),
                         np.int64(0))
        return b.Transpose(b.Transpose(x, np.array([1, 0, 2], np.int64)), order)
    assert_untouched(build, MergeConsecutiveTransposes, [X, np.array([0, 1, 2])])


@pytest.mark.parametrize("targets,expect", [
    (([6, 4], [4, 6]), ["Reshape"]), (([24], [2, 3, 4]), []), (([2, 12], [-1, 3]), ["Reshape"]),
], ids=["merged", "back_to_input", "minus_one"])
def test_reshapes_merge_with_the_same_values(targets, expect):
    def build(b):
        y = _x(b)
        for target in targets:
            y = b.Reshape(y, np.array(target, np.int64), special_zero=True)
        return b.Exp(y)
    assert_rewrite(build, MergeConsecutiveReshapes, expect_ops=expect + ["Exp"])


def test_reshape_copying_dims_of_the_intermediate_stays():
    """[2, 3, 4] -> [6, 4] -> [0, 2, 2]: the 0 copies the 6 of the intermediate tensor."""
    def build(b):
        y = b.Reshape(_x(b), np.array([6, 4], np.int64))
        return b.Reshape(y, np.array([0, 2, 2], np.int64), special_zero=True)
    assert_untouched(build, MergeConsecutiveReshapes)
