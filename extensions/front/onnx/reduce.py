"""ONNX Reduce* operators -> opset reductions.

Axes are an attribute before opset 13 (ReduceSum) / 18 (the others) and an optional input after.
Empty axes reduce every axis (or nothing, with ``noop_with_empty_axes``). ReduceLogSum,
ReduceLogSumExp and ReduceSumSquare are ReduceSum with Log/Exp/Multiply around it;
ReduceMax/ReduceMin of booleans run on u8 (the CPU plugin's ReduceLogicalOr/And want constant
axes)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import typed_const
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.shape import normalize_axes
from mo.utils.types import is_float

# ONNX reduction -> the opset reduction of the same meaning.
_DIRECT = {"ReduceSum": "ReduceSum", "ReduceMean": "ReduceMean", "ReduceProd": "ReduceProd", "ReduceL1": "ReduceL1",
           "ReduceL2": "ReduceL2"}
# The value of a max/min over no elements or over infinities only.
_EXTREMA = {"ReduceMax": -np.inf, "ReduceMin": np.inf}

# (builder, input, axes, keep_dims) -> the reduced tensor
Reduction = Callable[[OpBuilder, Port, "np.ndarray | Port", bool], Port]


def all_axes(b: OpBuilder, x: Port) -> np.ndarray | Port:
    """[0, 1, ..., rank-1] of ``x``: a constant when the rank is known, else Range over its rank."""
    rank = x.data.get_rank()
    if rank is not None:
        return np.arange(rank, dtype=np.int64)
    rank_1d = b.ShapeOf(b.ShapeOf(x, output_type="i64"), output_type="i64")
    return b.Range(np.int64(0), b.Squeeze(rank_1d, np.int64(0)), np.int64(1), output_type="i64")


def drop_reduced_dims(b: OpBuilder, reduced: Port, x: Port, axes: Port, rank: int, count: int) -> Port:
    """``reduced`` (kept dims, rank ``rank``) without the ``count`` run-time ``axes``, by a Reshape
    to a target of static length rank - count, so the result has a static rank (the runtime gives
    a Reduce with run-time axes and no kept dims a dynamic rank, which the CPU plugin refuses).
    target[j] = the j-th dim of x not in axes, picked with a prefix count of the kept dims."""
    positions = np.arange(rank, dtype=np.int64)
    axes = b.FloorMod(axes, np.int64(rank))
    reduced_mask = b.ReduceLogicalOr(b.Equal(b.Unsqueeze(axes, np.int64(1)), positions), np.int64(0),
                                     keep_dims=False)
    kept = b.LogicalNot(reduced_mask)                                              # [rank]
    kept_i64 = b.Convert(kept, destination_type="i64")
    lower = positions[None, :] <= positions[:, None]                               # [i, m]: m <= i
    prefix = b.ReduceSum(b.Select(lower, kept_i64, np.int64(0)), np.int64(1), keep_dims=False)
    order = np.arange(1, rank - count + 1, dtype=np.int64)[:, None]                # [rank - count, 1]
    pick = b.LogicalAnd(b.Equal(prefix, order), kept)                              # [rank - count, rank]
    target = b.ReduceSum(b.Select(pick, b.ShapeOf(x), np.int64(0)), np.int64(1), keep_dims=False)
    return b.Reshape(reduced, target, special_zero=False)


def _reduce(node: Node, b: OpBuilder, reduction: Reduction) -> list[Port]:
    """``reduction`` over the axes of an ONNX Reduce* node (``axes`` attribute or input 1,
    ``keepdims``, ``noop_with_empty_axes``)."""
    x = node.in_port(0).get_source()
    rank = x.data.get_rank()
    keep = bool(OnnxExtractor.attr(node, "keepdims", 1))
    axes = OnnxExtractor.ints(node, "axes")
    runtime = None
    if axes is None and node.is_in_port_connected(1):
        source = node.in_port(1).get_source()
        value = source.data.get_value()
        if value is not None:
            axes = np.atleast_1d(value).tolist()
        elif source.data.get_shape() != (0,):
            runtime = source                      # run-time axes, assumed non-empty
    if runtime is not None:
        count = runtime.data.get_shape()
        if keep or rank is None or count is None or len(count) != 1 or count[0] < 0:
            return [reduction(b, x, runtime, keep)]
        return [drop_reduced_dims(b, reduction(b, x, runtime, True), x, runtime, rank, count[0])]
    if not axes:
        if OnnxExtractor.attr(node, "noop_with_empty_axes", 0):
            return [b.Identity(x)]
        return [reduction(b, x, all_axes(b, x), keep)]
    if rank is not None:
        axes = sorted(set(normalize_axes(axes, rank)))
    return [reduction(b, x, np.array(axes, np.int64), keep)]


@translator("onnx", *_DIRECT)
def reduce_direct(node: Node, b: OpBuilder) -> list[Port]:
    """ReduceSum, ReduceMean, ReduceProd, ReduceL1, ReduceL2: the opset reduction of that name."""
    return _reduce(node, b, lambda b, x, axes, keep: b.op(_DIRECT[node.fw_op], x, axes, keep_dims=keep))


@translator("onnx", "ReduceMax", "ReduceMin")
def reduce_extremum(node: Node, b: OpBuilder) -> list[Port]:
    """ReduceMax/ReduceMin; booleans reduced as u8. Over floats, where every value reduced is the
    infinity (or there is none) the result is that infinity (the runtime gives the lowest/largest
    finite value there)."""
    kind = node.fw_op

    def extremum(b: OpBuilder, x: Port, axes, keep: bool) -> Port:
        dtype = x.data.get_dtype()
        source = b.Convert(x, destination_type="u8") if dtype == "boolean" else x
        result = b.op(kind, source, axes, keep_dims=keep)
        if dtype == "boolean":
            return b.Convert(result, destination_type="boolean")
        if not is_float(dtype):
            return result
        infinity = typed_const(b, _EXTREMA[kind], dtype)
        at_infinity = b.Convert(b.Equal(x, infinity), destination_type="u8")
        all_infinite = b.Convert(b.ReduceMin(at_infinity, axes, keep_dims=keep), destination_type="boolean")
        return b.Select(all_infinite, infinity, result)

    return _reduce(node, b, extremum)


@translator("onnx", "ReduceSumSquare")
def reduce_sum_square(node: Node, b: OpBuilder) -> list[Port]:
    return _reduce(node, b, lambda b, x, axes, keep: b.ReduceSum(b.Multiply(x, x), axes, keep_dims=keep))


@translator("onnx", "ReduceLogSum")
def reduce_log_sum(node: Node, b: OpBuilder) -> list[Port]:
    return _reduce(node, b, lambda b, x, axes, keep: b.Log(b.ReduceSum(x, axes, keep_dims=keep)))


@translator("onnx", "ReduceLogSumExp")
def reduce_log_sum_exp(node: Node, b: OpBuilder) -> list[Port]:
    return _reduce(node, b, lambda b, x, axes, keep: b.Log(b.ReduceSum(b.Exp(x), axes, keep_dims=keep)))
