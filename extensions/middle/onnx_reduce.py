"""Lowering of the ONNX Reduce* operators to opset reductions.

ReduceLogSum, ReduceLogSumExp and ReduceSumSquare are ReduceSum with Log/Exp/Multiply around it;
ReduceMax/ReduceMin of booleans run on u8 (the CPU plugin's ReduceLogicalOr/And want constant
axes). Empty axes reduce every axis
(or nothing, with ``noop_with_empty_axes``)."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from extensions.ops.onnx_reduce import reduce_axes
from mo.graph.builder import OpBuilder
from mo.utils.types import is_float, np_dtype

_DIRECT = {"ReduceSum": "ReduceSum", "ReduceMean": "ReduceMean", "ReduceMax": "ReduceMax",
           "ReduceMin": "ReduceMin", "ReduceProd": "ReduceProd", "ReduceL1": "ReduceL1", "ReduceL2": "ReduceL2"}
# The value of a max/min over no elements (the runtime gives the lowest/largest finite value).
_EXTREMA = {"ReduceMax": -np.inf, "ReduceMin": np.inf}


def all_axes(b: OpBuilder, x):
    """[0, 1, ..., rank-1] of ``x``: a constant when the rank is known, else Range over its rank."""
    rank = x.data.get_rank()
    if rank is not None:
        return np.arange(rank, dtype=np.int64)
    rank_1d = b.ShapeOf(b.ShapeOf(x, output_type="i64"), output_type="i64")
    return b.Range(np.int64(0), b.Squeeze(rank_1d, np.int64(0)), np.int64(1), output_type="i64")


class OnnxReduceToOpset(MiddleReplaceOp):
    op = "onnx::Reduce"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        axes = reduce_axes(node, x.data.get_rank())
        if axes == "none":
            return [b.Identity(x, name=node.name)]
        if axes == "all":
            axes = all_axes(b, x)
        elif axes is None:
            axes = node.in_port(1).get_source()    # run-time axes, assumed non-empty
        else:
            axes = np.array(axes, dtype=np.int64)
        keep = node.keep_dims
        kind = node.reduction
        if kind in _EXTREMA:
            return [self.extremum(b, node, x, axes)]
        if kind in _DIRECT:
            return [b.op(_DIRECT[kind], x, axes, keep_dims=keep, name=node.name)]
        if kind == "ReduceSumSquare":
            return [b.ReduceSum(b.Multiply(x, x), axes, keep_dims=keep, name=node.name)]
        if kind == "ReduceLogSumExp":
            x = b.Exp(x)
        return [b.Log(b.ReduceSum(x, axes, keep_dims=keep), name=node.name)]

    @staticmethod
    def extremum(b: OpBuilder, node, x, axes):
        """ReduceMax/ReduceMin; booleans reduced as u8; an empty input gives -inf/+inf."""
        dtype = x.data.get_dtype()
        source = b.Convert(x, destination_type="u8") if dtype == "boolean" else x
        result = b.op(node.reduction, source, axes, keep_dims=node.keep_dims)
        if dtype == "boolean":
            return b.Convert(result, destination_type="boolean", name=node.name)
        if 0 in (x.data.get_shape() or ()) and is_float(dtype):
            fill = np.array(_EXTREMA[node.reduction], dtype=np_dtype(dtype))
            return b.Broadcast(fill, b.ShapeOf(result), mode="numpy", name=node.name)
        result.node["name"] = node.name
        return result
