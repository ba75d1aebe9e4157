"""infer of the ONNX quantization ops that are lowered in the middle phase."""
import numpy as np

from tests.utils.graphs import infer_op


def test_quantize_linear_output_type_follows_zero_point_or_attribute():
    (out,) = infer_op("onnx::QuantizeLinear", ((2, -1), "f32"), np.float32(0.5), np.int8(1), axis=1, block_size=0)
    assert out.data.get_shape() == (2, -1) and out.data.get_dtype() == "i8"
    (out,) = infer_op("onnx::QuantizeLinear", ((4,), "f32"), np.float32(0.5), axis=1, block_size=0)
    assert out.data.get_dtype() == "u8"
    (out,) = infer_op("onnx::QuantizeLinear", ((4,), "f32"), np.float32(0.5), axis=1, block_size=0,
                      output_dtype="i16")
    assert out.data.get_dtype() == "i16"


def test_dequantize_linear_output_type_is_the_scale_type():
    (out,) = infer_op("onnx::DequantizeLinear", ((1, 3, 2), "u8"), ((3,), "f16"), ((3,), "u8"), axis=1,
                      block_size=0)
    assert out.data.get_shape() == (1, 3, 2) and out.data.get_dtype() == "f16"


def test_quantized_conv_shape_and_types():
    inputs = [((1, 4, 7, -1), "u8"), ((), "f32"), ((), "u8"), ((8, 2, 3, 3), "i8"), ((8,), "f32"), ((8,), "i8"),
              ((), "f32"), ((), "u8")]
    (out,) = infer_op("onnx::QuantizedConv", *inputs, qlinear=True, group=2, strides=[2, 2], pads_begin=[1, 1],
                      pads_end=[1, 1], dilations=None, auto_pad="explicit")
    assert out.data.get_shape() == (1, 8, 4, -1) and out.data.get_dtype() == "u8"
    (out,) = infer_op("onnx::QuantizedConv", ((1, 1, 3, 3), "u8"), ((2, 1, 2, 2), "u8"), qlinear=False, group=1,
                      strides=None, pads_begin=None, pads_end=None, dilations=None, auto_pad="explicit")
    assert out.data.get_shape() == (1, 2, 2, 2) and out.data.get_dtype() == "i32"


def test_quantized_matmul_shape_and_types():
    (out,) = infer_op("onnx::QuantizedMatMul", ((2, 5, 4), "i8"), ((4, 3), "i8"), qlinear=False)
    assert out.data.get_shape() == (2, 5, 3) and out.data.get_dtype() == "i32"


def test_unfoldable_node_keeps_its_value_unknown():
    weights = np.arange(6, dtype=np.int8).reshape(2, 3)
    (folded,) = infer_op("Convert", weights, destination_type="f32")
    np.testing.assert_array_equal(folded.data.get_value(), weights.astype(np.float32))
    (kept,) = infer_op("Convert", weights, destination_type="f32", foldable=False)
    assert kept.data.get_value() is None
    assert kept.data.get_shape() == (2, 3) and kept.data.get_dtype() == "f32"
