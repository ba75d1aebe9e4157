"""Layer tests of TensorFlow's NonMaxSuppression V1-V5 over their thresholds, padding, soft NMS
and element types."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf

raw = tf.raw_ops


def boxes_and_scores(n=30, seed=0, dtype=np.float32):
    """Clustered boxes (many overlaps), corners in either order, distinct scores."""
    rng = np.random.default_rng(seed)
    centers = rng.uniform(0.2, 0.8, (4, 2))[rng.integers(0, 4, n)] + rng.normal(0, 0.05, (n, 2))
    sizes = rng.uniform(0.1, 0.3, (n, 2))
    low, high = centers - sizes / 2, centers + sizes / 2
    boxes = np.concatenate([low, high], axis=1)
    flip = rng.random(n) < 0.3
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    scores = rng.permutation(n) / n + rng.uniform(0, 0.01, n)
    return boxes.astype(dtype), scores.astype(dtype)


BOXES, SCORES = boxes_and_scores()


@pytest.mark.parametrize("limit", [5, 100])
@pytest.mark.parametrize("iou", [0.5, 0.2])
def test_nms_v1(tmp_path, limit, iou):
    check_tf(tmp_path, lambda b, s: raw.NonMaxSuppression(boxes=b, scores=s, max_output_size=limit,
                                                          iou_threshold=iou), [BOXES, SCORES])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_nms_v2(tmp_path, dtype):
    boxes, scores = boxes_and_scores(dtype=dtype, seed=1)
    check_tf(tmp_path, lambda b, s: raw.NonMaxSuppressionV2(boxes=b, scores=s, max_output_size=10,
                                                            iou_threshold=np.array(0.4, dtype)), [boxes, scores])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("score_threshold", [0.3, -1.0])
def test_nms_v3(tmp_path, dtype, score_threshold):
    boxes, scores = boxes_and_scores(dtype=dtype, seed=2)
    check_tf(tmp_path, lambda b, s: raw.NonMaxSuppressionV3(
        boxes=b, scores=s, max_output_size=20, iou_threshold=np.array(0.5, dtype),
        score_threshold=np.array(score_threshold, dtype)), [boxes, scores])


def test_nms_v3_computed_limit(tmp_path):
    """The limit and thresholds are model inputs."""
    def fn(b, s, limit, iou, floor):
        return raw.NonMaxSuppressionV3(boxes=b, scores=s, max_output_size=limit, iou_threshold=iou,
                                       score_threshold=floor)
    check_tf(tmp_path, fn, [BOXES, SCORES, np.array(7, np.int32), np.array(0.3, np.float32),
                            np.array(0.2, np.float32)])


@pytest.mark.parametrize("pad", [False, True])
@pytest.mark.parametrize("limit", [6, 40])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_nms_v4(tmp_path, pad, limit, dtype):
    boxes, scores = boxes_and_scores(dtype=dtype, seed=3)
    check_tf(tmp_path, lambda b, s: raw.NonMaxSuppressionV4(
        boxes=b, scores=s, max_output_size=limit, iou_threshold=np.array(0.5, dtype),
        score_threshold=np.array(0.1, dtype), pad_to_max_output_size=pad), [boxes, scores])


@pytest.mark.parametrize("sigma,iou", [(0.0, 0.6), (0.5, 0.6), (0.5, 0.3), (0.2, 1.0)])
@pytest.mark.parametrize("pad", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_nms_v5(tmp_path, sigma, iou, pad, dtype):
    boxes, scores = boxes_and_scores(dtype=dtype, seed=4)
    tol = 1e-2 if dtype == np.float16 else 1e-4
    check_tf(tmp_path, lambda b, s: raw.NonMaxSuppressionV5(
        boxes=b, scores=s, max_output_size=12, iou_threshold=np.array(iou, dtype),
        score_threshold=np.array(0.05, dtype), soft_nms_sigma=np.array(sigma, dtype), pad_to_max_output_size=pad),
        [boxes, scores], atol=tol, rtol=tol)


def combined_inputs(batch=2, n=20, classes=3, q=1, seed=5):
    boxes = np.stack([np.stack([boxes_and_scores(n, seed + 10 * k + j)[0] for j in range(q)], axis=1)
                      for k in range(batch)])                                   # [B, N, q, 4]
    rng = np.random.default_rng(seed)
    scores = rng.permutation(batch * n * classes).reshape(batch, n, classes) / (batch * n * classes)
    return (boxes * 1.3 - 0.15).astype(np.float32), scores.astype(np.float32)   # some corners outside [0, 1]


@pytest.mark.parametrize("q", [1, 3])
@pytest.mark.parametrize("per_class,total", [(4, 7), (3, 20), (10, 5)])
@pytest.mark.parametrize("pad_per_class", [False, True])
@pytest.mark.parametrize("clip", [True, False])
def test_combined_nms(tmp_path, q, per_class, total, pad_per_class, clip):
    boxes, scores = combined_inputs(q=q)
    check_tf(tmp_path, lambda b, s: raw.CombinedNonMaxSuppression(
        boxes=b, scores=s, max_output_size_per_class=per_class, max_total_size=total, iou_threshold=0.5,
        score_threshold=0.2, pad_per_class=pad_per_class, clip_boxes=clip), [boxes, scores])


def test_combined_nms_dynamic_batch(tmp_path):
    boxes, scores = combined_inputs(batch=3)
    check_tf(tmp_path, lambda b, s: raw.CombinedNonMaxSuppression(
        boxes=b, scores=s, max_output_size_per_class=5, max_total_size=8, iou_threshold=0.4, score_threshold=0.0),
        [boxes, scores], dynamic_batch=True)


@pytest.mark.parametrize("score_threshold", [0.97, 2.0])
def test_combined_nms_few_or_no_boxes(tmp_path, score_threshold):
    """Batches with no box over the threshold, and no box selected at all."""
    boxes, scores = combined_inputs()
    check_tf(tmp_path, lambda b, s: raw.CombinedNonMaxSuppression(
        boxes=b, scores=s, max_output_size_per_class=4, max_total_size=6, iou_threshold=0.5,
        score_threshold=score_threshold), [boxes, scores])
