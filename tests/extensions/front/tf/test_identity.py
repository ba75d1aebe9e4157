"""RemoveTfIdentity: consumers of a pass-through op read its input, and its tensor names move there."""
import numpy as np
import pytest

from extensions.front.tf.identity import PASS_THROUGH, RemoveTfIdentity
from mo.pipeline.extract import mark_framework_op
from tests.utils.graphs import new_graph
from tests.utils.reference import run_reference


@pytest.mark.parametrize("op_type", ["Identity", "IdentityN", "StopGradient"])
def test_pass_through_ops_are_removed(op_type):
    graph, b = new_graph(framework="tf")
    x = b.Parameter(shape=(2, 3), element_type="f32", name="x")
    y = b.Parameter(shape=(3,), element_type="f32", name="y")
    node = graph.add_op({"name": "pass", "fw_op": op_type})
    mark_framework_op(node, "tf", op_type)
    x.connect(node.in_port(0))
    y.connect(node.in_port(1))
    node.out_port(0).add_tensor_names(["pass:0"])
    b.Result(b.Add(node.out_port(0), node.out_port(1)), name="out")
    RemoveTfIdentity().find_and_replace_pattern(graph)
    graph.lint()
    assert not any(t.startswith("tf:") for t in graph.op_types())
    assert x.get_tensor_names() == ["pass:0"]
    graph.to_data_form()
    from mo.pipeline.translate import translate_graph
    translate_graph(graph)
    xs, ys = np.ones((2, 3), np.float32), np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(run_reference(graph, [xs, ys])[0], xs + ys)


def test_assert_is_removed():
    """An Assert reached through its inputs goes, and what it checked stays."""
    graph, b = new_graph(framework="tf")
    x = b.Parameter(shape=(2,), element_type="f32", name="x")
    node = graph.add_op({"name": "check", "fw_op": "Assert"})
    mark_framework_op(node, "tf", "Assert")
    b.Less(x, np.float32(5)).connect(node.in_port(0))
    x.connect(node.in_port(1))
    b.Result(b.Negative(x), name="out")
    RemoveTfIdentity().find_and_replace_pattern(graph)
    graph.lint()
    assert "tf:Assert" not in graph.op_types()


def test_every_pass_through_op_is_listed_for_explain():
    assert set(RemoveTfIdentity.ops) == {f"tf:{t}" for t in PASS_THROUGH}
