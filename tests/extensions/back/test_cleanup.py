"""RemoveDeadNodes: ops whose values reach no output go, model inputs stay."""
import numpy as np

from extensions.back.cleanup import RemoveDeadNodes
from tests.utils.reference import assert_rewrite, assert_untouched


def test_dead_branches_go_and_unused_inputs_stay():
    def build(b):
        x = b.Parameter(shape=(2, 3), element_type="f32", name="x")
        b.Parameter(shape=(4,), element_type="f32", name="unused")
        b.Exp(b.Multiply(x, np.float32(3)))            # read by nothing
        return b.ReLU(x)
    g = assert_rewrite(build, RemoveDeadNodes, [np.ones((2, 3)), np.ones(4)], expect_ops=["ReLU"])
    assert sorted(n.op for n in g.op_nodes()) == ["Parameter", "Parameter", "ReLU", "Result"]
    assert all(g.in_degree(n) for n, d in g.nodes(data=True) if d.get("kind") == "data")


def test_graph_without_dead_nodes_is_left_alone():
    def build(b):
        x = b.Parameter(shape=(2, 3), element_type="f32", name="x")
        return b.Add(x, np.float32(1)), b.ShapeOf(x)
    g = assert_untouched(build, RemoveDeadNodes)
    assert len(g.op_nodes()) == 6      # Parameter, Const, Add, ShapeOf and two Results
