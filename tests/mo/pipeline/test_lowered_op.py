"""LoweredOp: an op replaced by what its ``lower`` builds when partial inference reaches it."""
import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.graph import Graph
from mo.ops.lowered import LoweredOp
from mo.pipeline.infer import partial_infer
from mo.registry import Registry, builtin_classes


class DoubleIt(LoweredOp):
    """x * 2 in x's type: reads the inferred type of its input."""

    op = "test::DoubleIt"

    @classmethod
    def lower(cls, node, b):
        x = node.in_port(0).get_source()
        two = b.const(np.array(2, dtype=x.data.get_value().dtype if x.data.get_value() is not None else np.float32))
        return [b.Multiply(x, two)]


def test_lowered_during_inference_keeps_names_and_consumers():
    graph = Graph()
    graph.graph.update(registry=Registry(builtin_classes() + [DoubleIt]))
    b = OpBuilder(graph)
    x = b.Parameter(shape=(3,), element_type="f32", name="x")
    doubled = b.node("test::DoubleIt", x, name="double")
    doubled.out_port(0).add_tensor_names(["y"])
    relu = b.node("ReLU", doubled, name="relu")
    b.node("Result", relu, name="out")
    graph.to_data_form()
    partial_infer(graph)
    graph.lint()
    assert not graph.nodes_by_op("test::DoubleIt")
    (mul,) = graph.nodes_by_op("Multiply")
    assert mul.name == "double" and mul.out_port(0).get_tensor_names() == ["y"]
    assert relu.in_port(0).get_source() == mul.out_port(0)
    assert relu.out_port(0).data.get_shape() == (3,) and relu.out_port(0).data.get_dtype() == "f32"
