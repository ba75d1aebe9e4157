"""EliminateCommonSubexpressions: repeated computations on the same tensors become one."""
import numpy as np
import pytest

from extensions.back.common_subexpressions import EliminateCommonSubexpressions
from tests.utils.graphs import new_graph
from tests.utils.reference import assert_rewrite, assert_untouched


def test_repeated_shape_computations_are_merged():
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=(-1, 4), element_type="f32", name="x")
    idx = b.const(np.array([0], np.int64), name="idx")
    axis = b.const(np.array(0, np.int64), name="axis")
    first = b.Gather(b.ShapeOf(x), idx, axis, batch_dims=0)
    second = b.Gather(b.ShapeOf(x), idx, axis, batch_dims=0)
    other = b.Convert(b.Gather(b.ShapeOf(x, output_type="i32"), idx, axis, batch_dims=0),
                      destination_type="i64")   # a ShapeOf with another attribute: kept
    b.Result(b.Concat(first, second, other, axis=0), name="y")
    EliminateCommonSubexpressions().find_and_replace_pattern(g)
    g.remove_dead_nodes(keep=[n.id for n in g.nodes_by_op("Parameter")])
    g.lint()
    assert len(g.nodes_by_op("ShapeOf")) == 2 and len(g.nodes_by_op("Gather")) == 2
    concat = g.nodes_by_op("Concat")[0]
    assert concat.in_port(0).get_source() == concat.in_port(1).get_source()


def _first_dim(b, x):
    """Gathers of the first dim of x, all of one graph reading the same index and axis Consts."""
    def gather(output_type="i64"):
        return b.Gather(b.ShapeOf(x, output_type=output_type), index, axis, batch_dims=0)
    index, axis = b.const(np.array([0], np.int64)), b.const(np.array(0, np.int64))
    return gather


def test_repeated_computations_become_one_with_the_same_values():
    def build(b):
        x = b.Parameter(shape=(2, 4), element_type="f32", name="x")
        dim = _first_dim(b, x)
        first, second = dim(), dim()
        two = b.const(np.float32(2))
        scaled = b.Add(b.Exp(b.Multiply(x, two)), b.Exp(b.Multiply(x, two)))
        other = b.Multiply(x, np.float32(2))       # another Const (MergeDuplicateConstants' business)
        return b.Concat(first, second, axis=0), scaled, other
    g = assert_rewrite(build, EliminateCommonSubexpressions,
                       expect_ops=["ShapeOf", "Gather", "Multiply", "Exp", "Add", "Multiply", "Concat"])
    assert len(g.nodes_by_op("ShapeOf")) == 1


@pytest.mark.parametrize("build", [
    lambda b, x: (lambda dim: b.Add(b.Convert(dim("i32"), destination_type="i64"), dim()))(_first_dim(b, x)),
    lambda b, x: b.Add(b.Softmax(x, axis=0), b.Softmax(x, axis=1)),                          # other attribute
    lambda b, x: b.Add(b.ReLU(x), b.ReLU(b.Negative(x))),                                    # other input
], ids=["shape_of_type", "softmax_axis", "other_input"])
def test_different_computations_stay(build):
    assert_untouched(lambda b: build(b, b.Parameter(shape=(2, 4), element_type="f32", name="x")),
                     EliminateCommonSubexpressions)
