"""BatchNorm and scale-shift folding into Convolution/MatMul weights: structure and numerics."""
import numpy as np
from onnx import TensorProto, helper

from mo import convert_model
from tests.utils.onnx_models import make_model, run_onnxruntime
from tests.utils.runtime import assert_close, core, run_ir

RNG = np.random.default_rng(5)


def _ops(xml):
    return [op.get_type_name() for op in core().read_model(xml).get_ordered_ops()]


def _conv_bn_model():
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "g", "beta", "m", "v"], ["bn"], epsilon=1e-3),
             helper.make_node("Mul", ["bn", "s"], ["y"])]
    inits = {"w": RNG.standard_normal((4, 3, 3, 3)).astype(np.float32), "b": RNG.standard_normal(4).astype(np.float32),
             "g": RNG.uniform(0.5, 2, 4).astype(np.float32), "beta": RNG.standard_normal(4).astype(np.float32),
             "m": RNG.standard_normal(4).astype(np.float32), "v": RNG.uniform(0.5, 2, 4).astype(np.float32),
             "s": RNG.uniform(0.5, 2, (1, 4, 1, 1)).astype(np.float32)}
    return make_model(nodes, [("x", TensorProto.FLOAT, ["N", 3, 8, 8])], [("y", TensorProto.FLOAT, None)], inits)


def test_conv_bias_bn_and_scale_fold_into_weights(tmp_path):
    model = _conv_bn_model()
    paths = convert_model(input_model=model, output_dir=str(tmp_path), compress_to_fp16=False)
    ops = _ops(paths.xml)
    assert ops.count("Convolution") == 1 and "BatchNormInference" not in ops and "Multiply" not in ops
    assert ops.count("Add") == 1
    x = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    assert_close(run_ir(paths.xml, [x]), run_onnxruntime(model, [x]), rtol=1e-4, atol=1e-4)


def test_matmul_scale_folds_and_shared_input_does_not(tmp_path):
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"]), helper.make_node("Mul", ["mm", "s"], ["y"]),
             helper.make_node("Relu", ["mm"], ["z"])]
    inits = {"w": RNG.standard_normal((5, 6)).astype(np.float32), "s": RNG.standard_normal(6).astype(np.float32)}
    model = make_model(nodes, [("x", TensorProto.FLOAT, [2, 5])],
                       [("y", TensorProto.FLOAT, None), ("z", TensorProto.FLOAT, None)], inits)
    paths = convert_model(input_model=model, output_dir=str(tmp_path), compress_to_fp16=False)
    assert "Multiply" in _ops(paths.xml)   # mm has two consumers: the scale must stay
    x = RNG.standard_normal((2, 5)).astype(np.float32)
    assert_close(run_ir(paths.xml, [x]), run_onnxruntime(model, [x]))
    single = make_model(nodes[:2], [("x", TensorProto.FLOAT, [2, 5])], [("y", TensorProto.FLOAT, None)], inits)
    paths = convert_model(input_model=single, output_dir=str(tmp_path / "s"), compress_to_fp16=False)
    assert "Multiply" not in _ops(paths.xml)
    assert_close(run_ir(paths.xml, [x]), run_onnxruntime(single, [x]))
