"""Layer tests of the ONNX math operators in forms the backend node cases do not cover: a one-node
ONNX model run by onnxruntime, converted with mo, run by the OpenVINO runtime, outputs compared."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import openvino  # noqa: F401  (needed by these tests)
import pytest
from onnx import TensorProto, helper  # noqa: E402

from mo import convert_model  # noqa: E402
from tests.utils.runtime import assert_close, run_ir  # noqa: E402

_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16,
          np.dtype(np.int32): TensorProto.INT32, np.dtype(np.int64): TensorProto.INT64,
          np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8}


def build(op_type, inputs, opset=21, dynamic=False, outputs=1, initializers=(), out_dtype=None, **attrs):
    """A model of one ``op_type`` node over ``inputs`` (name -> array) and initializers (name,
    array; None for an empty optional input), and onnxruntime's outputs on it. ``dynamic`` declares
    every input dim as symbolic; outputs have the type of the first input unless ``out_dtype``."""
    names = list(inputs)
    graph_inputs = [helper.make_tensor_value_info(
        n, _TYPES[v.dtype], [f"d{n}{i}" for i in range(v.ndim)] if dynamic else list(v.shape))
        for n, v in inputs.items()]
    inits = [onnx.numpy_helper.from_array(v, n) for n, v in initializers if v is not None]
    out_names = [f"y{i}" for i in range(outputs)]
    node = helper.make_node(op_type, names + [n for n, _ in initializers], out_names, **attrs)
    out_type = _TYPES[np.dtype(out_dtype) if out_dtype else next(iter(inputs.values())).dtype]
    graph = helper.make_graph([node], "g", graph_inputs, [helper.make_tensor_value_info(o, out_type, None)
                                                         for o in out_names], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    expected = ort.InferenceSession(model.SerializeToString()).run(None, inputs)
    return model, expected


@pytest.fixture
def compare(tmp_path):
    def run(op_type, inputs, rtol=1e-4, **kwargs):
        model, expected = build(op_type, inputs, **kwargs)
        path = tmp_path / "m.onnx"
        onnx.save(model, path)
        ir = convert_model(input_model=str(path), output_dir=str(tmp_path / "ir"), model_name="m",
                           compress_to_fp16=False)
        assert_close(run_ir(ir.xml, list(inputs.values())), expected, rtol=rtol, atol=1e-5)
    return run


rng = np.random.default_rng(0)
X = rng.normal(size=(2, 3, 4)).astype(np.float32)


def test_clip_attribute_form(compare):
    compare("Clip", {"x": X}, opset=6, min=-0.5, max=0.25)


def test_clip_min_only_from_input(compare):
    compare("Clip", {"x": X, "lo": np.array(0.1, np.float32)}, opset=13)


def test_clip_max_only_constant(compare):
    compare("Clip", {"x": X}, opset=13, initializers=[("", None), ("hi", np.array(0.2, np.float32))])


def test_softmax_opset11_dynamic(compare):
    compare("Softmax", {"x": X}, opset=11, dynamic=True, axis=1)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_hardmax_dynamic(compare, axis):
    compare("Hardmax", {"x": np.round(X)}, opset=13, dynamic=True, axis=axis)


def test_reduce_all_dynamic(compare):
    compare("ReduceLogSumExp", {"x": X}, opset=18, dynamic=True, keepdims=0)


def test_reduce_attribute_axes(compare):
    compare("ReduceL2", {"x": X}, opset=13, axes=[0, -1], keepdims=1)


def test_leaky_relu_float16(compare):
    compare("LeakyRelu", {"x": X.astype(np.float16)}, rtol=2e-3, alpha=0.3)    # f16 rounding of alpha*x


def test_det_batch(compare):
    compare("Det", {"x": rng.normal(size=(4, 3, 3)).astype(np.float32)}, opset=11)


def test_einsum_implicit_output(compare):
    compare("Einsum", {"a": X, "b": rng.normal(size=(4, 5)).astype(np.float32)}, equation="ijk,kl")


def test_gemm_float16_scaled(compare):
    a = rng.normal(size=(3, 4)).astype(np.float16)
    compare("Gemm", {"a": a, "b": a, "c": np.ones(3, np.float16)}, rtol=2e-3, transB=1, alpha=0.5, beta=2.0)


def test_mod_integers_sign_of_divisor(compare):
    compare("Mod", {"a": np.array([-7, 7, -7, 7], np.int32), "b": np.array([3, -3, -3, 3], np.int32)})


def test_mean_broadcast(compare):
    compare("Mean", {"a": X, "b": X[0], "c": X[0, 0]})


@pytest.mark.parametrize("op_type, attrs", [
    ("ThresholdedRelu", {"alpha": 0.2}), ("Shrink", {"bias": 0.1, "lambd": 0.3}), ("Celu", {"alpha": 2.0}),
    ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}), ("Selu", {}), ("Reciprocal", {}), ("Gelu", {"approximate": "tanh"})])
def test_activations(compare, op_type, attrs):
    compare(op_type, {"x": X}, opset=22 if op_type != "Gelu" else 20, **attrs)


def test_pow_int_base_float_exponent(compare):
    compare("Pow", {"x": np.array([1, 2, 3, 4], np.int32), "y": np.array([2.0, 0.5, 3.0, 1.5], np.float32)})


def test_matmul_integer_per_column_zero_point(compare):
    a = rng.integers(0, 255, size=(3, 4)).astype(np.uint8)
    b = rng.integers(0, 255, size=(4, 2)).astype(np.uint8)
    compare("MatMulInteger", {"a": a, "b": b}, opset=10, out_dtype=np.int32,
            initializers=[("za", np.array(3, np.uint8)), ("zb", np.array([4, 5], np.uint8))])


def test_sce_dynamic_with_ignore_index(compare):
    scores = rng.normal(size=(3, 5, 2)).astype(np.float32)
    labels = np.array([[0, 4], [2, -1], [1, 1]], np.int64)
    compare("SoftmaxCrossEntropyLoss", {"s": scores, "l": labels}, opset=13, dynamic=True, ignore_index=-1)


def test_reduce_noop_with_empty_axes(compare):
    compare("ReduceMean", {"x": X}, opset=18, noop_with_empty_axes=1)


@pytest.mark.parametrize("rule, decay_per_key, past", [("linear", False, False), ("gated", True, True),
                                                        ("delta", False, True), ("gated_delta", False, False)])
def test_linear_attention_against_the_onnx_reference(tmp_path, rule, decay_per_key, past):
    """LinearAttention (opset 27, which onnxruntime lacks: the onnx reference evaluator is the
    reference) with grouped query heads, each update rule, a decay per key dim or per head."""
    from onnx.reference import ReferenceEvaluator
    b, t, hq, hkv, dk, dv = 2, 3, 4, 2, 4, 3
    inputs = {"q": rng.normal(size=(b, t, hq * dk)), "k": rng.normal(size=(b, t, hkv * dk)) / 2,
              "v": rng.normal(size=(b, t, hkv * dv)),
              "state": rng.normal(size=(b, hkv, dk, dv)) if past else None,
              "decay": -np.abs(rng.normal(size=(b, t, hkv * dk if decay_per_key else hkv)))
              if rule in ("gated", "gated_delta") else None,
              "beta": rng.uniform(size=(b, t, hkv)) if rule in ("delta", "gated_delta") else None}
    names = [n if v is not None else "" for n, v in inputs.items()]
    while not names[-1]:
        names.pop()
    inputs = {n: v.astype(np.float32) for n, v in inputs.items() if v is not None}
    node = helper.make_node("LinearAttention", names, ["y", "s"], q_num_heads=hq, kv_num_heads=hkv, update_rule=rule)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(v.shape))
                                            for n, v in inputs.items()],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in ("y", "s")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 27)])
    model.ir_version = 10
    expected = ReferenceEvaluator(model).run(None, inputs)
    onnx.save(model, tmp_path / "m.onnx")
    ir = convert_model(input_model=str(tmp_path / "m.onnx"), output_dir=str(tmp_path / "ir"), model_name="m",
                       compress_to_fp16=False)
    assert_close(run_ir(ir.xml, list(inputs.values())), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dynamic", [False, True])
def test_group_normalization_per_group_scale_opset18(compare, dynamic):
    x = rng.normal(size=(2, 6, 3, 2)).astype(np.float32)
    compare("GroupNormalization", {"x": x}, opset=18, dynamic=dynamic, num_groups=3,
            initializers=[("scale", rng.normal(size=3).astype(np.float32)),
                          ("bias", rng.normal(size=3).astype(np.float32))])


@pytest.mark.parametrize("interleaved", [0, 1])
def test_rotary_embedding_dynamic_head_size(compare, interleaved):
    x = rng.normal(size=(2, 4, 3, 8)).astype(np.float32)
    caches = [rng.normal(size=(2, 3, 4)).astype(np.float32) for _ in range(2)]
    compare("RotaryEmbedding", {"x": x, "cos": caches[0], "sin": caches[1]}, opset=23, dynamic=True,
            interleaved=interleaved)


@pytest.mark.parametrize("a_shape, b_shape", [((2, 0), (0, 3)), ((4, 2, 0), (0, 5)), ((0,), (0, 4)), ((2, 0), (0,)),
                                              ((5, 1, 2, 0), (3, 0, 4))])
def test_matmul_over_an_empty_inner_dim_is_zeros(compare, a_shape, b_shape):
    """The CPU plugin does not compile a MatMul whose inner dim is 0: extensions/middle/empty_reductions.py."""
    compare("MatMul", {"a": np.ones(a_shape, np.float32), "b": np.ones(b_shape, np.float32)})


def test_gemm_over_an_empty_inner_dim_is_the_scaled_bias(compare):
    compare("Gemm", {"a": np.ones((0, 3), np.float32), "b": np.ones((0, 4), np.float32),
                     "c": np.arange(4, dtype=np.float32)}, transA=1, beta=2.0)


def test_einsum_over_an_empty_dim_is_zeros(compare):
    compare("Einsum", {"a": np.ones((3, 0), np.float32), "b": np.ones((0, 4), np.float32)}, equation="ij,jk->ik")


@pytest.mark.parametrize("op_type, dtype", [(op, np.float32) for op in ("ReduceMax", "ReduceMin", "ReduceProd",
                                                                         "ReduceSum", "ReduceL2")] +
                         [(op, np.int32) for op in ("ReduceMax", "ReduceMin", "ReduceProd", "ReduceSum")])
def test_reductions_over_an_empty_axis_give_their_identity(compare, op_type, dtype):
    """Undefined in OpenVINO's opset: extensions/middle/empty_reductions.py gives what ONNX Runtime gives."""
    compare(op_type, {"x": np.ones((2, 0, 3), dtype)}, opset=18, initializers=[("axes", np.array([1], np.int64))],
            keepdims=0)


@pytest.mark.parametrize("op_type", ["Add", "Sub", "Mul"])
@pytest.mark.parametrize("dtype", [np.uint8, np.int8], ids=["u8", "i8"])
def test_8bit_arithmetic_wraps_around(compare, op_type, dtype):
    """200 + 100 is 44 in uint8, as ONNX Runtime gives (the CPU plugin saturates:
    extensions/middle/narrow_integer_arithmetic.py)."""
    a = np.array([0, 1, 5, 200, 255, 128, 77], np.uint8).astype(dtype)
    b = np.array([3, 0, 4, 100, 2, 130, 200], np.uint8).astype(dtype)
    compare(op_type, {"a": a, "b": b})


def test_int8_negation_wraps_around(compare):
    compare("Neg", {"x": np.array([0, 1, -5, 127, -128], np.int8)})
