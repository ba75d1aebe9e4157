"""The translate step: framework ops become opset ops in one walk, with inputs inferred first."""
import numpy as np
import pytest

from mo.errors import ConversionError, GraphError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.graph import Graph
from mo.pipeline.context import ConversionContext
from mo.pipeline.extract import extract, is_framework_op
from mo.pipeline.translate import translate_graph
from mo.registry import Registry, builtin_classes


@translator("onnx", "test::DoubleIt")
def double_it(node, b):
    """x * 2 in x's element type: reads the inferred type of its input."""
    x = node.in_port(0).get_source()
    assert x.data.get_dtype() == "f32" and x.data.get_shape() == (3,)
    return [b.Multiply(x, np.array(2, np.float32))]


@translator("onnx", "test::Broken")
def broken(node, b):
    raise ValueError("no way")


@translator("onnx", "test::Refuses")
def refuses(node, b):
    raise ConversionError("this variant is not supported")


def _graph(op_type: str) -> tuple[Graph, object]:
    registry = Registry(builtin_classes() + [double_it, broken, refuses])
    graph = Graph(context=ConversionContext.default(registry=registry))
    b = OpBuilder(graph)
    x = b.Parameter(shape=(3,), element_type="f32", name="x")
    fw = graph.add_op({"name": "double", "fw_op": op_type, "domain": "test"})
    x.connect(fw.in_port(0))
    fw.out_port(0).add_tensor_names(["y"])
    relu = b.node("ReLU", fw, name="relu")
    b.node("Result", relu, name="out")
    extract(graph, "onnx")
    graph.to_data_form()
    return graph, relu


def test_translated_with_inferred_inputs_keeping_names_and_consumers():
    graph, relu = _graph("DoubleIt")
    (fw,) = [n for n in graph.op_nodes() if is_framework_op(n)]
    assert fw.op == "onnx:test::DoubleIt"
    translate_graph(graph)
    graph.lint()
    graph.lint_translated()
    (mul,) = graph.nodes_by_op("Multiply")
    assert mul.name == "double" and mul.out_port(0).get_tensor_names() == ["y"]
    assert relu.in_port(0).get_source() == mul.out_port(0)
    assert relu.out_port(0).data.get_shape() == (3,) and relu.out_port(0).data.get_dtype() == "f32"
    assert graph.context.translations == {"onnx:test::DoubleIt": [1, pytest.approx(graph.context.translations[
        "onnx:test::DoubleIt"][1])]}


def test_a_failing_translator_names_node_and_op():
    graph, _ = _graph("Broken")
    with pytest.raises(GraphError, match=r"Cannot translate node 'double' \(onnx test::Broken\) with inputs "
                                         r"\[\[3\]:f32\]: ValueError: no way"):
        translate_graph(graph)


def test_a_refusal_keeps_its_error_type_and_names_the_node():
    graph, _ = _graph("Refuses")
    with pytest.raises(ConversionError, match=r"Cannot translate node 'double' \(onnx test::Refuses\): "
                                              r"this variant is not supported"):
        translate_graph(graph)


def test_lint_translated_finds_framework_ops_left():
    graph, _ = _graph("DoubleIt")
    with pytest.raises(GraphError, match="left after translation"):
        graph.lint_translated()
