"""Lowering of ONNX GlobalAveragePool / GlobalMaxPool to a reduction over the spatial axes."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp


class GlobalPoolToReduce(ReplaceOp):
    """GlobalAveragePool -> ReduceMean, GlobalMaxPool -> ReduceMax over axes 2.. (keep_dims)."""

    phase = "middle"
    op = "onnx::Pool"

    def replace_op(self, graph, node):
        rank = node.in_port(0).data.get_rank()
        if rank is None:
            raise ValueError(f"the rank of the input of {node.fw_op} '{node.name}' is unknown")
        b = OpBuilder(graph, node.name)
        reduce = "ReduceMean" if node.pool == "avg" else "ReduceMax"
        axes = np.arange(2, rank, dtype=np.int64)
        return [b.op(reduce, node.in_port(0).get_source(), axes, keep_dims=True, name=node.name)]
