"""Lowering of ONNX Conv and pooling to opset Convolution/GroupConvolution, MaxPool, AvgPool."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp


def spatial_rank(node, weights_port=None) -> int | None:
    """Number of spatial dims from the window attributes or constant weights."""
    for key in ("kernel", "strides", "dilations", "pads_begin"):
        if node.get(key):
            return len(node[key])
    if weights_port is not None:
        w = weights_port.data.get_value()
        if w is not None:
            return w.ndim - 2
    return None


def window(node) -> dict:
    return {k: node.get(k) for k in ("strides", "dilations", "pads_begin", "pads_end", "auto_pad")}


def grouped_weights(b: OpBuilder, w, group: int, split_axis: int = 0):
    """Weights [A, B, k...] -> [group, A/group, B, k...] (split_axis 0) for grouped convolutions."""
    value = w.data.get_value()
    if value is not None:
        shape = value.shape
        return b.Reshape(w, np.array([group, -1, *shape[1:]], np.int64), special_zero=False)
    tail = b.StridedSlice(b.ShapeOf(w), np.array([1], np.int64), np.array([0], np.int64), np.array([1], np.int64),
                          begin_mask=[0], end_mask=[1])
    return b.Reshape(w, b.Concat(np.array([group, -1], np.int64), tail, axis=0), special_zero=False)


def channel_bias(b: OpBuilder, bias, n_spatial: int):
    """Bias [C] -> [C, 1, ...] so it broadcasts over [N, C, spatial...]."""
    return b.Unsqueeze(bias, np.arange(1, n_spatial + 1, dtype=np.int64))


class ConvToOpset(ReplaceOp):
    """ONNX Conv -> Convolution or GroupConvolution (+ Add of the bias)."""

    op = "onnx::Conv"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        w = node.in_port(1).get_source()
        attrs = window(node)
        if node.group == 1:
            conv = b.Convolution(x, w, name=node.name, **attrs)
        else:
            conv = b.GroupConvolution(x, grouped_weights(b, w, node.group), name=node.name, **attrs)
        if not node.is_in_port_connected(2):
            return [conv]
        n = spatial_rank(node, w)
        if n is None:
            raise ValueError(f"Conv '{node.name}' has non-constant weights and no kernel_shape: its rank is unknown")
        return [b.Add(conv, channel_bias(b, node.in_port(2).get_source(), n), name=node.name + "/bias")]


class PoolToOpset(ReplaceOp):
    """ONNX MaxPool / AveragePool -> MaxPool / AvgPool (global pools are lowered in middle)."""

    op = "onnx::Pool"

    def replace_op(self, graph, node):
        if node.get("global_pool"):
            return None
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        attrs = {**window(node), "kernel": node.kernel,
                 "rounding_type": "ceil_torch" if node.ceil_mode else "floor"}
        if node.pool == "max":
            values, indices = b.MaxPool(x, name=node.name, **attrs)
            return [values, indices]
        return [b.AvgPool(x, name=node.name, **attrs, **{"exclude-pad": node.exclude_pad})]
