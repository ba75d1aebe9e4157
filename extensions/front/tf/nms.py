"""TensorFlow NonMaxSuppression V1-V5 (NonMaxSuppression-9 over one batch and one class) and
CombinedNonMaxSuppression.

TensorFlow's boxes [N, 4] (y1, x1, y2, x2, any two opposite corners) and scores [N] become [1, N, 4]
and [1, 1, N]; the selected box indices are column 2 of the op's rows, in selection order (by
descending score, soft-NMS scores after their decay). V4 and V5 with ``pad_to_max_output_size``
pad the indices with zeros to ``max_output_size``; V4 and V5 also give the number selected, V5 the
selected (decayed) scores."""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import as_scalar, convert, dim, i64, typed_const
from mo.graph.port import Port

# op type -> the inputs it has after boxes and scores (the others take their TensorFlow default)
INPUTS = {
    "NonMaxSuppression": ("max_output_size",),
    "NonMaxSuppressionV2": ("max_output_size", "iou_threshold"),
    "NonMaxSuppressionV3": ("max_output_size", "iou_threshold", "score_threshold"),
    "NonMaxSuppressionV4": ("max_output_size", "iou_threshold", "score_threshold"),
    "NonMaxSuppressionV5": ("max_output_size", "iou_threshold", "score_threshold", "soft_nms_sigma"),
}


def _threshold(b: OpBuilder, value, dtype: str) -> Port:
    """A 0-d threshold input in the boxes' type."""
    port = value if isinstance(value, Port) else typed_const(b, value, dtype)
    return as_scalar(b, convert(b, port, dtype))


def strict_iou(b: OpBuilder, threshold: Port) -> Port:
    """TensorFlow suppresses a box whose IoU is above the threshold, the opset op one whose IoU
    reaches it: the threshold is raised by a few ulps."""
    dtype = threshold.data.get_dtype()
    tiny = float(np.finfo(np.float16 if dtype == "f16" else np.float32).tiny)
    return b.Add(b.Multiply(threshold, typed_const(b, 1 + 2 ** -9 if dtype == "f16" else 1 + 2 ** -22, dtype)),
                 typed_const(b, tiny, dtype))


@translator("tf", *INPUTS)
def non_max_suppression(node, b):
    boxes, scores = node.in_port(0).get_source(), node.in_port(1).get_source()
    for port, rank, what in ((boxes, 2, "boxes"), (scores, 1, "scores")):
        if port.data.get_rank() not in (None, rank):
            raise ConversionError(f"its {what} have rank {port.data.get_rank()} where TensorFlow takes rank {rank}.")
    dtype = boxes.data.get_dtype()
    given = {name: node.in_port(i + 2).get_source() for i, name in enumerate(INPUTS[node.fw_op])}
    limit = as_scalar(b, convert(b, given["max_output_size"], "i64"))
    iou = _threshold(b, given.get("iou_threshold", float(TfExtractor.attr(node, "iou_threshold", 0.5))), dtype)
    floor = _threshold(b, given.get("score_threshold", float(np.finfo(np.float32).min)), dtype)
    sigma = _threshold(b, given.get("soft_nms_sigma", 0.0), dtype)
    # the op clamps a negative limit to 0 as TensorFlow does
    limit = b.Maximum(limit, np.int64(0))
    selected, selected_scores, count = b.NonMaxSuppression(
        b.Unsqueeze(boxes, i64(0)), b.Unsqueeze(b.Unsqueeze(convert(b, scores, dtype), i64(0)), i64(0)), limit,
        strict_iou(b, iou), floor, sigma, name=node.name, box_encoding="corner", sort_result_descending=True,
        output_type="i32")
    indices = b.Squeeze(b.Gather(selected, i64(2), np.int64(1)), i64(1))
    kept = b.Squeeze(b.Gather(selected_scores, i64(2), np.int64(1)), i64(1))
    count = as_scalar(b, count)
    if TfExtractor.attr(node, "pad_to_max_output_size", False):
        indices = _padded(b, indices, limit)
        kept = _padded(b, kept, limit)
    if node.fw_op == "NonMaxSuppressionV5":
        return [indices, convert(b, kept, scores.data.get_dtype()), count]
    if node.fw_op == "NonMaxSuppressionV4":
        return [indices, count]
    return [indices]


def _padded(b: OpBuilder, values: Port, size: Port) -> Port:
    """1-D ``values`` followed by zeros up to ``size`` elements."""
    zeros = b.Broadcast(typed_const(b, 0, values.data.get_dtype()), b.Reshape(size, i64(1), special_zero=False))
    return b.Slice(b.Concat(values, zeros, axis=0), i64(0), b.Reshape(size, i64(1), special_zero=False), i64(1),
                   i64(0))


@translator("tf", "CombinedNonMaxSuppression")
def combined_non_max_suppression(node, b):
    """Per batch and class NMS, then per batch the best ``max_total_size`` of all classes' boxes.

    Each (batch, class) pair is one batch of NonMaxSuppression-9 (boxes [B, N, q, 4] broadcast to
    every class, so class-specific boxes work too); the selected rows' scores are spread over a
    [B, K] matrix (-inf outside the row's batch) whose TopK picks each batch's boxes. Outputs
    boxes [B, D, 4] (clipped to [0, 1] with ``clip_boxes``), scores [B, D], classes [B, D] (f32)
    and the number valid [B], D being max_total_size, or with ``pad_per_class``
    min(max_total_size, max_output_size_per_class * classes); the rows past the valid ones are 0."""
    boxes, scores, per_class, total, iou, floor = (node.in_port(i).get_source() for i in range(6))
    if boxes.data.get_rank() not in (None, 4) or scores.data.get_rank() not in (None, 3):
        raise ConversionError("its boxes must have rank 4 [batch, boxes, q, 4] and its scores rank 3 "
                              "[batch, boxes, classes].")
    batch, count, classes = dim(b, scores, 0), dim(b, scores, 1), dim(b, scores, 2)
    per_class = as_scalar(b, convert(b, per_class, "i64"))
    full = b.Concat(*(b.Reshape(d, i64(1), special_zero=False) for d in (batch, count, classes)), i64(4), axis=0)
    flat_boxes = b.Reshape(b.Transpose(b.Broadcast(boxes, full), i64(0, 2, 1, 3)), b.Concat(
        i64(-1), b.Reshape(count, i64(1), special_zero=False), i64(4), axis=0), special_zero=False)   # [B*C, N, 4]
    flat_scores = b.Unsqueeze(b.Reshape(b.Transpose(scores, i64(0, 2, 1)), b.Concat(
        i64(-1), b.Reshape(count, i64(1), special_zero=False), axis=0), special_zero=False), i64(1))  # [B*C, 1, N]
    selected, selected_scores, _ = b.NonMaxSuppression(
        flat_boxes, flat_scores, b.Maximum(per_class, np.int64(0)), strict_iou(b, _threshold(b, iou, "f32")),
        _threshold(b, floor, "f32"), name=node.name, box_encoding="corner", sort_result_descending=False,
        output_type="i64")
    pair, box = (b.Gather(selected, i64(k), np.int64(1)) for k in (0, 2))                # [K, 1] each
    owner = b.Divide(b.Squeeze(pair, i64(1)), classes)
    score = b.Squeeze(b.Gather(selected_scores, i64(2), np.int64(1)), i64(1))            # [K] f32
    lowest = np.float32(-np.inf)
    rows = b.Unsqueeze(b.Range(np.int64(0), batch, np.int64(1), output_type="i64"), i64(1))
    spread = b.Select(b.Equal(rows, b.Unsqueeze(owner, i64(0))), b.Unsqueeze(score, i64(0)), lowest)   # [B, K]
    size = as_scalar(b, convert(b, total, "i64"))
    if TfExtractor.attr(node, "pad_per_class", False):
        size = b.Minimum(size, b.Multiply(per_class, classes))
    size = b.Maximum(size, np.int64(0))
    padding = b.Broadcast(lowest, b.Concat(b.Reshape(batch, i64(1), special_zero=False),
                                           b.Reshape(size, i64(1), special_zero=False), axis=0))
    top, picked = b.TopK(b.Concat(spread, padding, axis=1), size, axis=1, mode="max", sort="value",
                         index_element_type="i64")                                       # [B, D]
    valid = b.Greater(top, lowest)
    # picks of the padding point past the K rows: one zero row is appended for them
    pair = b.Concat(b.Squeeze(pair, i64(1)), i64(0), axis=0)
    box = b.Concat(b.Squeeze(box, i64(1)), i64(0), axis=0)
    picked = b.Minimum(picked, b.Subtract(b.ShapeOf(pair), i64(1)))
    pair, box = b.Gather(pair, picked, np.int64(0)), b.Gather(box, picked, np.int64(0))  # [B, D] each
    out_boxes = b.GatherND(flat_boxes, b.Concat(b.Unsqueeze(pair, i64(2)), b.Unsqueeze(box, i64(2)), axis=2))
    if TfExtractor.attr(node, "clip_boxes", True):
        out_boxes = b.Clamp(out_boxes, min=0.0, max=1.0)
    out_boxes = b.Select(b.Unsqueeze(valid, i64(2)), out_boxes, np.float32(0))
    out_classes = b.Select(valid, b.Convert(b.FloorMod(pair, classes), destination_type="f32"), np.float32(0))
    out_scores = b.Select(valid, top, np.float32(0))
    return [out_boxes, out_scores, out_classes, b.ReduceSum(b.Convert(valid, destination_type="i32"), i64(1),
                                                             keep_dims=False)]
