"""Lowering of ONNX CumProd, which OpenVINO has no operation for: an exact Multiply scan when the
axis and its length are known, otherwise sums of logarithms with CumSum."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder
from mo.graph.building import reversed_along
from mo.utils.shape import normalize_axis
from mo.utils.types import is_int, np_dtype


class CumProdToMultiplyScan(MiddleReplaceOp):
    """CumProd along an axis of static length n -> ceil(log2 n) steps y = y * shift(y, s) for
    s = 1, 2, 4, ... where shift moves y by s along the axis and fills with ones (Slice + Pad).
    Exact for integers; ``exclusive`` shifts the input by one first, ``reverse`` works on the
    input reversed along the axis."""

    op = "onnx::CumProd"

    def replace_op(self, graph, node):
        x = node.in_port(0).get_source()
        shape = x.data.get_shape()
        axis = node.in_port(1).data.get_value() if node.is_in_port_connected(1) else np.int64(0)
        if shape is None or axis is None:
            return log_cumprod(graph, node)
        axis = normalize_axis(int(np.asarray(axis).reshape(-1)[0]), len(shape))
        n = shape[axis]
        if n < 0:
            return log_cumprod(graph, node)
        b = OpBuilder(graph, node.name)
        one = np.ones((), np_dtype(x.data.get_dtype()))
        axes = np.array([axis], np.int64)

        def shift(t, s):
            begin = np.zeros(len(shape), np.int64)
            begin[axis] = s
            head = b.Slice(t, np.array([0], np.int64), np.array([n - s], np.int64), np.array([1], np.int64), axes)
            return b.Pad(head, begin, np.zeros(len(shape), np.int64), one, pad_mode="constant")

        y = reversed_along(b, x, axis) if node.reverse else x
        if node.exclusive and n:
            y = shift(y, 1)
        s = 1
        while s < n:
            y = b.Multiply(y, shift(y, s))
            s *= 2
        if node.reverse:
            y = reversed_along(b, y, axis)
        return [y]


def log_cumprod(graph, node) -> list:
    """CumProd = sign * exp(CumSum(log |x|)), 0 from the first zero on; the sign from the parity
    of the count of negative values. Integer results are rounded back (exact while the products
    fit the float mantissa)."""
    b = OpBuilder(graph, node.name)
    x = node.in_port(0).get_source()
    dtype = x.data.get_dtype()
    axis = node.in_port(1).get_source() if node.is_in_port_connected(1) else np.int64(0)
    flags = {"exclusive": node.exclusive, "reverse": node.reverse}
    xf = b.Convert(x, destination_type="f32") if is_int(dtype) else x
    one = np.ones((), np.float32 if is_int(dtype) else np_dtype(dtype))
    zero = b.Equal(xf, one * 0)

    def count(mask):
        return b.CumSum(b.ConvertLike(mask, xf), axis, **flags)

    magnitude = b.Exp(b.CumSum(b.Log(b.Select(zero, one, b.Abs(xf))), axis, **flags))
    sign = b.Subtract(one, b.Multiply(b.FloorMod(count(b.Less(xf, one * 0)), one * 2), one * 2))
    name = None if is_int(dtype) else node.name
    y = b.Select(b.Greater(count(zero), one * 0), one * 0, b.Multiply(sign, magnitude), name=name)
    if is_int(dtype):
        y = b.Convert(b.Round(y, mode="half_to_even"), destination_type=dtype, name=node.name)
    return [y]
