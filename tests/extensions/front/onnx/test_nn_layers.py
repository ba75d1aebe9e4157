"""Layer tests of the translated ONNX convolution, pooling, padding, detection and quantization
operators in forms the backend node cases miss (weights, pads and sizes that are model
inputs, dynamic dims, constant inputs folded away): a one-node model converted with
mo, the IR's output types and shapes checked and its outputs compared with a reference run."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from defusedxml import ElementTree
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from mo import convert_model
from mo.errors import ConversionError
from tests.utils.onnx_models import make_model, run_onnxruntime
from tests.utils.runtime import assert_close, run_ir

F, U8, I8, I64 = TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8, TensorProto.INT64
rng = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def same_data_whatever_the_order():
    """Every test draws the same random inputs, whichever tests ran before it in its worker."""
    rng.bit_generator.state = np.random.default_rng(0).bit_generator.state


def one_node(op_type, inputs, initializers=None, outputs=1, opset=21, **attrs):
    """A model of one ``op_type`` node: ``inputs`` are (name, element type, shape) model inputs,
    ``initializers`` {name: array or None (an absent optional input)} follow them as node inputs."""
    initializers = initializers or {}
    names = [i[0] for i in inputs] + [("" if v is None else k) for k, v in initializers.items()]
    out_names = [f"y{i}" for i in range(outputs)]
    model = make_model([helper.make_node(op_type, names, out_names, name="node", **attrs)], inputs,
                       [(o, 0, None) for o in out_names], {k: v for k, v in initializers.items() if v is not None},
                       opset=opset, ir_version=10)
    for out in model.graph.output:
        out.type.Clear()
    return model


def convert(model, tmp_path) -> str:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    return convert_model(input_model=str(path), output_dir=str(tmp_path / "ir"), model_name="m",
                         compress_to_fp16=False).xml


def check(model, inputs, tmp_path, reference=run_onnxruntime, **tolerance) -> str:
    """Convert ``model``, run it on ``inputs`` and compare with ``reference(model, inputs)``."""
    xml = convert(model, tmp_path)
    assert_close(run_ir(xml, inputs), reference(model, inputs), **tolerance)
    return xml


def reference_evaluator(model, inputs):
    """onnx's reference implementation (for operators onnxruntime does not have)."""
    session = ReferenceEvaluator(model)
    return session.run(None, dict(zip([i.name for i in model.graph.input], inputs)))


def ir_results(xml: str) -> list[tuple[str, tuple[int, ...]]]:
    """(precision, shape) of every Result of the IR, in layer order."""
    ports = [layer.find("input/port") for layer in ElementTree.parse(xml).getroot().iter("layer")
             if layer.get("type") == "Result"]
    return [(p.get("precision"), tuple(int(d.text) for d in p.findall("dim"))) for p in ports]


def ir_layers(xml: str) -> dict[str, str]:
    """Layer name -> type."""
    return {layer.get("name"): layer.get("type") for layer in ElementTree.parse(xml).getroot().iter("layer")}


# ---------------------------------------------------------------------------- convolutions


def test_grouped_conv_with_bias_folds_the_grouped_weights_and_keeps_names(tmp_path):
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
    model = one_node("Conv", [("x", F, [1, 4, 5, "W"])], {"w": w, "b": np.arange(6, dtype=np.float32)}, group=2,
                     pads=[1, 1, 1, 1])
    xml = check(model, [rng.standard_normal((1, 4, 5, 7)).astype(np.float32)], tmp_path)
    layers = ir_layers(xml)
    assert layers["node"] == "Add" and "GroupConvolution" in layers.values() and "Reshape" not in layers.values()
    assert ir_results(xml) == [("FP32", (1, 6, 5, -1))]
    assert 'names="y0"' in open(xml).read()


def test_conv_transpose_same_padding_with_weights_as_input(tmp_path):
    """Without a known kernel size the output shape input * stride is computed."""
    model = one_node("ConvTranspose", [("x", F, [1, 2, 4, 5]), ("w", F, [2, 3, 3, 3])], auto_pad="SAME_UPPER",
                     strides=[2, 2])
    xml = check(model, [rng.standard_normal((1, 2, 4, 5)).astype(np.float32),
                        rng.standard_normal((2, 3, 3, 3)).astype(np.float32)], tmp_path)
    assert ir_results(xml) == [("FP32", (1, 3, 8, 10))]


@pytest.mark.parametrize("auto_pad, kernel, stride", [("SAME_UPPER", 3, 2), ("SAME_LOWER", 4, 2),
                                                      ("SAME_UPPER", 1, 3)])
def test_conv_transpose_same_padding_with_constant_weights(tmp_path, auto_pad, kernel, stride):
    """A known kernel size gives explicit pads; a kernel smaller than the stride extends the output."""
    w = rng.standard_normal((2, 3, kernel, kernel)).astype(np.float32)
    model = one_node("ConvTranspose", [("x", F, [1, 2, 4, 5])], {"w": w}, auto_pad=auto_pad, strides=[stride] * 2)
    xml = check(model, [rng.standard_normal((1, 2, 4, 5)).astype(np.float32)], tmp_path, reference_evaluator)
    assert ir_results(xml) == [("FP32", (1, 3, 4 * stride, 5 * stride))]


def test_causal_conv_with_state_on_a_dynamic_length(tmp_path):
    model = one_node("CausalConvWithState", [("x", F, [2, 4, "L"])],
                     {"w": rng.standard_normal((4, 1, 5)).astype(np.float32)}, outputs=2, opset=27,
                     activation="silu")
    xml = check(model, [rng.standard_normal((2, 4, 6)).astype(np.float32)], tmp_path, reference_evaluator)
    assert ir_results(xml) == [("FP32", (2, 4, -1)), ("FP32", (2, 4, -1))]


@pytest.mark.parametrize("op_type", ["GlobalAveragePool", "GlobalMaxPool"])
def test_global_pools_on_dynamic_dims(tmp_path, op_type):
    xml = check(one_node(op_type, [("x", F, ["N", 3, "H", "W", 2])]),
                [rng.standard_normal((2, 3, 4, 5, 2)).astype(np.float32)], tmp_path)
    assert ir_results(xml) == [("FP32", (-1, 3, 1, 1, 1))]


@pytest.mark.parametrize("p", [1, 3])
def test_lp_pool_other_norms(tmp_path, p):
    model = one_node("LpPool", [("x", F, [1, 2, 5, 5])], kernel_shape=[2, 3], strides=[1, 2], p=p)
    check(model, [rng.standard_normal((1, 2, 5, 5)).astype(np.float32)], tmp_path)


# ---------------------------------------------------------------------------- padding


def test_pad_with_axes_and_wrap_with_pads_as_input(tmp_path):
    x = rng.standard_normal((1, 3, 4)).astype(np.float32)
    model = one_node("Pad", [("x", F, [1, 3, 4])], {"pads": np.array([1, 2, 0, 3], np.int64), "value": None,
                                                      "axes": np.array([-1, 0], np.int64)})
    assert ir_results(check(model, [x], tmp_path / "axes")) == [("FP32", (6, 3, 5))]
    model = one_node("Pad", [("x", F, [1, 3, 4]), ("pads", I64, [6])], mode="wrap")
    xml = check(model, [x, np.array([0, 1, 2, 0, 2, -1], np.int64)], tmp_path / "wrap")
    assert ir_results(xml) == [("FP32", (-1, -1, -1))]


def test_center_crop_pad_on_chosen_axes(tmp_path):
    model = one_node("CenterCropPad", [("x", F, [5, 6, 3])], {"sizes": np.array([4, 8], np.int64)}, axes=[0, -2])
    xml = check(model, [rng.standard_normal((5, 6, 3)).astype(np.float32)], tmp_path)
    assert ir_results(xml) == [("FP32", (4, 8, 3))]


@pytest.mark.parametrize("op_type, initializers, attrs", [
    ("Pad", {"pads": np.array([1, 1], np.int64), "value": None, "axes": np.array([1], np.int64)}, {"mode": "wrap"}),
    ("CenterCropPad", {"sizes": np.array([2, 6], np.int64)}, {})])
def test_pad_and_crop_of_constants(tmp_path, op_type, initializers, attrs):
    """Wrap padding of known pads folds away with its constant input."""
    model = one_node(op_type, [], {"x": np.arange(12, dtype=np.float32).reshape(3, 4), **initializers}, **attrs)
    xml = convert(model, tmp_path)
    assert_close(run_ir(xml, []), run_onnxruntime(model, []))
    if op_type == "Pad":
        assert set(ir_layers(xml).values()) == {"Const", "Result"}


# ---------------------------------------------------------------------------- detection and sampling


def test_affine_grid_with_constant_size_or_size_as_input(tmp_path):
    theta = rng.standard_normal((2, 2, 3)).astype(np.float32)
    model = one_node("AffineGrid", [("theta", F, [2, 2, 3])], {"size": np.array([2, 3, 5, 6], np.int64)})
    assert ir_results(check(model, [theta], tmp_path / "const")) == [("FP32", (2, 5, 6, 2))]
    model = one_node("AffineGrid", [("theta", F, [2, 3, 4]), ("size", I64, [5])], align_corners=1)
    check(model, [rng.standard_normal((2, 3, 4)).astype(np.float32), np.array([2, 1, 3, 4, 5], np.int64)],
          tmp_path / "input")


def test_roi_align_max_mode_with_half_pixel_coordinates(tmp_path):
    x = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
    rois = np.array([[0.5, 1.0, 4.0, 5.5], [1.0, 0.0, 6.0, 3.0], [0.0, 0.0, 2.0, 2.0]], np.float32)
    model = one_node("RoiAlign", [("x", F, [2, 3, 6, 7]), ("rois", F, [3, 4]), ("batch", I64, [3])], mode="max",
                     output_height=2, output_width=3, sampling_ratio=2, spatial_scale=0.8)
    check(model, [x, rois, np.array([1, 0, 1], np.int64)], tmp_path, reference_evaluator)


@pytest.mark.parametrize("mode", ["linear", "nearest"])
def test_volumetric_grid_sample_with_border_padding(tmp_path, mode):
    """(A batch of 2: the CPU plugin of OpenVINO 2026 crashes on this batched Gather with a batch of 1.)"""
    x = rng.standard_normal((2, 2, 3, 4, 5)).astype(np.float32)
    grid = rng.uniform(-1.4, 1.4, (2, 2, 3, 2, 3)).astype(np.float32)
    model = one_node("GridSample", [("x", F, list(x.shape)), ("grid", F, list(grid.shape))], mode=mode,
                     padding_mode="border", opset=22)
    check(model, [x, grid], tmp_path, reference_evaluator)


def test_volumetric_bicubic_grid_sample_is_refused(tmp_path):
    model = one_node("GridSample", [("x", F, [1, 1, 2, 3, 4]), ("grid", F, [1, 2, 2, 2, 3])], mode="cubic")
    with pytest.raises(ConversionError, match=r"GridSample\): on a 5-D input only the bilinear and nearest"):
        convert(model, tmp_path)


# ---------------------------------------------------------------------------- quantization


@pytest.mark.parametrize("zero_point, attrs, precision", [
    ({"zp": np.int8(1)}, {}, "I8"), ({}, {}, "U8"), ({}, {"output_dtype": TensorProto.INT16}, "I16")])
def test_quantize_linear_output_type(tmp_path, zero_point, attrs, precision):
    model = one_node("QuantizeLinear", [("x", F, [2, "n"])], {"scale": np.float32(0.5), **zero_point}, **attrs)
    xml = check(model, [rng.standard_normal((2, 5)).astype(np.float32) * 20], tmp_path, reference_evaluator)
    assert ir_results(xml) == [(precision, (2, -1))]


def test_dequantize_linear_output_type_is_the_scale_type(tmp_path):
    model = one_node("DequantizeLinear", [("x", U8, [1, 3, 2])],
                     {"scale": np.array([0.5, 1, 2], np.float16), "zp": np.array([1, 2, 3], np.uint8)})
    xml = check(model, [rng.integers(0, 255, (1, 3, 2)).astype(np.uint8)], tmp_path)
    assert ir_results(xml) == [("FP16", (1, 3, 2))]


def qlinear_conv_params(w_shape: tuple, per_channel: bool) -> dict:
    """Weights and quantization parameters of QLinearConv (scales chosen so that no requantized
    value falls exactly between two steps, where rounding may differ)."""
    channels = w_shape[0]
    w_scale, w_zp = (np.full(channels, 0.0213, np.float32), np.zeros(channels, np.int8)) if per_channel else \
        (np.float32(0.0213), np.int8(0))
    return {"x_scale": np.float32(0.0371), "x_zp": np.uint8(120), "w": rng.integers(-20, 20, w_shape).astype(np.int8),
            "w_scale": w_scale, "w_zp": w_zp, "y_scale": np.float32(0.0977), "y_zp": np.uint8(128)}


def test_qlinear_conv_grouped_strided_on_a_dynamic_dim(tmp_path):
    model = one_node("QLinearConv", [("x", U8, [1, 4, 7, "W"])], qlinear_conv_params((8, 2, 3, 3), True), group=2,
                     strides=[2, 2], pads=[1, 1, 1, 1])
    xml = check(model, [rng.integers(0, 255, (1, 4, 7, 6)).astype(np.uint8)], tmp_path)
    assert ir_results(xml) == [("U8", (1, 8, 4, -1))]


def test_conv_integer_is_i32(tmp_path):
    model = one_node("ConvInteger", [("x", U8, [1, 1, 3, 3])], {"w": rng.integers(0, 9, (2, 1, 2, 2)).astype(
        np.uint8), "x_zp": np.uint8(3)})
    xml = check(model, [rng.integers(0, 255, (1, 1, 3, 3)).astype(np.uint8)], tmp_path)
    assert ir_results(xml) == [("I32", (1, 2, 2, 2))]


def test_dequantize_linear_per_last_axis_to_output_dtype(tmp_path):
    model = one_node("DequantizeLinear", [("x", I8, [2, 3])], {"scale": np.array([0.5, 1, 2], np.float32)}, axis=-1,
                     output_dtype=TensorProto.FLOAT16, opset=23)
    xml = check(model, [rng.integers(-128, 127, (2, 3)).astype(np.int8)], tmp_path, reference_evaluator)
    assert ir_results(xml) == [("FP16", (2, 3))]


@pytest.mark.parametrize("op_type, x", [("QuantizeLinear", rng.standard_normal((2, 5)).astype(np.float32) * 10),
                                        ("DequantizeLinear", rng.integers(-128, 127, (2, 5)).astype(np.int8))])
def test_blocks_that_do_not_divide_the_axis(tmp_path, op_type, x):
    """A last, partial block: the repeated scale and zero point are cut to the input's size."""
    params = {"scale": rng.uniform(0.5, 2, (2, 3)).astype(np.float32), "zp": rng.integers(-3, 3, (2, 3)).astype(
        np.int8)}
    model = one_node(op_type, [("x", TensorProto.FLOAT if op_type == "QuantizeLinear" else I8, [2, 5])], params,
                     axis=1, block_size=2)
    check(model, [x], tmp_path, reference_evaluator)


def test_qlinear_conv_with_bias(tmp_path):
    params = {**qlinear_conv_params((3, 2, 2, 2), False), "bias": rng.integers(-500, 500, 3).astype(np.int32)}
    model = one_node("QLinearConv", [("x", U8, [1, 2, 5, 5])], params)
    check(model, [rng.integers(0, 255, (1, 2, 5, 5)).astype(np.uint8)], tmp_path)


@pytest.mark.parametrize("x_shape, w_shape, attrs", [
    ((1, 0, 5, 5), (4, 0, 3, 3), {}),                                  # no input channels
    ((1, 2, 0, 5), (4, 2, 1, 1), {"pads": [1, 1, 1, 1]}),              # the output is padding only
    ((0, 2, 5, 5), (4, 2, 3, 3), {}),                                  # an empty batch
], ids=["no_channels", "padding_only", "empty_batch"])
def test_conv_of_empty_data_is_zeros(tmp_path, x_shape, w_shape, attrs):
    """The CPU plugin leaves these outputs uninitialised: extensions/middle/empty_reductions.py."""
    model = one_node("Conv", [("x", F, list(x_shape))], {"w": np.ones(w_shape, np.float32)}, **attrs)
    for _ in range(3):
        check(model, [np.ones(x_shape, np.float32)], tmp_path)
