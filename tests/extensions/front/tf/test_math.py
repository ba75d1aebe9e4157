"""Layer tests of the TensorFlow math ops translated in extensions/front/tf/math.py (beyond the
elementwise suite): float TruncateDiv, ClipByValue with min > max, and the ops of issue 11."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

raw = tf.raw_ops


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_truncate_div_float_rounds_toward_zero(tmp_path, dtype):
    x = np.array([-7.5, -7, -1.5, 0.5, 1.5, 7, 7.5, 9], dtype)
    y = np.array([2, 2, 1, -0.25, 1, -2, 2, 4], dtype)
    check_tf(tmp_path, lambda a, b: raw.TruncateDiv(x=a, y=b), [x, y])


@pytest.mark.parametrize("low,high", [(-0.5, 1.0), (1.0, -0.5)])
def test_clip_by_value(tmp_path, low, high):
    """With min > max TensorFlow returns min everywhere."""
    check_tf(tmp_path, lambda a: raw.ClipByValue(t=a, clip_value_min=low, clip_value_max=high),
             [random((2, 3, 4))])
