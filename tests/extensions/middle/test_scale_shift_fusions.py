"""BatchNorm and scale-shift folding into Convolution/MatMul weights: structure and numerics,
through whole conversions in the runtime and rewrite by rewrite with the reference interpreter."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from extensions.middle.scale_shift_fusions import BatchNormToScaleShift, FuseMultiplyIntoWeights, MergeConstantAdds
from mo import convert_model
from tests.utils.onnx_models import make_model, run_onnxruntime
from tests.utils.reference import assert_rewrite, assert_untouched
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


# ------------------------------------------------------------------ reference interpreter
W = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
PER_CHANNEL = RNG.uniform(0.5, 2, (1, 4, 1, 1)).astype(np.float32)
BIAS = RNG.standard_normal((1, 4, 1, 1)).astype(np.float32)


def _image(b):
    return b.Parameter(shape=(2, 3, 6, 6), element_type="f32", name="x")


def _batch_norm(b, x, gamma=None):
    stats = [gamma if gamma is not None else RNG.uniform(0.5, 2, 3).astype(np.float32),
             RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32),
             RNG.uniform(0.5, 2, 3).astype(np.float32)]
    return b.BatchNormInference(x, *stats, epsilon=1e-3)


def test_batch_norm_becomes_multiply_and_add():
    assert_rewrite(lambda b: _batch_norm(b, _image(b)), BatchNormToScaleShift, expect_ops=["Multiply", "Add"],
                   rtol=1e-5, atol=1e-5)


def test_batch_norm_of_computed_statistics_stays():
    assert_untouched(lambda b: _batch_norm(b, _image(b), gamma=b.Abs(b.Parameter(shape=(3,), element_type="f32"))),
                     BatchNormToScaleShift)


@pytest.mark.parametrize("factor", [PER_CHANNEL, np.float32(0.5), PER_CHANNEL.reshape(4, 1, 1)],
                         ids=["per_channel", "scalar", "rank3"])
@pytest.mark.parametrize("bias", [False, True])
def test_multiply_goes_into_convolution_weights_and_bias(factor, bias):
    def build(b):
        y = b.Convolution(_image(b), W, strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1])
        return b.Multiply(b.Add(y, BIAS) if bias else y, factor)
    expect = ["Convolution", "Add"] if bias else ["Convolution"]
    assert_rewrite(build, FuseMultiplyIntoWeights, expect_ops=expect, rtol=1e-4, atol=1e-5)


def test_tensors_scaled_in_place_lose_their_names():
    """Conv -> Add(bias) -> Multiply: the convolution and the Add now compute the scaled tensors,
    so their names go and the Multiply's move to the Add."""
    def build(b):
        conv = b.Convolution(_image(b), W, strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1])
        conv.add_tensor_names(["conv"])
        biased = b.Add(conv, BIAS)
        biased.add_tensor_names(["biased"])
        scaled = b.Multiply(biased, PER_CHANNEL)
        scaled.add_tensor_names(["scaled"])
        return scaled
    g = assert_rewrite(build, FuseMultiplyIntoWeights, expect_ops=["Convolution", "Add"], rtol=1e-4, atol=1e-5)
    assert g.nodes_by_op("Convolution")[0].out_port(0).get_tensor_names() == []
    assert g.nodes_by_op("Add")[0].out_port(0).get_tensor_names() == ["scaled"]


def test_multiply_goes_into_group_convolution_and_matmul_weights():
    def grouped(b):
        w = RNG.standard_normal((3, 2, 1, 3, 3)).astype(np.float32)
        return b.Multiply(b.GroupConvolution(_image(b), w, strides=[1, 1]), RNG.uniform(1, 2, (1, 6, 1, 1)).astype(
            np.float32))
    assert_rewrite(grouped, FuseMultiplyIntoWeights, expect_ops=["GroupConvolution"], rtol=1e-4, atol=1e-5)
    for transpose_b in (False, True):
        w = RNG.standard_normal((6, 5) if transpose_b else (5, 6)).astype(np.float32)

        def matmul(b, w=w, transpose_b=transpose_b):
            x = b.Parameter(shape=(2, 5), element_type="f32", name="x")
            return b.Multiply(RNG.standard_normal(6).astype(np.float32), b.MatMul(x, w, transpose_b=transpose_b))
        assert_rewrite(matmul, FuseMultiplyIntoWeights, expect_ops=["MatMul"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("build", [
    lambda b: b.Multiply(b.Convolution(_image(b), W, strides=[1, 1]),
                         RNG.standard_normal((1, 4, 4, 4)).astype(np.float32)),              # per pixel
    lambda b: b.Multiply(b.Convolution(_image(b), b.Abs(W), strides=[1, 1]), PER_CHANNEL),  # computed weights
    lambda b: b.Multiply(b.Add(b.Convolution(_image(b), W, strides=[1, 1]),
                               RNG.standard_normal((1, 4, 4, 4)).astype(np.float32)), PER_CHANNEL),   # bias per pixel
    lambda b: (lambda y: (b.Multiply(y, PER_CHANNEL), b.ReLU(y)))(b.Convolution(_image(b), W, strides=[1, 1])),
], ids=["per_pixel", "computed_weights", "bias_per_pixel", "shared_output"])
def test_multiplies_that_cannot_move_stay(build):
    assert_untouched(build, FuseMultiplyIntoWeights)


def test_constant_adds_merge():
    def build(b):
        x = _image(b)
        return b.Add(np.float32(2), b.Add(x, RNG.standard_normal((1, 3, 1, 1)).astype(np.float32)))
    g = assert_rewrite(build, MergeConstantAdds, expect_ops=["Add"])
    assert g.nodes_by_op("Add")[0].in_value(1).shape == (1, 3, 1, 1)


@pytest.mark.parametrize("build", [
    lambda b: b.Add(b.Add(_image(b), np.float32(1)), b.Parameter(shape=(1,), element_type="f32")),   # not constant
    lambda b: (lambda x: b.Add(b.Add(x, b.ReLU(x)), np.float32(1)))(_image(b)),                     # inner computed
    lambda b: (lambda inner: (b.Add(inner, np.float32(1)), inner))(b.Add(_image(b), np.float32(1))),  # shared
], ids=["computed", "inner_computed", "shared"])
def test_adds_that_cannot_merge_stay(build):
    assert_untouched(build, MergeConstantAdds)


def test_factors_after_integer_weights_go_into_their_step():
    """Conv(x, i8 weights * step) -> Divide(c1) -> Add(bias) -> Multiply(c2): the integers stay, the
    step takes both factors (the fused convolution + BatchNorm of a quantization-aware model)."""
    rng = np.random.default_rng(2)
    q = rng.integers(-127, 127, (4, 3, 3, 3)).astype(np.int8)
    step = (rng.random((4, 1, 1, 1)) * 0.01 + 0.01).astype(np.float32)

    def build(b):
        x = b.Parameter(shape=(1, 3, 6, 6), element_type="f32")
        w = b.Multiply(b.Convert(b.const(q), destination_type="f32", foldable=False), b.const(step))
        y = b.Convolution(x, w, strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1])
        y = b.Divide(y, b.const((rng.random((1, 4, 1, 1)) + 0.5).astype(np.float32)))
        y = b.Add(y, b.const(rng.standard_normal((1, 4, 1, 1)).astype(np.float32)))
        return b.Multiply(y, b.const((rng.random((1, 4, 1, 1)) + 0.5).astype(np.float32)))

    graph = assert_rewrite(build, FuseMultiplyIntoWeights, expect_ops=["Convert", "Multiply", "Convolution", "Add"])
    assert [n.value.dtype for n in graph.nodes_by_op("Const") if n.value.shape == q.shape] == [np.int8]
