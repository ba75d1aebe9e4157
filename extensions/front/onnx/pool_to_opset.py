"""Lowering of ONNX MaxPool / AveragePool / LpPool to opset MaxPool / AvgPool, and of MaxUnpool."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.conv import window
from mo.graph.builder import OpBuilder
from mo.graph.building import scalar_like
from mo.graph.port import Port
from mo.pipeline.transform import ReplaceOp


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
            if node.get("column_major") and node.out_port(1).is_connected():
                indices = column_major(b, indices, x, len(node.kernel))
            return [values, indices]
        if node.pool == "lp":
            return [lp_pool(b, x, node, attrs)]
        return [b.AvgPool(x, name=node.name, **attrs, **{"exclude-pad": node.exclude_pad})]


def lp_pool(b: OpBuilder, x, node, attrs: dict) -> Port:
    """(sum over the window of |x|^p)^(1/p) = (AvgPool(|x|^p) counting pads * kernel size)^(1/p)."""
    p = node.p
    like = lambda v: scalar_like(b, v, x)  # noqa: E731
    powered = b.Multiply(x, x) if p == 2 else b.Power(b.Abs(x), like(p))
    mean = b.AvgPool(powered, **attrs, **{"exclude-pad": False})
    if p == 1:
        return b.Multiply(mean, like(np.prod(node.kernel)), name=node.name)
    total = b.Multiply(mean, like(np.prod(node.kernel)))
    return b.Sqrt(total, name=node.name) if p == 2 else b.Power(total, like(1 / p), name=node.name)


def product(b: OpBuilder, dims: list) -> Port | np.ndarray:
    """Product of a list of 1-element tensors ([1] when empty)."""
    result = np.array([1], np.int64)
    for d in dims:
        result = d if isinstance(result, np.ndarray) else b.Multiply(result, d)
    return result


def column_major(b: OpBuilder, indices, x, n_spatial: int) -> Port:
    """Flat row-major indices [N*C offset + spatial index] -> the same element's index with the
    spatial dims in column-major order (storage_order=1): the first spatial dim varies fastest."""
    _, spatial = b.VariadicSplit(b.ShapeOf(x), np.array(0, np.int64), np.array([2, -1], np.int64), num_outputs=2)
    dims = b.VariadicSplit(spatial, np.array(0, np.int64), np.ones(n_spatial, np.int64), num_outputs=n_spatial)
    dims = list(dims) if n_spatial > 1 else [dims]
    within = b.FloorMod(indices, product(b, dims))
    result = b.Subtract(indices, within)
    for i in range(n_spatial):
        coord = within if i + 1 == n_spatial else b.Divide(within, product(b, dims[i + 1:]))
        if i > 0:
            coord = b.FloorMod(coord, dims[i])
        result = b.Add(result, coord if i == 0 else b.Multiply(coord, product(b, dims[:i])))
    return result


class MaxUnpoolToOpset(ReplaceOp):
    """MaxUnpool -> zeros of the inferred size ((input - 1) * stride + kernel - pads per spatial
    dim) with the values scattered at their flat indices (ScatterElementsUpdate on the flattened
    tensor), reshaped; an output_shape input then pads (or crops) it at the end."""

    op = "onnx::MaxUnpool"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        n = len(node.kernel)
        lead, spatial = b.VariadicSplit(b.ShapeOf(x), np.array(0, np.int64), np.array([2, -1], np.int64),
                                        num_outputs=2)
        strides = np.array(node.strides or [1] * n, np.int64)
        pads = np.array(node.pads_begin or [0] * n, np.int64) + np.array(node.pads_end or [0] * n, np.int64)
        grown = b.Multiply(b.Subtract(spatial, np.array(1, np.int64)), strides)
        shape = b.Concat(lead, b.Add(grown, np.array(node.kernel, np.int64) - pads), axis=0)
        flat = np.array([-1], np.int64)
        size = b.ReduceProd(shape, np.array([0], np.int64), keep_dims=True)
        zeros = b.Broadcast(scalar_like(b, 0, x), size)
        scattered = b.ScatterElementsUpdate(zeros, b.Reshape(node.in_port(1).get_source(), flat, special_zero=False),
                                            b.Reshape(x, flat, special_zero=False), np.array(0, np.int64))
        if not node.is_in_port_connected(2):
            return [b.Reshape(scattered, shape, special_zero=False, name=node.name)]
        unpooled = b.Reshape(scattered, shape, special_zero=False)
        grow = b.Subtract(node.in_port(2).get_source(), shape)
        return [b.Pad(unpooled, np.zeros(n + 2, np.int64), grow, name=node.name)]
