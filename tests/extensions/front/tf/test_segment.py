"""Layer tests of the TensorFlow segment reductions (extensions/front/tf/segment.py)."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

raw = tf.raw_ops

DATA = {np.float32: random((6, 3), seed=1), np.int32: random((6, 3), np.int32, seed=2, low=-9, high=9),
        np.float64: random((6, 3), np.float64, seed=3)}
SORTED_IDS = np.array([0, 0, 1, 3, 3, 3], np.int32)  # segment 2 is empty


@pytest.mark.parametrize("op", ["SegmentSum", "SegmentProd", "SegmentMax", "SegmentMin", "SegmentMean"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_segment(tmp_path, op, dtype):
    check_tf(tmp_path, lambda d, s: getattr(raw, op)(data=d, segment_ids=s), [DATA[dtype], SORTED_IDS])


@pytest.mark.parametrize("op", ["SegmentSum", "SegmentMean", "UnsortedSegmentSum"])
def test_segment_f16(tmp_path, op):
    kwargs = {"num_segments": 4} if op.startswith("Unsorted") else {}
    check_tf(tmp_path, lambda d, s: getattr(raw, op)(data=d, segment_ids=s, **kwargs),
             [random((6, 3), np.float16), SORTED_IDS], rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("ids_type", [np.int32, np.int64])
def test_segment_sum_3d_ids_type(tmp_path, ids_type):
    check_tf(tmp_path, lambda d, s: raw.SegmentSum(data=d, segment_ids=s),
             [random((5, 2, 3), np.float64), np.array([0, 1, 1, 2, 4], ids_type)])


# f64 Max/Min are left out: the CPU plugin computes f64 in f32, so the empty segment's lowest f64
# comes out as the lowest f32.
@pytest.mark.parametrize("op,dtype", [(op, t) for op in ("UnsortedSegmentSum", "UnsortedSegmentProd")
                                      for t in (np.float32, np.int32, np.float64)]
                         + [(op, t) for op in ("UnsortedSegmentMax", "UnsortedSegmentMin")
                            for t in (np.float32, np.int32)])
def test_unsorted_segment(tmp_path, op, dtype):
    """Segment 3 of 5 is empty; id -1 is dropped."""
    ids = np.array([2, 0, -1, 2, 4, 1], np.int32)
    check_tf(tmp_path, lambda d, s: getattr(raw, op)(data=d, segment_ids=s, num_segments=5), [DATA[dtype], ids])


@pytest.mark.parametrize("num_type", [np.int32, np.int64])
def test_unsorted_segment_sum_2d_ids(tmp_path, num_type):
    """ids [2, 3] over data [2, 3, 4]: rows of 4; num_segments a model input."""
    ids = np.array([[1, 0, 1], [3, 3, 0]], np.int64)
    check_tf(tmp_path, lambda d, s, n: raw.UnsortedSegmentSum(data=d, segment_ids=s, num_segments=n),
             [random((2, 3, 4)), ids, np.array(4, num_type)])


@pytest.mark.parametrize("op", ["SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_segment(tmp_path, op, dtype):
    indices = np.array([0, 2, 2, 5, 1], np.int32)
    ids = np.array([0, 0, 2, 2, 3], np.int32)  # segment 1 empty
    check_tf(tmp_path, lambda d, i, s: getattr(raw, op)(data=d, indices=i, segment_ids=s),
             [DATA[dtype], indices, ids])


def test_sparse_segment_sum_int(tmp_path):
    check_tf(tmp_path, lambda d, i, s: raw.SparseSegmentSum(data=d, indices=i, segment_ids=s),
             [DATA[np.int32], np.array([3, 1, 1], np.int64), np.array([0, 1, 1], np.int64)])


@pytest.mark.parametrize("op", ["SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments",
                                "SparseSegmentSqrtNWithNumSegments"])
def test_sparse_segment_with_num_segments(tmp_path, op):
    check_tf(tmp_path, lambda d, i, s: getattr(raw, op)(data=d, indices=i, segment_ids=s, num_segments=6),
             [DATA[np.float32], np.array([0, 2, 4], np.int32), np.array([1, 1, 3], np.int32)])


def test_dynamic_batch(tmp_path):
    """Rows of unknown count: the segment count and the row shape stay computed."""
    check_tf(tmp_path / "sorted", lambda d, s: raw.SegmentMean(data=d, segment_ids=s), [DATA[np.float32], SORTED_IDS],
             dynamic_batch=True)
    check_tf(tmp_path / "unsorted", lambda d, s: raw.UnsortedSegmentMax(data=d, segment_ids=s, num_segments=5),
             [DATA[np.float32], np.array([2, 0, -1, 2, 4, 1], np.int32)], dynamic_batch=True)
    check_tf(tmp_path / "sparse", lambda d, i, s: raw.SparseSegmentSqrtN(data=d, indices=i, segment_ids=s),
             [DATA[np.float32], np.array([0, 2, 5], np.int32), np.array([0, 1, 1], np.int32)], dynamic_batch=True)
