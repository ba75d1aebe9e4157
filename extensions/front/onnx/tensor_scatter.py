"""ONNX TensorScatter (opset 24, a KV-cache update): extractor and translator to
ScatterElementsUpdate.

The cache index of update element (b, ..., s, ...) along the axis is write_indices[b] + s
(modulo the cache length in circular mode); those indices are built as a [batch, seq] tensor,
unsqueezed to put batch at axis 0 and seq at the cache axis, and broadcast to the update's shape.
"""
from __future__ import annotations

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import convert, dim, i64, input_rank, norm_axis, shape_of


class TensorScatterExtractor(OnnxExtractor):
    op_types = ("TensorScatter",)

    @classmethod
    def extract(cls, node):
        mode = cls.attr(node, "mode", "linear")
        if mode not in ("linear", "circular"):
            raise ValueError(f"unknown TensorScatter mode '{mode}'")
        node.update({"axis": int(cls.attr(node, "axis", -2)), "mode": mode})


@translator("onnx", "TensorScatter")
def tensor_scatter(node, b):
    """present = past_cache with ``update`` written along ``axis`` at write_indices[batch] (+ i),
    modulo the cache length in ``circular`` mode."""
    rank = input_rank(node, 0)
    axis = norm_axis(node.axis, rank, node)
    if axis == 0:
        raise ConversionError("the TensorScatter scatters along the batch axis, which the ONNX spec forbids")
    past = node.in_port(0).get_source()
    update = node.in_port(1).get_source()
    update_shape = shape_of(b, update)
    steps = b.Range(np.int64(0), dim(b, update, axis), np.int64(1), output_type="i64")
    if node.is_in_port_connected(2):
        starts = convert(b, node.in_port(2).get_source(), "i64")
    else:
        starts = b.Broadcast(np.int64(0), b.Reshape(dim(b, update, 0), i64(1), special_zero=False), mode="numpy")
    index = b.Add(b.Unsqueeze(starts, i64(1)), b.Unsqueeze(steps, i64(0)))
    if node.mode == "circular":
        index = b.FloorMod(index, dim(b, past, axis))
    spread = np.array([i for i in range(1, rank) if i != axis], np.int64)
    if spread.size:
        index = b.Unsqueeze(index, spread)
    index = b.Broadcast(index, update_shape, mode="numpy")
    return [b.ScatterElementsUpdate(past, index, update, np.int64(axis), reduction="none")]
