"""Lowering of ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss without gathers.

The class picked by each target is a one-hot mask along axis 1: mask = (target[:, None] ==
[0..C-1] along axis 1); loss = -sum_C(mask ? input : 0) * w, with w = sum_C(mask ? weight : 0)
(1 without weights) and 0 where target == ignore_index. ``mean`` divides the sum of losses by the
sum of w. SoftmaxCrossEntropyLoss is the same on LogSoftmax(scores, axis=1)."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from extensions.middle.onnx_reduce import all_axes
from extensions.middle.onnx_softmax import axis_length
from mo.graph.builder import OpBuilder
from mo.graph.building import input_rank, typed_const
from mo.utils.types import np_dtype


def along_axis1(b: OpBuilder, vector, rank: int):
    """A [C] vector as [C, 1, ...] so that it runs along axis 1 of a rank-``rank`` tensor."""
    if rank <= 2:
        return vector
    return b.Unsqueeze(vector, np.arange(1, rank - 1, dtype=np.int64))


class LossToOpset(MiddleReplaceOp):
    op = "onnx::Loss"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        target = node.in_port(1).get_source()
        rank = input_rank(node)
        log_prob = b.LogSoftmax(x, axis=1) if node.variant == "SCE" else x
        zero = typed_const(b, 0, x.data.get_dtype())
        classes = b.Range(np.int64(0), axis_length(b, x, 1), np.int64(1), output_type=target.data.get_dtype())
        classes = along_axis1(b, classes, rank)                                      # [C, 1, ...]
        mask = b.Equal(b.Unsqueeze(target, np.int64(1)), classes)                   # [N, C, d...]
        axis1 = np.array([1], np.int64)
        picked = b.ReduceSum(b.Select(mask, log_prob, zero), axis1, keep_dims=False)
        if node.is_in_port_connected(2):
            weight = along_axis1(b, node.in_port(2).get_source(), rank)
            w = b.ReduceSum(b.Select(mask, weight, zero), axis1, keep_dims=False)
        else:
            w = b.ConvertLike(b.ReduceLogicalOr(mask, axis1, keep_dims=False), x)
        if node.ignore_index is not None:
            ignored = b.Equal(target, np.array(node.ignore_index, np_dtype(target.data.get_dtype())))
            w = b.Select(ignored, zero, w)
        loss = b.Multiply(b.Negative(picked), w)
        if node.reduction != "none":
            loss = b.ReduceSum(loss, all_axes(b, loss), keep_dims=False)
            if node.reduction == "mean":
                loss = b.Divide(loss, b.ReduceSum(w, all_axes(b, w), keep_dims=False))
        loss.node["name"] = node.name
        return [loss, log_prob if node.variant == "SCE" else None]
