"""Builds examples/tiny_cnn.onnx: a small image classifier (Conv, Relu, MaxPool,
GlobalAveragePool, Reshape, MatMul, Add) with fixed random weights. Needs the onnx package.

    python examples/make_example.py
"""
import os

import numpy as np


def build(path: str) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)

    def init(name, shape, scale=0.1):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [init("conv1.w", (8, 3, 3, 3)), init("conv1.b", (8,)), init("conv2.w", (16, 8, 3, 3)),
             init("conv2.b", (16,)), init("fc.w", (16, 10)), init("fc.b", (10,)),
             numpy_helper.from_array(np.array([0, -1], np.int64), "flat_shape")]
    nodes = [
        helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "conv2.w", "conv2.b"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["gap"], name="gap"),
        helper.make_node("Reshape", ["gap", "flat_shape"], ["flat"], name="flatten"),
        helper.make_node("MatMul", ["flat", "fc.w"], ["mm"], name="fc"),
        helper.make_node("Add", ["mm", "fc.b"], ["logits"], name="fc_bias"),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="mo-example")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


if __name__ == "__main__":
    build(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_cnn.onnx"))
