"""ConvToOpset: ONNX Conv lowering in the op graph (front phase)."""
import numpy as np

from extensions.front.onnx.conv_to_opset import ConvToOpset
from tests.utils.graphs import new_graph


def _conv_graph(group, bias):
    g, b = new_graph()
    x = b.node("Parameter", shape=(1, 4, 5, 5), element_type="f32", name="x")
    w = b.const(np.ones((6, 4 // group, 3, 3), np.float32), name="w")
    inputs = [x, w] + ([b.const(np.arange(6, dtype=np.float32), name="b")] if bias else [])
    conv = b.node("onnx::Conv", *inputs, name="conv", group=group, strides=[1, 1], dilations=None,
                  pads_begin=[1, 1], pads_end=[1, 1], auto_pad="explicit", kernel=[3, 3])
    conv.out_port(0).add_tensor_names(["y"])
    b.node("Result", conv, name="out")
    return g


def _ops(g):
    return sorted(n.op for n in g.op_nodes())


def test_plain_conv_becomes_convolution_and_keeps_names():
    g = _conv_graph(group=1, bias=False)
    ConvToOpset().find_and_replace_pattern(g)
    g.lint()
    assert _ops(g) == ["Const", "Convolution", "Parameter", "Result"]
    conv = g.nodes_by_op("Convolution")[0]
    assert conv.name == "conv" and conv.out_port(0).get_tensor_names() == ["y"]
    assert conv.pads_begin == [1, 1]


def test_grouped_conv_with_bias():
    g = _conv_graph(group=2, bias=True)
    ConvToOpset().find_and_replace_pattern(g)
    g.lint()
    assert _ops(g) == ["Add", "Const", "Const", "Const", "Const", "GroupConvolution", "Parameter", "Reshape",
                       "Result", "Unsqueeze"]
    reshape = g.nodes_by_op("Reshape")[0]
    np.testing.assert_array_equal(reshape.in_port(1).data.get_value(), [2, -1, 2, 3, 3])
    add = g.nodes_by_op("Add")[0]
    assert add.out_port(0).get_tensor_names() == ["y"]
    g.to_data_form()
    from mo.pipeline.translate import translate_graph
    translate_graph(g)
    assert add.out_port(0).data.get_shape() == (1, 6, 5, 5)
