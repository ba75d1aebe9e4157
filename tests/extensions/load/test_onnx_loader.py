"""ONNX loading details: initializers as inputs, symbolic dims, local functions, function
expansion of ops without an extractor."""
import numpy as np
import onnx
from onnx import TensorProto, helper

from extensions.load.onnx.functions import FunctionExpander
from mo import convert_model
from tests.utils.graphs import registry
from tests.utils.onnx_models import make_model, run_onnxruntime
from tests.utils.runtime import assert_close, core, run_ir


def test_initializer_listed_as_input_is_constant(tmp_path):
    model = make_model([helper.make_node("Add", ["x", "w"], ["y"])],
                       [("x", TensorProto.FLOAT, [2]), ("w", TensorProto.FLOAT, [2])],
                       [("y", TensorProto.FLOAT, [2])], {"w": np.array([1, 2], np.float32)})
    paths = convert_model(input_model=model, output_dir=str(tmp_path))
    ov_model = core().read_model(paths.xml)
    assert len(ov_model.inputs) == 1
    (y,) = run_ir(paths.xml, [np.array([1, 1], np.float32)])
    np.testing.assert_array_equal(y, [2, 3])


def test_symbolic_dims_stay_dynamic(tmp_path):
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [("x", TensorProto.FLOAT, ["b", 4, "t"])],
                       [("y", TensorProto.FLOAT, None)])
    paths = convert_model(input_model=model, output_dir=str(tmp_path))
    shape = core().read_model(paths.xml).input(0).get_partial_shape()
    assert str(shape) == "[?,4,?]"


def test_model_local_function_is_inlined(tmp_path):
    fn = helper.make_function("custom", "AddRelu", ["a", "b"], ["c"],
                              [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Relu", ["s"], ["c"])],
                              [helper.make_opsetid("", 17)])
    graph = helper.make_graph([helper.make_node("AddRelu", ["x", "y"], ["z"], domain="custom")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
                               helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [3])])
    model = helper.make_model(graph, functions=[fn],
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("custom", 1)])
    model.ir_version = 8
    x = np.array([-1, 0, 1], np.float32)
    y = np.array([-1, 2, 3], np.float32)
    paths = convert_model(input_model=model, output_dir=str(tmp_path))
    assert_close(run_ir(paths.xml, [x, y]), run_onnxruntime(model, [x, y]))


class _RegistryWithout:
    """The built-in registry minus the extractor and translator of one op type."""

    def __init__(self, missing):
        self.missing = missing

    def handles(self, framework, op_type, domain=""):
        return op_type != self.missing and registry().handles(framework, op_type, domain)


def test_schema_function_expansion_produces_body_nodes():
    node = helper.make_node("Celu", ["x"], ["y"], alpha=2.0)
    model = make_model([node], [("x", TensorProto.FLOAT, [3])], [("y", TensorProto.FLOAT, [3])], opset=13)
    expander = FunctionExpander(_RegistryWithout("Celu"), {"": 13}, model)
    assert expander.should_expand(node, "")
    body = expander.expand(node, "")
    assert body and all(isinstance(opset, int) for _, opset in body)
    assert body[-1][0].output[0] == "y"
    assert {n.op_type for n, _ in body} <= {"Constant", "Div", "Elu", "Mul", "CastLike"}
    onnx.checker.check_node(body[-1][0])
