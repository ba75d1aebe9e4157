"""Small ONNX models for tests, made with the onnx helper API, and ONNX Runtime as reference."""
from __future__ import annotations

import numpy as np


def make_model(nodes, inputs, outputs, initializers=(), opset: int = 17, ir_version: int = 8):
    """ModelProto from node protos, (name, elem_type, shape) inputs/outputs and numpy initializers
    given as {name: array}."""
    from onnx import helper, numpy_helper
    inits = [numpy_helper.from_array(v, k) for k, v in dict(initializers).items()]
    graph = helper.make_graph(
        nodes, "test",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir_version
    return model


def conv_relu_model(batch="N"):
    """x[N,3,8,8] -> Conv(4 filters, 3x3, pad 1) + bias -> Relu -> y; plus a Sigmoid branch z."""
    from onnx import TensorProto, helper
    rng = np.random.default_rng(1)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"], name="relu"),
             helper.make_node("Sigmoid", ["c"], ["z"], name="sig")]
    return make_model(nodes, [("x", TensorProto.FLOAT, [batch, 3, 8, 8])],
                      [("y", TensorProto.FLOAT, None), ("z", TensorProto.FLOAT, None)],
                      {"w": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
                       "b": rng.standard_normal(4).astype(np.float32)})


def run_onnxruntime(model_or_path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    import onnxruntime as ort
    data = model_or_path if isinstance(model_or_path, str) else model_or_path.SerializeToString()
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, inputs)))
