"""MergeDuplicateConstants: identical constants become one layer; different ones stay."""
import numpy as np
import pytest

from extensions.back.merge_constants import MergeDuplicateConstants
from tests.utils.graphs import new_graph
from tests.utils.reference import assert_rewrite, assert_untouched


def test_identical_constants_are_merged_and_names_kept():
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=(3,), element_type="f32", name="x")
    c1 = b.const(np.arange(3, dtype=np.float32), name="c1")
    c2 = b.const(np.arange(3, dtype=np.float32), name="c2")
    c3 = b.const(np.arange(3, dtype=np.int64), name="c3")
    c4 = b.const(np.ones(3, dtype=np.float32), name="c4")
    c2.add_tensor_names(["second"])
    b.Result(b.Add(b.Add(b.Multiply(x, c1), c2), c4), name="y")
    b.Result(c3, name="z")
    MergeDuplicateConstants().find_and_replace_pattern(g)
    g.lint()
    consts = sorted(n.name for n in g.nodes_by_op("Const"))
    assert consts == ["c1", "c3", "c4"]
    keeper = [n for n in g.nodes_by_op("Const") if n.name == "c1"][0]
    assert len(keeper.out_port(0).get_destinations()) == 2
    assert "second" in keeper.out_port(0).get_tensor_names()


# ------------------------------------------------------------------ reference interpreter
def _consts(graph):
    return len(graph.nodes_by_op("Const"))


def test_equal_constants_become_one_with_the_same_values():
    weights = np.random.default_rng(2).standard_normal((3, 3)).astype(np.float32)

    def build(b):
        x = b.Parameter(shape=(2, 3), element_type="f32", name="x")
        return b.MatMul(b.MatMul(x, weights.copy()), weights.copy()), b.Add(x, np.ones(3, np.float32))
    g = assert_rewrite(build, MergeDuplicateConstants, expect_ops=["MatMul", "MatMul", "Add"])
    assert _consts(g) == 2


@pytest.mark.parametrize("second", [
    np.arange(3, dtype=np.int32), np.arange(3, dtype=np.float32).reshape(1, 3), np.arange(1, 4, dtype=np.float32)],
    ids=["other_type", "other_shape", "other_values"])
def test_different_constants_stay(second):
    def build(b):
        x = b.Parameter(shape=(2, 3), element_type="f32", name="x")
        other = b.Convert(x, destination_type="i32") if second.dtype == np.int32 else x
        return b.Add(x, np.arange(3, dtype=np.float32)), b.Multiply(other, second)
    g = assert_untouched(build, MergeDuplicateConstants)
    assert _consts(g) == 2
