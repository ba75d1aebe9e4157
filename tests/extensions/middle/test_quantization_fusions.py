"""Quantize -> dequantize arithmetic becomes one FakeQuantize computing the same values (reference
interpreter before/after); quantizations that stay integer, or whose dequantization parameters are
not constant, are left alone."""
import numpy as np
import pytest

from extensions.back.compress_fp16 import CompressWeightsToFP16
from extensions.front.onnx.quantization import dequantize, quantize
from extensions.middle.quantization_fusions import (
    FakeQuantizedWeightsToIntegers,
    QuantizeDequantizeToFakeQuantize,
    WidenFakeQuantizeLevels,
)
from tests.utils.reference import assert_rewrite, assert_untouched, build_graph

# inputs that avoid values halfway between two steps (FakeQuantize and Round may break ties apart)
X = (np.linspace(-3, 3, 96, dtype=np.float32) + 0.0013).reshape(2, 3, 4, 4)


def qdq(scale, zero_point, out_type, d_scale=None, d_zero_point=None):
    def build(b):
        x = b.Parameter(shape=X.shape, element_type="f32")
        q = quantize(b, x, b.const(np.float32(scale) if np.ndim(scale) == 0 else scale),
                     None if zero_point is None else b.const(zero_point), out_type)
        dz, ds = (zero_point if d_zero_point is None else d_zero_point), (scale if d_scale is None else d_scale)
        return dequantize(b, q, b.const(np.asarray(ds, np.float32)), None if dz is None else b.const(dz))
    return build


@pytest.mark.parametrize("scale,zero_point,out_type", [
    (0.02, np.uint8(128), "u8"),
    (0.05, np.int8(0), "i8"),
    (0.1, None, "u8"),
    (np.array([0.02, 0.03, 0.05], np.float32).reshape(3, 1, 1), np.array([0, 3, -5], np.int8).reshape(3, 1, 1), "i8"),
    (0.5, np.uint8(3), "u4"),
])
def test_quantize_dequantize_becomes_fake_quantize(scale, zero_point, out_type):
    assert_rewrite(qdq(scale, zero_point, out_type), QuantizeDequantizeToFakeQuantize, [X],
                   expect_ops=["FakeQuantize"])


def test_other_dequantization_parameters_map_the_grid_onto_theirs():
    assert_rewrite(qdq(0.02, np.uint8(128), "u8", d_scale=0.5, d_zero_point=np.uint8(100)),
                   QuantizeDequantizeToFakeQuantize, [X], expect_ops=["FakeQuantize"])


def test_integer_result_and_computed_quantization_parameters_stay():
    def stays_integer(b):
        x = b.Parameter(shape=X.shape, element_type="f32")
        return quantize(b, x, b.const(np.float32(0.02)), b.const(np.uint8(128)), "u8")

    def computed_scale(b):
        x = b.Parameter(shape=X.shape, element_type="f32")
        s = b.Parameter(shape=(), element_type="f32")
        q = quantize(b, x, s, b.const(np.uint8(128)), "u8")
        return dequantize(b, q, b.const(np.float32(0.02)), b.const(np.uint8(128)))

    assert_untouched(stays_integer, QuantizeDequantizeToFakeQuantize, [X])
    assert_untouched(computed_scale, QuantizeDequantizeToFakeQuantize, [X, np.float32(0.02)])


def test_computed_dequantization_scale_multiplies_the_fake_quantize():
    def build(b):
        x = b.Parameter(shape=X.shape, element_type="f32")
        s = b.Parameter(shape=(), element_type="f32")
        q = quantize(b, x, b.const(np.float32(0.02)), b.const(np.uint8(128)), "u8")
        return dequantize(b, q, s, b.const(np.uint8(128)))

    assert_rewrite(build, QuantizeDequantizeToFakeQuantize, [X, np.float32(0.5)],
                   expect_ops=["FakeQuantize", "Multiply"])


def test_fp16_compression_keeps_quantized_weights_parameters_in_f32():
    """Per-channel scales of i8 weights, FakeQuantize ranges and the bias of a quantized layer stay
    f32 constants (the runtime's low-precision transformations read them), float weights are
    compressed."""
    rng = np.random.default_rng(0)
    scale = (rng.random((32, 1)) * 0.01 + 0.001).astype(np.float32)
    low, high = -np.linspace(1, 2, 32, dtype=np.float32), np.linspace(1, 2, 32, dtype=np.float32)

    def build(b):
        x = b.Parameter(shape=(4, 32), element_type="f32")
        fq = b.FakeQuantize(x, low, high, low, high, levels=256)
        w = dequantize(b, b.const(rng.integers(-127, 127, (32, 32)).astype(np.int8)), b.const(scale), None)
        quantized = b.Add(b.MatMul(fq, w, transpose_b=True), b.const(rng.standard_normal(32).astype(np.float32)))
        return b.MatMul(quantized, b.const(rng.standard_normal((32, 16)).astype(np.float32)))

    graph = build_graph(build, compress_to_fp16=True)
    CompressWeightsToFP16().find_and_replace_pattern(graph)
    compressed = [n for n in graph.nodes_by_op("Const") if n.element_type == "f16"]
    assert [n.value.shape for n in compressed] == [(32, 16)]


W = np.random.default_rng(3).standard_normal((8, 3, 3, 3)).astype(np.float32)


def fake_quantized_weights(low, high, levels=256):
    def build(b):
        x = b.Parameter(shape=(1, 3, 6, 6), element_type="f32")
        w = b.FakeQuantize(b.const(W), low, high, low, high, levels=levels)
        return b.Convolution(x, w, strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1])
    return build


@pytest.mark.parametrize("low,high,levels,storage", [
    (np.float32(-128 * 0.02), np.float32(127 * 0.02), 256, "i8"),                        # symmetric qint8
    ((-127 * np.linspace(0.01, 0.02, 8, dtype=np.float32)).reshape(8, 1, 1, 1),
     (127 * np.linspace(0.01, 0.02, 8, dtype=np.float32)).reshape(8, 1, 1, 1), 255, "i8"),  # narrow, per channel
    (np.float32(0), np.float32(255 * 0.01), 256, "u8"),                                  # a grid from 0 up
])
def test_fake_quantized_weights_become_integers(low, high, levels, storage):
    graph = assert_rewrite(fake_quantized_weights(low, high, levels), FakeQuantizedWeightsToIntegers,
                           expect_ops=["Convert", "Multiply", "Convolution"])
    (stored,) = [n for n in graph.nodes_by_op("Const") if n.element_type in ("i8", "u8")]
    assert stored.element_type == storage and stored.value.shape == W.shape


def test_fake_quantized_weights_off_a_zero_grid_keep_their_fake_quantize():
    assert_untouched(fake_quantized_weights(np.float32(-1.003), np.float32(1.0)), FakeQuantizedWeightsToIntegers)


def test_fewer_levels_widen_to_256_with_a_clamp():
    """0..127 activations (x86 QAT) compute the same values as a clamp and 256 levels of that step."""
    def build(b):
        x = b.Parameter(shape=X.shape, element_type="f32")
        return b.FakeQuantize(x, np.float32(-1), np.float32(1.54), np.float32(-1), np.float32(1.54), levels=128)

    graph = assert_rewrite(build, WidenFakeQuantizeLevels, [X], expect_ops=["Clamp", "FakeQuantize"])
    assert graph.nodes_by_op("FakeQuantize")[0].levels == 256


def test_quantized_tensor_reshaped_before_its_dequantization():
    """Q -> Reshape (of the integers, e.g. ONNX Flatten between QOperator ops) -> DQ: the reshape
    moves the fake-quantized values instead."""
    def build(b):
        x = b.Parameter(shape=X.shape, element_type="f32")
        q = quantize(b, x, b.const(np.float32(0.02)), b.const(np.uint8(128)), "u8")
        flat = b.Reshape(q, np.array([2, -1], np.int64), special_zero=False)
        return dequantize(b, flat, b.const(np.float32(0.02)), b.const(np.uint8(128)))

    assert_rewrite(build, QuantizeDequantizeToFakeQuantize, [X], expect_ops=["FakeQuantize", "Reshape"])
