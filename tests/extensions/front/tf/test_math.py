"""Layer tests of the TensorFlow math ops translated in extensions/front/tf/math.py (beyond the
elementwise suite): float TruncateDiv, ClipByValue with min > max, and the ops of issue 11."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random, renamed_op

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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_xlog1py(tmp_path, dtype):
    x = np.array([0, 0, 1.5, -2, 3, 0.5], dtype)
    y = np.array([-1, 2, 0.5, 3, -0.5, 0], dtype)
    check_tf(tmp_path, lambda a, b: raw.Xlog1py(x=a, y=b), [x, y])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_atan2(tmp_path, dtype):
    y = np.array([1, 1, -1, -1, 0, 0, 2, -2, 0], dtype)
    x = np.array([1, -1, 1, -1, -3, 3, 0, 0, 0], dtype)
    check_tf(tmp_path, lambda a, b: raw.Atan2(y=a, x=b), [y, x], rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype,tolerance", [(np.float32, 0.5), (np.float32, 1e-5), (np.float64, 0.1)])
def test_approximate_equal(tmp_path, dtype, tolerance):
    x, y = random((3, 4), dtype, seed=1, low=-3, high=3), random((3, 4), dtype, seed=2, low=-3, high=3)
    check_tf(tmp_path, lambda a, b: raw.ApproximateEqual(x=a, y=b, tolerance=tolerance), [x, y])


SHIFT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("op", ["LeftShift", "RightShift"])
@pytest.mark.parametrize("dtype", SHIFT_TYPES)
def test_shift(tmp_path, op, dtype):
    """Amounts past the bit width (and negative ones) are clamped, as TensorFlow clamps them.
    64-bit types are left out of that, with results that fit in 32 bits: the CPU plugin shifts
    them as 32-bit values."""
    bits = np.iinfo(dtype).bits
    signed = np.issubdtype(dtype, np.signedinteger)
    x = np.array([5, -5 if signed else 250, 7, 100, 3, 1], dtype)
    amounts = [bits + 1, bits, bits - 1, 2] if bits < 64 else [20, 24, 10, 2]
    y = np.array([-1 if signed else 0] + amounts + [0], dtype)
    check_tf(tmp_path, lambda a, b: getattr(raw, op)(x=a, y=b), [x, y])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 4)])
def test_l2_loss(tmp_path, dtype, shape):
    check_tf(tmp_path, lambda a: raw.L2Loss(t=a), [random(shape, dtype)], rtol=1e-3)


@pytest.mark.parametrize("op", ["MatrixInverse", "BatchMatrixInverse"])
@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matrix_inverse(tmp_path, op, adjoint, dtype):
    """BatchMatrixInverse is gone from TensorFlow 2's op set: MatrixInverse's graph renamed."""
    x = (random((2, 3, 3), dtype) + 4 * np.eye(3)).astype(dtype)
    check_tf(tmp_path, lambda a: raw.MatrixInverse(input=a, adjoint=adjoint), [x], rtol=1e-3, atol=1e-4,
             graph_patch=renamed_op("MatrixInverse", op))


@pytest.mark.parametrize("x", [np.array(0.0, np.float32), np.array(-2, np.int32), np.array(True),
                               np.zeros((0, 3), np.float32), np.zeros((2, 1), np.int64)])
def test_to_bool(tmp_path, x):
    check_tf(tmp_path, lambda a: raw.ToBool(input=a), [x])


def test_assert_and_check_numerics_pass_the_data(tmp_path):
    """Assert is left out (nothing reads it but a control dependency); CheckNumericsV2 is the
    tensor it checks."""
    def fn(x):
        tf.debugging.Assert(tf.reduce_all(x > -10), [x])
        return raw.CheckNumericsV2(tensor=x, message="bad") * 2
    check_tf(tmp_path, fn, [random((2, 3))])

