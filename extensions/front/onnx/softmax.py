"""ONNX Softmax, LogSoftmax, Hardmax and the losses NegativeLogLikelihoodLoss and
SoftmaxCrossEntropyLoss.

From opset 13 Softmax/LogSoftmax/Hardmax work along one axis (default -1). Before 13 they see
the input as 2-D [prod(dims[:axis]), prod(dims[axis:])] (axis default 1): a Reshape to
dims[:axis] + [-1], the op along the last axis and a Reshape back to the input shape."""
from __future__ import annotations

from typing import Callable

import numpy as np

from extensions.front.onnx.reduce import all_axes
from extensions.load.onnx.attributes import OnnxExtractor
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import (
    channel_bias,
    dim,
    i64,
    norm_axis,
    optional_source,
    rank_of,
    shape_of,
    typed_const,
)
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.types import np_dtype


def _along_axis(node: Node, b: OpBuilder, along: Callable[[Port, int], Port]) -> list[Port]:
    """``along(x, axis)`` at the node's ``axis``, on the 2-D view of the input before opset 13."""
    return along_axis_of_opset(node, b, node.in_port(0).get_source(), node.opset, along)


def along_axis_of_opset(node: Node, b: OpBuilder, x: Port, opset: int,
                        along: Callable[[Port, int], Port]) -> list[Port]:
    """``along(x, axis)`` at the node's ``axis`` as Softmax of ``opset`` reads it: on the 2-D view
    of x before opset 13."""
    flatten = opset < 13
    axis = int(OnnxExtractor.attr(node, "axis", 1 if flatten else -1))
    if not flatten:
        return [along(x, axis)]
    rank = rank_of(x, node)
    axis = norm_axis(axis, rank, node)
    if axis == rank - 1:
        return [along(x, axis)]
    flat = b.Reshape(x, i64([0] * axis + [-1]), special_zero=True)
    return [b.Reshape(along(flat, axis), shape_of(b, x), special_zero=False)]


@translator("onnx", "Softmax", "LogSoftmax")
def softmax(node: Node, b: OpBuilder) -> list[Port]:
    """Softmax-8 / LogSoftmax-5."""
    return _along_axis(node, b, lambda x, axis: b.op(node.fw_op, x, axis=axis))


@translator("onnx", "Hardmax")
def hardmax(node: Node, b: OpBuilder) -> list[Port]:
    """1 where the position along the axis is the first one holding the maximum, else 0."""

    def first_maximum(x: Port, axis: int) -> Port:
        rank = rank_of(x, node)
        axis = norm_axis(axis, rank, node)
        n = dim(b, x, axis)
        positions = b.Range(np.int64(0), n, np.int64(1))
        if axis < rank - 1:
            positions = b.Unsqueeze(positions, np.arange(1, rank - axis, dtype=np.int64))
        is_max = b.Equal(x, b.ReduceMax(x, i64(axis), keep_dims=True))
        first = b.ReduceMin(b.Select(is_max, positions, n), i64(axis), keep_dims=True)
        return b.Convert(b.Equal(positions, first), destination_type=x.data.get_dtype())

    return _along_axis(node, b, first_maximum)


def _loss(node: Node, b: OpBuilder, log_prob: Port) -> Port:
    """The loss of the log-probabilities ``log_prob`` [N, C, d...] for target [N, d...] and the
    optional weight [C], without gathers. The class picked by each target is a one-hot mask along
    axis 1: mask = (target[:, None] == [0..C-1] along axis 1); loss = -sum_C(mask ? log_prob : 0)
    * w, with w = sum_C(mask ? weight : 0) (1 without weights) and 0 where target ==
    ignore_index. ``reduction`` mean divides the sum of losses by the sum of w."""
    scores, target = node.in_port(0).get_source(), node.in_port(1).get_source()
    rank = rank_of(scores, node)
    reduction = OnnxExtractor.attr(node, "reduction", "mean")
    ignore_index = OnnxExtractor.attr(node, "ignore_index")
    zero = typed_const(b, 0, log_prob.data.get_dtype())
    classes = b.Range(np.int64(0), dim(b, scores, 1), np.int64(1), output_type=target.data.get_dtype())
    if rank > 2:
        classes = channel_bias(b, classes, rank - 2)                             # [C, 1, ...]
    mask = b.Equal(b.Unsqueeze(target, np.int64(1)), classes)                   # [N, C, d...]
    picked = b.ReduceSum(b.Select(mask, log_prob, zero), i64(1), keep_dims=False)
    weight = optional_source(node, 2)
    if weight is not None:
        if rank > 2:
            weight = channel_bias(b, weight, rank - 2)
        w = b.ReduceSum(b.Select(mask, weight, zero), i64(1), keep_dims=False)
    else:
        w = b.Convert(b.ReduceLogicalOr(mask, i64(1), keep_dims=False), destination_type=log_prob.data.get_dtype())
    if ignore_index is not None:
        ignored = b.Equal(target, np.array(int(ignore_index), np_dtype(target.data.get_dtype())))
        w = b.Select(ignored, zero, w)
    loss = b.Multiply(b.Negative(picked), w)
    if reduction != "none":
        loss = b.ReduceSum(loss, all_axes(b, loss), keep_dims=False)
        if reduction == "mean":
            loss = b.Divide(loss, b.ReduceSum(w, all_axes(b, w), keep_dims=False))
    return loss


@translator("onnx", "NegativeLogLikelihoodLoss")
def negative_log_likelihood_loss(node: Node, b: OpBuilder) -> list[Port]:
    """The loss of input 0 as log-probabilities (see ``_loss``)."""
    return [_loss(node, b, node.in_port(0).get_source())]


@translator("onnx", "SoftmaxCrossEntropyLoss")
def softmax_cross_entropy_loss(node: Node, b: OpBuilder) -> list[Port]:
    """The loss of LogSoftmax(scores, axis=1), and those log-probabilities as output 1."""
    log_prob = b.LogSoftmax(node.in_port(0).get_source(), axis=1)
    loss = _loss(node, b, log_prob)
    loss.node["name"] = node.name
    return [loss, log_prob]
