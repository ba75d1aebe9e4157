"""ONNX TopK, ArgMax, ArgMin, Unique, CumSum and CumProd. Unique and CumSum map to one opset op
each; TopK, ArgMax / ArgMin and CumProd (which OpenVINO has no operation for) are translated."""
from __future__ import annotations

import numpy as np

from extensions.front.common.scan import prefix_scan, shifted
from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.cumulative import CumSum
from extensions.ops.sorting import Unique
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import as_scalar, convert, dim, i64, input_rank, norm_axis, reversed_along
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.types import is_int, np_dtype


class UniqueExtractor(OnnxExtractor):
    """Unique: outputs (Y, indices, inverse_indices, counts) as Unique-10's; ``axis`` -> input 1."""

    op_types = ("Unique",)

    @classmethod
    def extract(cls, node):
        axis = cls.attr(node, "axis")
        if axis is not None:
            add_const_input(node, 1, int(axis), "axis")
        Unique.update_node(node, {"sorted": bool(cls.attr(node, "sorted", 1)),
                                  "index_element_type": "i64", "count_element_type": "i64"})


class CumSumExtractor(OnnxExtractor):
    op_types = ("CumSum",)

    @classmethod
    def extract(cls, node):
        CumSum.update_node(node, cumulative_flags(cls, node))


def cumulative_flags(ext, node) -> dict:
    return {"exclusive": bool(ext.attr(node, "exclusive", 0)), "reverse": bool(ext.attr(node, "reverse", 0))}


class TopKExtractor(OnnxExtractor):
    """TopK: ``k`` is an attribute before opset 10; ``largest``/``sorted`` from opset 11."""

    op_types = ("TopK",)

    @classmethod
    def extract(cls, node):
        if node.opset < 10:
            add_const_input(node, 1, [int(cls.attr(node, "k"))], "k")
        node.update({"axis": int(cls.attr(node, "axis", -1)), "largest": bool(cls.attr(node, "largest", 1)),
                     "sorted": bool(cls.attr(node, "sorted", 1))})


@translator("onnx", "TopK")
def top_k(node, b):
    """ONNX TopK -> TopK-11 with a scalar k, i64 indices and, when sorted, ``stable`` (ONNX puts
    the lower index first among equal values); unsorted results may come in any order."""
    values, indices = b.TopK(node.in_port(0).get_source(), as_scalar(b, node.in_port(1).get_source()),
                             axis=node.axis, mode="max" if node.largest else "min",
                             sort="value" if node.sorted else "none", index_element_type="i64",
                             stable=node.sorted, name=node.name)
    return [values, indices]


class ArgMinMaxExtractor(OnnxExtractor):
    op_types = ("ArgMax", "ArgMin")

    @classmethod
    def extract(cls, node):
        node.update({"mode": "max" if node.fw_op == "ArgMax" else "min", "axis": int(cls.attr(node, "axis", 0)),
                     "keepdims": bool(cls.attr(node, "keepdims", 1)),
                     "select_last_index": bool(cls.attr(node, "select_last_index", 0))})


@translator("onnx", "ArgMax", "ArgMin")
def arg_min_max(node, b):
    """ArgMax / ArgMin (``mode`` max / min) -> indices of a stable TopK with k = 1 (Squeezed
    unless keepdims). For ``select_last_index`` the input is reversed along the axis and the
    index mirrored."""
    x = node.in_port(0).get_source()
    if node.select_last_index:
        x = reversed_along(b, x, node.axis)
    _, index = b.TopK(x, np.int64(1), axis=node.axis, mode=node.mode, sort="value", index_element_type="i64",
                      stable=True)
    if node.select_last_index:
        index = b.Subtract(b.Subtract(dim(b, x, node.axis), np.int64(1)), index)
    if not node.keepdims:
        index = b.Squeeze(index, i64(node.axis))
    return [index]


class CumProdExtractor(OnnxExtractor):
    op_types = ("CumProd",)

    @classmethod
    def extract(cls, node):
        node.update(cumulative_flags(cls, node))


@translator("onnx", "CumProd")
def cum_prod(node, b):
    """CumProd along an axis of static length n -> ceil(log2 n) steps y = y * shift(y, s) for
    s = 1, 2, 4, ... where shift moves y by s along the axis and fills with ones (Slice + Pad).
    Exact for integers; ``exclusive`` shifts the input by one first, ``reverse`` works on the
    input reversed along the axis. With the axis or its length known only at run time: sums of
    logarithms (``log_cumprod``)."""
    x = node.in_port(0).get_source()
    shape = x.data.get_shape()
    axis = node.in_port(1).data.get_value() if node.is_in_port_connected(1) else np.int64(0)
    if shape is None or axis is None:
        return [log_cumprod(node, b)]
    axis = norm_axis(np.asarray(axis).reshape(-1)[0], input_rank(node), node)
    n = shape[axis]
    if n < 0:
        return [log_cumprod(node, b)]
    one = np.ones((), np_dtype(x.data.get_dtype()))
    y = reversed_along(b, x, axis) if node.reverse else x
    if node.exclusive and n:
        y = shifted(b, y, axis, 1, one)
    (y,) = prefix_scan(b, [y], axis, n, lambda before, later: [b.Multiply(later[0], before[0])], [one])
    if node.reverse:
        y = reversed_along(b, y, axis)
    return [y]


def log_cumprod(node: Node, b: OpBuilder) -> Port:
    """CumProd = sign * exp(CumSum(log |x|)), 0 from the first zero on; the sign from the parity
    of the count of negative values. Integer results are rounded back (exact while the products
    fit the float mantissa)."""
    x = node.in_port(0).get_source()
    dtype = x.data.get_dtype()
    axis = node.in_port(1).get_source() if node.is_in_port_connected(1) else np.int64(0)
    flags = {"exclusive": node.exclusive, "reverse": node.reverse}
    xf = convert(b, x, "f32") if is_int(dtype) else x
    one = np.ones((), np.float32 if is_int(dtype) else np_dtype(dtype))
    zero = b.Equal(xf, one * 0)

    def count(mask):
        return b.CumSum(convert(b, mask, xf.data.get_dtype()), axis, **flags)

    magnitude = b.Exp(b.CumSum(b.Log(b.Select(zero, one, b.Abs(xf))), axis, **flags))
    sign = b.Subtract(one, b.Multiply(b.FloorMod(count(b.Less(xf, one * 0)), one * 2), one * 2))
    y = b.Select(b.Greater(count(zero), one * 0), one * 0, b.Multiply(sign, magnitude))
    if is_int(dtype):
        y = convert(b, b.Round(y, mode="half_to_even"), dtype)
    return y
