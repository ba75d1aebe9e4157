"""TensorFlow NonMaxSuppression V1-V5: NonMaxSuppression-9 over one batch and one class.

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
from mo.graph.building import as_scalar, convert, i64, typed_const
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
