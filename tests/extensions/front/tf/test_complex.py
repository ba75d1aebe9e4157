"""Layer tests of TensorFlow complex numbers: the complex ops (Complex, Real, Imag, ComplexAbs,
Angle, Conj, ConjugateTranspose) and complex tensors through ordinary ops. Complex inputs and
outputs are [..., 2] pairs in the IR (tests/utils/runtime.py gives and compares them so)."""
import numpy as np
import pytest
import tensorflow as tf

from mo import convert_model
from mo.errors import ConversionError
from tests.utils.tf_models import check_tf, freeze, random, specs_for, write_pb

raw = tf.raw_ops


def complex_input(shape, dtype=np.complex64, seed=0) -> np.ndarray:
    return (random(shape, seed=seed) + 1j * random(shape, seed=seed + 1)).astype(dtype)


C = complex_input((2, 3, 4))
DTYPES = [np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_complex_real_imag(tmp_path, dtype):
    def fn(x, y):
        z = tf.complex(x, y)
        return z, tf.math.real(z * z), tf.math.imag(z * z), tf.complex(x, y[0])
    check_tf(tmp_path, fn, [random((2, 3), dtype), random((2, 3), dtype, seed=1)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_abs_angle_conj(tmp_path, dtype):
    def fn(x):
        return tf.abs(x), tf.math.angle(x), tf.math.conj(x), tf.math.angle(tf.math.real(x))
    check_tf(tmp_path, fn, [complex_input((3, 5), dtype)])


def test_angle_on_the_axes(tmp_path):
    values = np.array([1, -1, 1j, -1j, 0, 2 - 2j, -3 + 1j, -3 - 1j], np.complex64)
    check_tf(tmp_path, lambda x: tf.math.angle(x), [values])


def test_conjugate_transpose(tmp_path):
    check_tf(tmp_path, lambda x: raw.ConjugateTranspose(x=x, perm=[2, 0, 1]), [C])


@pytest.mark.parametrize("dtype", DTYPES)
def test_arithmetic(tmp_path, dtype):
    def fn(x, y):
        return x + y, x - y, x * y, x / y, -x, tf.math.square(x), tf.math.reciprocal(x), \
            tf.math.divide_no_nan(x, y * tf.constant([0, 1, 1, 1], x.dtype))
    check_tf(tmp_path, fn, [complex_input((3, 4), dtype), complex_input((4,), dtype, seed=2)])


def test_exp_log_sqrt_rsqrt(tmp_path):
    def fn(x):
        return tf.exp(x), tf.math.log(x), tf.sqrt(x), tf.math.rsqrt(x)
    check_tf(tmp_path, fn, [C])


def test_constants_and_casts(tmp_path):
    def fn(x):
        c = tf.constant([[1 + 2j, -1j], [3, 0.5 + 0.5j]], tf.complex64)
        return x * c, tf.cast(x, tf.complex128), tf.cast(x * c, tf.float32), tf.zeros_like(x), tf.ones_like(x)
    check_tf(tmp_path, fn, [complex_input((2, 2))])


@pytest.mark.parametrize("src", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("dst", [tf.complex64, tf.complex128])
def test_cast_to_complex(tmp_path, src, dst):
    check_tf(tmp_path, lambda x: tf.cast(x, dst) * tf.cast(x + 1, dst), [random((2, 3), src)])


@pytest.mark.parametrize("dynamic", [False, True])
def test_shapes(tmp_path, dynamic):
    def fn(x):
        return (tf.shape(x), tf.shape(x, out_type=tf.int64), tf.size(x), tf.rank(x),
                tf.reshape(x, [-1, 4]), tf.transpose(x, [2, 0, 1]), tf.expand_dims(x, -1), tf.expand_dims(x, 1),
                tf.squeeze(tf.expand_dims(x, 2), [-2]), tf.squeeze(x[:, :1]), tf.tile(x, [1, 2, 1]),
                tf.broadcast_to(x[:1], [3, 3, 4]))
    check_tf(tmp_path, fn, [C], dynamic_batch=dynamic)


def test_slices(tmp_path):
    def fn(x):
        return (x[1], x[:, 1:3], x[..., ::-1], x[..., 1], x[:, tf.newaxis, -1], x[0, ..., 2:],
                tf.slice(x, [0, 1, 1], [-1, 2, 2]), tf.gather(x, [2, 0], axis=1), tf.gather(x, [1, 0], axis=-1),
                tf.gather_nd(x, [[1, 2], [0, 0]]), tf.gather_nd(x, [[1, 2, 3]]))
    check_tf(tmp_path, fn, [C], dynamic_batch=True)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_pack(tmp_path, axis):
    def fn(x):
        return tf.concat([x, x * x], axis), tf.stack([x, -x], axis=axis)
    check_tf(tmp_path, fn, [C])


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
def test_pad(tmp_path, mode):
    check_tf(tmp_path, lambda x: tf.pad(x, [[0, 1], [2, 1], [1, 0]], mode), [C])


def test_pad_with_complex_value(tmp_path):
    check_tf(tmp_path, lambda x: tf.pad(x, [[1, 1], [0, 0], [2, 0]], constant_values=tf.complex(1.5, -2.0)), [C])


@pytest.mark.parametrize("exclusive, reverse", [(False, False), (True, False), (False, True), (True, True)])
def test_cumsum(tmp_path, exclusive, reverse):
    def fn(x):
        return tf.math.cumsum(x, 1, exclusive=exclusive, reverse=reverse), tf.math.cumsum(x, -1)
    check_tf(tmp_path, fn, [C])


@pytest.mark.parametrize("keep_dims", [False, True])
def test_sum_mean(tmp_path, keep_dims):
    def fn(x):
        return tf.reduce_sum(x, [0, -1], keepdims=keep_dims), tf.reduce_mean(x, 1, keepdims=keep_dims)
    check_tf(tmp_path, fn, [C])


def test_fill(tmp_path):
    check_tf(tmp_path, lambda x: tf.fill(tf.shape(x)[:2], x[0, 0, 0]), [C], dynamic_batch=True)


@pytest.mark.parametrize("axis", [0, -1])
def test_unpack_split_reverse(tmp_path, axis):
    def fn(x):
        a, b = tf.split(x, [1, 3], axis=-1)
        return (tf.unstack(x, axis=axis)[1], tf.split(x, 2, axis=0)[1], a, b, tf.reverse(x, [axis]),
                tf.reverse(x, [1, 2]))
    check_tf(tmp_path, fn, [C])


def test_add_n_equal_select(tmp_path):
    def fn(x, y):
        cond = tf.math.real(x) > 0
        return (tf.math.add_n([x, y, x]), tf.equal(x, y), tf.not_equal(x, x * tf.constant(1, x.dtype)),
                tf.where(cond, x, y), raw.Select(condition=cond[:, 0, 0], x=x, y=y))
    check_tf(tmp_path, fn, [C, complex_input((2, 3, 4), seed=3)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul(tmp_path, dtype):
    def fn(x, y):
        return (tf.matmul(x[0], y[0]), tf.matmul(x[0], y[0], transpose_a=True, transpose_b=True),
                tf.matmul(x, y), raw.BatchMatMulV2(x=x, y=y, adj_x=True), raw.BatchMatMulV2(x=y, y=x, adj_y=True))
    check_tf(tmp_path, fn, [complex_input((2, 3, 3), dtype), complex_input((2, 3, 3), dtype, seed=4)])


@pytest.mark.parametrize("spec", ["x0[2,3,4]", "x0[2,3,4,2]", "x0[?,3,4]", "x0[2,3,4]{f16}", "x0[?,3,4]{complex64}",
                                  "x0[2,3,4]{complex128}"])
def test_input_option_on_a_complex_input(tmp_path, spec):
    """--input gives a complex input's shape with or without the pairs' dim; another element type
    converts the pairs (the IR input is [..., 2] either way)."""
    tol = 1e-2 if "f16" in spec else 1e-4
    check_tf(tmp_path, lambda x: tf.signal.fft(x) * x, [C], input=spec, rtol=tol, atol=tol)


def test_unsupported_op_on_complex_is_refused(tmp_path):
    """An op that has no complex translation names the complex input instead of computing on the
    pairs as if they were real values."""
    path = write_pb(freeze(lambda x: tf.math.sin(x), specs_for([C])), tmp_path / "model.pb")
    with pytest.raises(ConversionError, match=r"Sin.*input 0 is a complex tensor"):
        convert_model(path, output_dir=str(tmp_path / "ir"))
