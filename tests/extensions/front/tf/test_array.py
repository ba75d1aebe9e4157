"""Layer tests of the TensorFlow array operations (extensions/front/tf/array.py)."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

raw = tf.raw_ops


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("out_idx", [tf.int32, tf.int64])
def test_unique(tmp_path, dtype, out_idx):
    x = np.array([4, 1, 4, 2, 1, 1, 7], dtype)
    check_tf(tmp_path / "u", lambda a: raw.Unique(x=a, out_idx=out_idx), [x])
    check_tf(tmp_path / "c", lambda a: raw.UniqueWithCounts(x=a, out_idx=out_idx), [x])


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("counts", [False, True])
def test_unique_v2_axis(tmp_path, axis, counts):
    x = np.array([[1, 2, 1, 2], [3, 4, 3, 5], [1, 2, 1, 2]], np.int32)
    op = raw.UniqueWithCountsV2 if counts else raw.UniqueV2
    check_tf(tmp_path, lambda a: op(x=a, axis=[axis], out_idx=tf.int64), [x])


def test_unique_v2_no_axis(tmp_path):
    check_tf(tmp_path, lambda a: raw.UniqueV2(x=a, axis=np.zeros(0, np.int64)), [np.array([3.0, 1, 3, 2], np.float32)])


@pytest.mark.parametrize("shift,axis", [(2, 0), ([1, -2], [0, 1]), (-1, -1), ([3, 1], [1, 1])])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_roll(tmp_path, shift, axis, dtype):
    check_tf(tmp_path, lambda a: raw.Roll(input=a, shift=shift, axis=axis), [random((3, 4, 2), dtype)])


def test_roll_shift_input_i64(tmp_path):
    check_tf(tmp_path, lambda a, s: raw.Roll(input=a, shift=s, axis=np.array([1], np.int64)),
             [random((2, 5)), np.array([3], np.int64)])


@pytest.mark.parametrize("seq_dim,batch_dim", [(1, 0), (0, 1), (2, 0)])
@pytest.mark.parametrize("len_type", [np.int32, np.int64])
def test_reverse_sequence(tmp_path, seq_dim, batch_dim, len_type):
    x = random((4, 4, 4), np.float32)
    lengths = np.array([1, 3, 4, 2][:x.shape[batch_dim]], len_type)
    check_tf(tmp_path, lambda a, n: raw.ReverseSequence(input=a, seq_lengths=n, seq_dim=seq_dim, batch_dim=batch_dim),
             [x, lengths])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_, np.float16])
def test_reverse_sequence_types(tmp_path, dtype):
    check_tf(tmp_path, lambda a, n: raw.ReverseSequence(input=a, seq_lengths=n, seq_dim=1),
             [random((3, 4), dtype), np.array([4, 0, 2], np.int64)])


@pytest.mark.parametrize("dims", [[True, False, True], [False, False, False], [False, True, False]])
def test_reverse_v1(tmp_path, dims):
    check_tf(tmp_path, lambda a: raw.Reverse(tensor=a, dims=dims), [random((2, 3, 4), np.int32)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("num", [1, 2, 7])
def test_lin_space(tmp_path, dtype, num):
    check_tf(tmp_path, lambda a, b: raw.LinSpace(start=a, stop=b, num=num),
             [np.array(-1.5, dtype), np.array(4.0, dtype)])


def test_lin_space_num_input(tmp_path):
    check_tf(tmp_path, lambda a, b, n: raw.LinSpace(start=a, stop=b, num=n),
             [np.array(2.0, np.float32), np.array(-3.0, np.float32), np.array(5, np.int64)])


@pytest.mark.parametrize("lower,upper", [(0, -1), (-1, 0), (1, 2), (0, 0), (-1, -1)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_matrix_band_part(tmp_path, lower, upper, dtype):
    check_tf(tmp_path, lambda a: raw.MatrixBandPart(input=a, num_lower=lower, num_upper=upper),
             [random((2, 4, 5), dtype)])


def test_matrix_band_part_bounds_input(tmp_path):
    check_tf(tmp_path, lambda a, lo, up: raw.MatrixBandPart(input=a, num_lower=lo, num_upper=up),
             [random((5, 3)), np.array(1, np.int64), np.array(0, np.int64)])


@pytest.mark.parametrize("s0,s1", [([2, 1, 3], [4, 1]), ([1], [5, 2]), ([3, 0], [1, 1]), ([2, 2], [2, 2])])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_broadcast_args(tmp_path, s0, s1, dtype):
    check_tf(tmp_path, lambda a, b: raw.BroadcastArgs(s0=a, s1=b), [np.array(s0, dtype), np.array(s1, dtype)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.float64])
def test_bucketize(tmp_path, dtype):
    x = np.array([[-5, 10000, 0.5], [150, 10, 3], [5, 100, -0.1]]).astype(dtype)
    check_tf(tmp_path, lambda a: raw.Bucketize(input=a, boundaries=[0.0, 0.5, 10.0, 100.0]), [x])


def test_bucketize_nan_is_past_every_boundary(tmp_path):
    check_tf(tmp_path, lambda a: raw.Bucketize(input=a, boundaries=[-1.0, 2.0]),
             [np.array([np.nan, -np.inf, np.inf, 2.0], np.float32)])


def test_bucketize_many_boundaries_keep_their_precision(tmp_path):
    """With f16 compression on (the default), the boundaries stay f32: 0.1 in f16 is 0.09998."""
    bounds = [i / 10 for i in range(40)]
    check_tf(tmp_path, lambda a: raw.Bucketize(input=a, boundaries=bounds),
             [np.array([0.0999, 0.1, 0.1001, 2.5, 3.9, 4.0], np.float32)], compress_to_fp16=True)


def test_bucketize_no_boundaries(tmp_path):
    check_tf(tmp_path, lambda a: raw.Bucketize(input=a, boundaries=[]), [random((2, 3))])


@pytest.mark.parametrize("op", ["LowerBound", "UpperBound"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("out_type", [tf.int32, tf.int64])
def test_search_sorted(tmp_path, op, dtype, out_type):
    sequence = np.array([[0, 1, 3, 3, 5, 7], [2, 4, 6, 6, 8, 10]], dtype)
    values = np.array([[3, 6, 9, -1], [3, 6, 10, 11]], dtype)
    check_tf(tmp_path, lambda s, v: getattr(raw, op)(sorted_inputs=s, values=v, out_type=out_type), [sequence, values])


def test_search_sorted_constant_sequence_keeps_its_precision(tmp_path):
    """With f16 compression on (the default), a sequence of 20 f32 values stays f32."""
    sequence = np.arange(20, dtype=np.float32)[None] / 10
    check_tf(tmp_path, lambda v: raw.LowerBound(sorted_inputs=sequence, values=v),
             [np.array([[0.0999, 0.1, 0.1001, 1.9]], np.float32)], compress_to_fp16=True)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_invert_permutation(tmp_path, dtype):
    check_tf(tmp_path, lambda a: raw.InvertPermutation(x=a), [np.array([3, 0, 4, 1, 2], dtype)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("out_idx", [tf.int32, tf.int64])
def test_list_diff(tmp_path, dtype, out_idx):
    x, y = np.array([1, 2, 3, 4, 5, 6, 2], dtype), np.array([1, 3, 5, 9], dtype)
    check_tf(tmp_path, lambda a, b: raw.ListDiff(x=a, y=b, out_idx=out_idx), [x, y])


@pytest.mark.parametrize("out_type", [tf.int32, tf.int64])
def test_shape_n(tmp_path, out_type):
    check_tf(tmp_path, lambda a, b: raw.ShapeN(input=[a, b, a], out_type=out_type),
             [random((2, 3)), random((4, 1, 5))], dynamic_batch=True)


@pytest.mark.parametrize("indices", [np.array(22), np.array([0, 5, 23])])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_unravel_index(tmp_path, indices, dtype):
    check_tf(tmp_path, lambda a, d: raw.UnravelIndex(indices=a, dims=d),
             [indices.astype(dtype), np.array([2, 3, 4], dtype)])



def test_dynamic_batch(tmp_path):
    check_tf(tmp_path / "roll", lambda a: raw.Roll(input=a, shift=[1, -1], axis=[0, 1]), [random((3, 4))],
             dynamic_batch=True)
    check_tf(tmp_path / "unique", lambda a: raw.UniqueWithCounts(x=a), [np.array([3, 1, 3, 2], np.int32)],
             dynamic_batch=True)
    check_tf(tmp_path / "band", lambda a: raw.MatrixBandPart(input=a, num_lower=1, num_upper=0), [random((2, 3, 3))],
             dynamic_batch=True)
    check_tf(tmp_path / "listdiff", lambda a, b: raw.ListDiff(x=a, y=b), [np.array([1, 2, 3, 4], np.int32),
                                                                          np.array([2, 4], np.int32)],
             dynamic_batch=True)
