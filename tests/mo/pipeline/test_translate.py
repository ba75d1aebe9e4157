"""The translate step: framework ops become opset ops in one walk, with inputs inferred first."""
import numpy as np
import pytest

from mo.errors import ConversionError, GraphError
from mo.front.translator import complex_translator, translator
from mo.graph.builder import OpBuilder
from mo.graph.building import is_complex, mark_complex
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


# ---------------------------------------------------------------------------- complex inputs


@complex_translator("onnx", "test::DoubleIt")
def double_complex(node, b):
    """Marks its output complex, as a complex translator does."""
    return [mark_complex(b.Multiply(node.in_port(0).get_source(), np.array(2, np.float32)))]


def _complex_graph(op_type: str, opset_op: str | None = None):
    """Parameter [3, 2] marked complex -> a framework op (or the opset op an extractor set) ->
    ReLU -> Result."""
    registry = Registry(builtin_classes() + [double_it, double_complex])
    graph = Graph(context=ConversionContext.default(registry=registry))
    b = OpBuilder(graph)
    x = b.Parameter(shape=(3, 2), element_type="f32", name="x")
    mark_complex(x)
    attrs = {"name": "op", "fw_op": op_type, "domain": "test"}
    fw = graph.add_op(attrs) if opset_op is None else b.node(opset_op, x, name="op")
    if opset_op is None:
        x.connect(fw.in_port(0))
    else:
        fw["fw_op"] = op_type
    b.node("Result", fw, name="out")
    if opset_op is None:
        extract(graph, "onnx")
    graph.to_data_form()
    return graph


def test_a_complex_input_goes_to_the_complex_translator():
    graph = _complex_graph("DoubleIt")
    translate_graph(graph)
    (mul,) = graph.nodes_by_op("Multiply")
    assert is_complex(mul.out_port(0)) and mul.out_port(0).data.get_shape() == (3, 2)


def test_an_op_without_a_complex_translator_is_refused_naming_the_input():
    graph = _complex_graph("test::Sin", opset_op="Sin")
    with pytest.raises(ConversionError, match=r"Cannot translate node 'op' \(test::Sin\): its input 0 is a complex "
                                              r"tensor, and test::Sin is converted only for real inputs"):
        translate_graph(graph)
