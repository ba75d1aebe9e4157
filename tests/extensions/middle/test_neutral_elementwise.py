"""RemoveNeutralElementwise: x + 0 and x * 1 disappear unless the constant broadcasts x."""
import numpy as np

from extensions.middle.neutral_elementwise import RemoveNeutralElementwise
from tests.utils.graphs import new_graph


def test_neutral_constants_are_removed_but_broadcasting_ones_stay():
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=(2, 3), element_type="f32", name="x")
    y = b.Multiply(b.Add(x, np.zeros(3, np.float32)), np.float32(1.0))
    widened = b.Add(y, np.zeros((4, 2, 3), np.float32))      # broadcasts to a new shape: kept
    b.Result(b.Subtract(widened, np.float32(0.5)), name="out")
    RemoveNeutralElementwise().find_and_replace_pattern(g)
    g.lint()
    ops = sorted(n.op for n in g.op_nodes() if n.op not in ("Const",))
    assert ops == ["Add", "Parameter", "Result", "Subtract"]
    add = g.nodes_by_op("Add")[0]
    assert add.in_port(0).get_source().node.op == "Parameter"
