"""Lowering of ONNX TensorScatter to ScatterElementsUpdate.

The cache index of update element (b, ..., s, ...) along the axis is write_indices[b] + s
(modulo the cache length in circular mode); those indices are built as a [batch, seq] tensor,
unsqueezed to put batch at axis 0 and seq at the cache axis, and broadcast to the update's shape.
"""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.building import input_rank


class TensorScatterToScatterElements(MiddleReplaceOp):
    op = "onnx::TensorScatter"

    def replace_op(self, graph, node):
        from mo.graph.builder import OpBuilder
        rank = input_rank(node, 0)
        axis = node.axis % rank
        if axis == 0:
            raise ValueError(f"TensorScatter '{node.name}' scatters along the batch axis, which the spec forbids")
        b = OpBuilder(graph, node.name)
        past = node.in_port(0).get_source()
        update = node.in_port(1).get_source()
        update_shape = b.ShapeOf(update)
        batch = b.Gather(update_shape, np.array([0], np.int64), np.array(0, np.int64), batch_dims=0)
        seq = b.Gather(update_shape, np.array(axis, np.int64), np.array(0, np.int64), batch_dims=0)
        steps = b.Range(np.array(0, np.int64), seq, np.array(1, np.int64), output_type="i64")
        if node.is_in_port_connected(2):
            starts = b.Convert(node.in_port(2).get_source(), destination_type="i64")
        else:
            starts = b.Broadcast(np.array(0, np.int64), batch, mode="numpy")
        index = b.Add(b.Unsqueeze(starts, np.array([1], np.int64)), b.Unsqueeze(steps, np.array([0], np.int64)))
        if node.mode == "circular":
            cache_len = b.Gather(b.ShapeOf(past), np.array(axis, np.int64), np.array(0, np.int64), batch_dims=0)
            index = b.FloorMod(index, cache_len)
        spread = np.array([i for i in range(1, rank) if i != axis], np.int64)
        if spread.size:
            index = b.Unsqueeze(index, spread)
        index = b.Broadcast(index, update_shape, mode="numpy")
        return [b.ScatterElementsUpdate(past, index, update, np.array(axis, np.int64), reduction="none",
                                        name=node.name)]
