"""FloatRemainders, checked on constant inputs: the replacement
subgraph is inferred as it is built, so its folded value must equal the operator's meaning."""
import numpy as np

from extensions.middle.elementwise_edges import FloatRemainders
from mo.graph.builder import OpBuilder
from tests.utils.graphs import infer_op


def lowered(transform, op, *inputs, **attrs):
    """Value (and the graph's op types) after ``transform`` replaced ``op`` fed by ``inputs``."""
    (out, *_) = infer_op(op, *inputs, **attrs)
    graph = out.node.graph
    result = OpBuilder(graph).node("Result", out)
    transform().find_and_replace_pattern(graph)
    graph.lint()
    return result.in_port(0).data.get_value(), graph.op_types()


def test_float_remainders_with_infinities():
    x = np.array([-3, 3, -1, 1, np.inf, 5.5], np.float32)
    y = np.array([np.inf, np.inf, -np.inf, -np.inf, 2, -2], np.float32)
    value, ops = lowered(FloatRemainders, "FloorMod", x, y)
    np.testing.assert_array_equal(value, [np.inf, 3, -1, -np.inf, np.nan, -0.5])
    assert "FloorMod" not in ops
    value, _ = lowered(FloatRemainders, "Mod", x, y)
    np.testing.assert_array_equal(value, [-3, 3, -1, 1, np.nan, 1.5])
