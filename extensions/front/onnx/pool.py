"""ONNX pooling: MaxPool, AveragePool, LpPool, GlobalAveragePool, GlobalMaxPool and MaxUnpool,
their extractors and translators."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.conv import window, window_attrs
from extensions.load.onnx.attributes import OnnxExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import i64, input_rank, optional_source, scalar_like
from mo.graph.node import Node
from mo.graph.port import Port


class PoolExtractor(OnnxExtractor):
    """The window of MaxPool / AveragePool / LpPool (``kernel_shape`` is required), ceil_mode,
    count_include_pad, p and MaxPool's storage_order."""

    op_types = ("MaxPool", "AveragePool", "LpPool")

    @classmethod
    def extract(cls, node):
        attrs = window_attrs(cls, node)
        if not attrs["kernel"]:
            raise ValueError("kernel_shape is required")
        node.update({**attrs, "p": float(cls.attr(node, "p", 2)), "ceil_mode": bool(cls.attr(node, "ceil_mode", 0)),
                     "exclude_pad": not bool(cls.attr(node, "count_include_pad", 0)),
                     "column_major": bool(cls.attr(node, "storage_order", 0))})


def pool_attrs(node: Node) -> dict:
    return {**window(node), "kernel": node.kernel, "rounding_type": "ceil_torch" if node.ceil_mode else "floor"}


@translator("onnx", "MaxPool")
def max_pool(node: Node, b: OpBuilder) -> list[Port]:
    """MaxPool with its indices; storage_order 1 gives them in column-major spatial order."""
    x = optional_source(node, 0)
    values, indices = b.MaxPool(x, name=node.name, **pool_attrs(node))
    if node.column_major and node.out_port(1).is_connected():
        indices = column_major(b, indices, x, len(node.kernel))
    return [values, indices]


@translator("onnx", "AveragePool")
def average_pool(node: Node, b: OpBuilder) -> list[Port]:
    return [b.AvgPool(optional_source(node, 0), **pool_attrs(node), **{"exclude-pad": node.exclude_pad})]


@translator("onnx", "LpPool")
def lp_pool(node: Node, b: OpBuilder) -> list[Port]:
    """(sum over the window of |x|^p)^(1/p) = (AvgPool(|x|^p) counting pads * kernel size)^(1/p)."""
    x = optional_source(node, 0)
    p = node.p
    like = lambda v: scalar_like(b, v, x)  # noqa: E731
    powered = b.Multiply(x, x) if p == 2 else b.Power(b.Abs(x), like(p))
    mean = b.AvgPool(powered, **pool_attrs(node), **{"exclude-pad": False})
    total = b.Multiply(mean, like(np.prod(node.kernel)))
    if p == 1:
        return [total]
    return [b.Sqrt(total) if p == 2 else b.Power(total, like(1 / p))]


def product(b: OpBuilder, dims: list) -> Port | np.ndarray:
    """Product of a list of 1-element tensors ([1] when empty)."""
    result = i64(1)
    for d in dims:
        result = d if isinstance(result, np.ndarray) else b.Multiply(result, d)
    return result


def column_major(b: OpBuilder, indices, x, n_spatial: int) -> Port:
    """Flat row-major indices [N*C offset + spatial index] -> the same element's index with the
    spatial dims in column-major order (storage_order=1): the first spatial dim varies fastest."""
    _, spatial = b.VariadicSplit(b.ShapeOf(x), np.int64(0), i64(2, -1), num_outputs=2)
    dims = b.VariadicSplit(spatial, np.int64(0), np.ones(n_spatial, np.int64), num_outputs=n_spatial)
    dims = list(dims) if n_spatial > 1 else [dims]
    within = b.FloorMod(indices, product(b, dims))
    result = b.Subtract(indices, within)
    for i in range(n_spatial):
        coord = within if i + 1 == n_spatial else b.Divide(within, product(b, dims[i + 1:]))
        if i > 0:
            coord = b.FloorMod(coord, dims[i])
        result = b.Add(result, coord if i == 0 else b.Multiply(coord, product(b, dims[:i])))
    return result


def global_pool(node: Node, b: OpBuilder, reduce: str) -> list[Port]:
    """``reduce`` over the spatial axes 2.. of the input, keeping them as 1."""
    axes = np.arange(2, input_rank(node), dtype=np.int64)
    return [b.op(reduce, optional_source(node, 0), axes, keep_dims=True)]


@translator("onnx", "GlobalAveragePool")
def global_average_pool(node: Node, b: OpBuilder) -> list[Port]:
    return global_pool(node, b, "ReduceMean")


@translator("onnx", "GlobalMaxPool")
def global_max_pool(node: Node, b: OpBuilder) -> list[Port]:
    return global_pool(node, b, "ReduceMax")


class MaxUnpoolExtractor(OnnxExtractor):
    op_types = ("MaxUnpool",)

    @classmethod
    def extract(cls, node):
        node.update(window_attrs(cls, node))


@translator("onnx", "MaxUnpool")
def max_unpool(node: Node, b: OpBuilder) -> list[Port]:
    """Zeros of the inferred size ((input - 1) * stride + kernel - pads per spatial dim) with the
    values scattered at their flat indices (ScatterElementsUpdate on the flattened tensor),
    reshaped; an output_shape input then pads (or crops) it at the end."""
    if not node.kernel:
        raise ConversionError("kernel_shape is required")
    x = optional_source(node, 0)
    n = len(node.kernel)
    lead, spatial = b.VariadicSplit(b.ShapeOf(x), np.int64(0), i64(2, -1), num_outputs=2)
    strides = np.array(node.strides or [1] * n, np.int64)
    pads = np.array(node.pads_begin or [0] * n, np.int64) + np.array(node.pads_end or [0] * n, np.int64)
    grown = b.Multiply(b.Subtract(spatial, np.int64(1)), strides)
    shape = b.Concat(lead, b.Add(grown, np.array(node.kernel, np.int64) - pads), axis=0)
    size = b.ReduceProd(shape, i64(0), keep_dims=True)
    zeros = b.Broadcast(scalar_like(b, 0, x), size)
    scattered = b.ScatterElementsUpdate(zeros, b.Reshape(optional_source(node, 1), i64(-1), special_zero=False),
                                        b.Reshape(x, i64(-1), special_zero=False), np.int64(0))
    unpooled = b.Reshape(scattered, shape, special_zero=False)
    output_shape = optional_source(node, 2)
    if output_shape is None:
        return [unpooled]
    return [b.Pad(unpooled, np.zeros(n + 2, np.int64), b.Subtract(output_shape, shape))]
