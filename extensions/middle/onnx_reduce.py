"""Lowering of the ONNX Reduce* operators to opset reductions.

ReduceLogSum, ReduceLogSumExp and ReduceSumSquare are ReduceSum with Log/Exp/Multiply around it;
ReduceMax/ReduceMin of booleans run on u8 (the CPU plugin's ReduceLogicalOr/And want constant
axes). Empty axes reduce every axis (or nothing, with ``noop_with_empty_axes``)."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from extensions.ops.onnx_reduce import reduce_axes
from mo.graph.builder import OpBuilder
from mo.graph.building import typed_const
from mo.utils.types import is_float

_DIRECT = {"ReduceSum": "ReduceSum", "ReduceMean": "ReduceMean", "ReduceMax": "ReduceMax",
           "ReduceMin": "ReduceMin", "ReduceProd": "ReduceProd", "ReduceL1": "ReduceL1", "ReduceL2": "ReduceL2"}
# The value of a max/min over no elements or over infinities only.
_EXTREMA = {"ReduceMax": -np.inf, "ReduceMin": np.inf}


def all_axes(b: OpBuilder, x):
    """[0, 1, ..., rank-1] of ``x``: a constant when the rank is known, else Range over its rank."""
    rank = x.data.get_rank()
    if rank is not None:
        return np.arange(rank, dtype=np.int64)
    rank_1d = b.ShapeOf(b.ShapeOf(x, output_type="i64"), output_type="i64")
    return b.Range(np.int64(0), b.Squeeze(rank_1d, np.int64(0)), np.int64(1), output_type="i64")


def drop_reduced_dims(b: OpBuilder, reduced, x, axes, rank: int, count: int):
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


class OnnxReduceToOpset(MiddleReplaceOp):
    op = "onnx::Reduce"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        rank = x.data.get_rank()
        axes = reduce_axes(node, rank)
        if axes == "none":
            return [b.Identity(x, name=node.name)]
        drop_later = None
        if axes == "all":
            axes = all_axes(b, x)
        elif axes is None:
            axes = node.in_port(1).get_source()    # run-time axes, assumed non-empty
            count = axes.data.get_shape()
            if not node.keep_dims and rank is not None and count is not None and len(count) == 1 and count[0] >= 0:
                drop_later = count[0]
        else:
            axes = np.array(axes, dtype=np.int64)
        result = self.reduce(b, node, x, axes, node.keep_dims or drop_later is not None)
        if drop_later is not None:
            result = drop_reduced_dims(b, result, x, axes, rank, drop_later)
        result.node["name"] = node.name
        return [result]

    @classmethod
    def reduce(cls, b: OpBuilder, node, x, axes, keep: bool):
        kind = node.reduction
        if kind in _EXTREMA:
            return cls.extremum(b, kind, x, axes, keep)
        if kind in _DIRECT:
            return b.op(_DIRECT[kind], x, axes, keep_dims=keep)
        if kind == "ReduceSumSquare":
            return b.ReduceSum(b.Multiply(x, x), axes, keep_dims=keep)
        if kind == "ReduceLogSumExp":
            x = b.Exp(x)
        return b.Log(b.ReduceSum(x, axes, keep_dims=keep))

    @staticmethod
    def extremum(b: OpBuilder, kind: str, x, axes, keep: bool):
        """ReduceMax/ReduceMin; booleans reduced as u8. Over floats, where every value reduced is
        the infinity (or there is none) the result is that infinity (the runtime gives the
        lowest/largest finite value there)."""
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
