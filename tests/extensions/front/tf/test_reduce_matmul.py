"""Layer tests of the TensorFlow reductions, ArgMax/ArgMin, TopKV2, Softmax, MatMul,
BatchMatMul and Einsum."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random, renamed_op

raw = tf.raw_ops

X = random((2, 3, 4), seed=1)

REDUCTIONS = {"Sum": raw.Sum, "Mean": raw.Mean, "Max": raw.Max, "Min": raw.Min, "Prod": raw.Prod,
              "EuclideanNorm": raw.EuclideanNorm}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("keep_dims", [False, True])
def test_reduction(tmp_path, name, keep_dims):
    op = REDUCTIONS[name]
    check_tf(tmp_path, lambda x: op(input=x, axis=[0, -1], keep_dims=keep_dims), [X])


@pytest.mark.parametrize("op", [raw.All, raw.Any])
def test_logical_reduction(tmp_path, op):
    check_tf(tmp_path, lambda x: op(input=x > 0, axis=1, keep_dims=False), [X])


@pytest.mark.parametrize("op,output_type", [(raw.ArgMax, t) for t in (tf.int16, tf.uint16, tf.int32, tf.int64)]
                         + [(raw.ArgMin, t) for t in (tf.int32, tf.int64)])
def test_arg_min_max(tmp_path, op, output_type):
    check_tf(tmp_path, lambda x: op(input=x, dimension=1, output_type=output_type), [X])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
def test_arg_max_types(tmp_path, dtype):
    check_tf(tmp_path, lambda x: raw.ArgMax(input=x, dimension=-1, output_type=tf.int16), [random((3, 5), dtype)])


def test_top_k(tmp_path):
    def fn(x):
        values, indices = tf.math.top_k(x, 3)
        return values, indices
    check_tf(tmp_path, fn, [X])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_top_k_v1(tmp_path, dtype):
    """TopK (v1, ``k`` an attribute) is gone from TensorFlow 2's op set: the graph of TopKV2 is
    rewritten to it and compared with TopKV2's output."""
    x = np.random.default_rng(0).permutation(24).reshape(2, 12).astype(dtype)

    check_tf(tmp_path, lambda a: raw.TopKV2(input=a, k=4, sorted=True), [x],
             graph_patch=renamed_op("TopKV2", "TopK", drop_inputs_from=1, k=4))


@pytest.mark.parametrize("op", [raw.Softmax, raw.LogSoftmax])
def test_softmax(tmp_path, op):
    check_tf(tmp_path, lambda x: op(logits=x), [X])


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul(tmp_path, ta, tb):
    a = random((5, 3) if ta else (3, 5), seed=2)
    b = random((4, 5) if tb else (5, 4), seed=3)
    check_tf(tmp_path, lambda x, y: raw.MatMul(a=x, b=y, transpose_a=ta, transpose_b=tb), [a, b])


@pytest.mark.parametrize("op", [raw.BatchMatMul, raw.BatchMatMulV2, raw.BatchMatMulV3])
def test_batch_matmul(tmp_path, op):
    a, b = random((2, 4, 3), seed=4), random((2, 5, 4), seed=5)
    kwargs = {"Tout": tf.float32} if op is raw.BatchMatMulV3 else {}
    check_tf(tmp_path, lambda x, y: op(x=x, y=y, adj_x=True, adj_y=True, **kwargs), [a, b])


def test_batch_matmul_broadcast(tmp_path):
    check_tf(tmp_path, lambda x, y: raw.BatchMatMulV2(x=x, y=y), [random((2, 1, 3, 4)), random((3, 4, 2), seed=1)])


@pytest.mark.parametrize("equation", ["abc,cd->abd", "abc,adc->abd", "bij,bjk->bik", "ij->ji", "abcd,cde->abe"])
def test_einsum(tmp_path, equation):
    lhs = equation.split("->")[0].split(",")
    shapes = {"a": 2, "b": 3, "c": 4, "d": 5, "e": 2, "i": 3, "j": 4, "k": 2}
    inputs = [random(tuple(shapes[c] for c in term), seed=i) for i, term in enumerate(lhs)]
    check_tf(tmp_path, lambda *xs: tf.einsum(equation, *xs), inputs)


def test_integer_inputs(tmp_path):
    x = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    check_tf(tmp_path, lambda a: tf.reduce_sum(a * 2, axis=2) + tf.cast(tf.argmax(a, axis=2), tf.int64), [x])
