"""Layer tests of the TensorFlow random ops (extensions/front/tf/random.py): the IR's outputs
have TensorFlow's shapes and types and the distribution's statistics (the values differ)."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.runtime import run_ir
from tests.utils.tf_models import convert_pb, freeze, specs_for, tf_outputs, write_pb

raw = tf.raw_ops


def run_both(tmp_path, fn, inputs, dynamic_batch=False):
    """(IR outputs, TensorFlow outputs) of ``fn`` on ``inputs``."""
    path = write_pb(freeze(fn, specs_for(inputs, dynamic_batch)), tmp_path / "model.pb")
    xml = convert_pb(path, tmp_path / "ir")
    return run_ir(xml, inputs), tf_outputs(fn, inputs)


def same_layout(actual, expected):
    assert [a.shape for a in actual] == [e.shape for e in expected]
    assert [a.dtype for a in actual] == [e.dtype for e in expected]


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.float16])
@pytest.mark.parametrize("seed,seed2", [(0, 0), (7, 3)])
def test_random_uniform(tmp_path, dtype, seed, seed2):
    def fn(x):
        return raw.RandomUniform(shape=tf.shape(x), dtype=dtype, seed=seed, seed2=seed2) + tf.cast(x, dtype)
    x = np.zeros((100, 50), np.float32)
    actual, expected = run_both(tmp_path, fn, [x])
    same_layout(actual, expected)
    values = actual[0].astype(np.float64)
    # the CPU plugin's f16 values round up to 1.0 at times
    assert values.min() >= 0 and (values.max() < 1 or dtype == tf.float16 and values.max() == 1)
    assert abs(values.mean() - 0.5) < 0.02 and abs(values.var() - 1 / 12) < 0.01


def test_random_uniform_dynamic_shape(tmp_path):
    def fn(x):
        return raw.RandomUniform(shape=tf.shape(x), dtype=tf.float32)
    x = np.zeros((3, 4), np.float32)
    actual, expected = run_both(tmp_path, fn, [x], dynamic_batch=True)
    same_layout(actual, expected)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_random_uniform_int(tmp_path, dtype):
    def fn(lo, hi):
        return raw.RandomUniformInt(shape=[4000], minval=lo, maxval=hi, seed=1)
    actual, expected = run_both(tmp_path, fn, [np.array(-3, dtype), np.array(5, dtype)])
    same_layout(actual, expected)
    values = actual[0]
    assert set(np.unique(values)) == set(range(-3, 5))
    assert abs(values.mean() - 0.5) < 0.2


@pytest.mark.parametrize("output_dtype", [tf.int32, tf.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_multinomial(tmp_path, output_dtype, dtype):
    """Row 0 is almost surely class 0 and row 1 class 2; row 2 draws class 1 with p = 0.8."""
    logits = np.log(np.array([[1, 1e-12, 1e-12], [1e-12, 1e-12, 1], [0.2, 0.8, 1e-12]])).astype(dtype)

    def fn(x):
        return raw.Multinomial(logits=x, num_samples=2000, output_dtype=output_dtype)
    actual, expected = run_both(tmp_path, fn, [logits])
    same_layout(actual, expected)
    samples = actual[0]
    assert (samples[0] == 0).all() and (samples[1] == 2).all()
    assert set(np.unique(samples[2])) == {0, 1} and abs((samples[2] == 1).mean() - 0.8) < 0.05
