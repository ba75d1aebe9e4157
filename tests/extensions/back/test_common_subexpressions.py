"""EliminateCommonSubexpressions: repeated computations on the same tensors become one."""
import numpy as np

from extensions.back.common_subexpressions import EliminateCommonSubexpressions
from tests.utils.graphs import new_graph


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
