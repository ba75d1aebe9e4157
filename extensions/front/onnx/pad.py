"""ONNX Pad (``pads`` / ``value`` attributes before opset 11, inputs data, pads, constant_value,
axes after) and CenterCropPad: their extractors and translators."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import INT64_MAX, as_scalar, convert, i64, input_rank, scalar_like
from mo.graph.node import Node
from mo.graph.port import Port

MODES = ("constant", "reflect", "edge", "wrap")


class PadExtractor(OnnxExtractor):
    op_types = ("Pad",)

    @classmethod
    def extract(cls, node):
        mode = cls.attr(node, "mode", "constant")
        if mode not in MODES:
            raise ValueError(f"unknown mode '{mode}'")
        attrs = {"mode": mode, "value": None}
        if node.opset < 11:
            add_const_input(node, 1, cls.ints(node, "pads", cls.ints(node, "paddings")), "pads")
            attrs["value"] = float(cls.attr(node, "value", 0.0))
        node.update(attrs)


def pad_value(b: OpBuilder, node: Node, x: Port) -> Port | None:
    """The scalar padding value: input 2, the ``value`` attribute of old opsets, or None (0)."""
    if node.is_in_port_connected(2):
        return as_scalar(b, node.in_port(2).get_source())
    if node.value:
        return scalar_like(b, node.value, x)
    return None


def full_pads(b: OpBuilder, node: Node) -> tuple[Port, Port]:
    """(begins, ends) of ONNX pads [begins..., ends...]; with ``axes``, for every dim: scattered
    to the axes (normalised modulo the rank), zeros elsewhere."""
    begin, end = b.Split(node.in_port(1).get_source(), np.int64(0), num_splits=2)
    if not node.is_in_port_connected(3):
        return begin, end
    rank = input_rank(node)
    axes = b.FloorMod(convert(b, node.in_port(3).get_source(), "i64"), np.int64(rank))
    zeros = np.zeros(rank, np.int64)
    return (b.ScatterUpdate(zeros, axes, convert(b, begin, "i64"), np.int64(0)),
            b.ScatterUpdate(zeros, axes, convert(b, end, "i64"), np.int64(0)))


@translator("onnx", "Pad")
def pad(node: Node, b: OpBuilder) -> list[Port]:
    """Pad-12(x, begins, ends, value); ``wrap``, which Pad-12 lacks, as Slice/Concat per axis."""
    x = node.in_port(0).get_source()
    begin, end = full_pads(b, node)
    if node.mode == "wrap":
        known = begin.data.get_value(), end.data.get_value()
        if known[0] is not None and known[1] is not None:
            return [b.Identity(wrap_pad_static(b, x, *known))]
        return [b.Identity(wrap_pad_dynamic(b, x, begin, end, input_rank(node)))]
    value = pad_value(b, node, x) if node.mode == "constant" else None
    return [b.Pad(x, begin, end, *([value] if value is not None else []), pad_mode=node.mode)]


def _slice(b: OpBuilder, x, start, stop, axis: int):
    return b.Slice(x, start, stop, i64(1), i64(axis))


def wrap_pad_static(b: OpBuilder, x: Port, begin: np.ndarray, end: np.ndarray) -> Port:
    """Wrap padding with known pads, axis by axis: Concat(x[-lo:], x, x[:hi]); negative pads crop."""
    for axis, (lo, hi) in enumerate(zip(begin.tolist(), end.tolist())):
        if lo < 0 or hi < 0:
            x = _slice(b, x, i64(max(-lo, 0)), i64(hi if hi < 0 else INT64_MAX), axis)
        parts = ([_slice(b, x, i64(-lo), i64(INT64_MAX), axis)] if lo > 0 else []) + [x] + \
                ([_slice(b, x, i64(0), i64(hi), axis)] if hi > 0 else [])
        if len(parts) > 1:
            x = b.Concat(*parts, axis=axis)
    return x


def wrap_pad_dynamic(b: OpBuilder, x: Port, begin: Port, end: Port, rank: int) -> Port:
    """Wrap padding with pads computed at run time: per axis, crop by the negative parts, then
    Concat(x[dim - lo:], x, x[:hi])."""
    zero = i64(0)
    for axis in range(rank):
        lo, hi = b.Gather(begin, i64(axis), np.int64(0)), b.Gather(end, i64(axis), np.int64(0))
        size = b.Gather(b.ShapeOf(x, output_type="i64"), i64(axis), np.int64(0))
        x = _slice(b, x, b.Maximum(b.Negative(lo), zero), b.Subtract(size, b.Maximum(b.Negative(hi), zero)), axis)
        size = b.Gather(b.ShapeOf(x, output_type="i64"), i64(axis), np.int64(0))
        left = _slice(b, x, b.Subtract(size, b.Maximum(lo, zero)), i64(INT64_MAX), axis)
        right = _slice(b, x, zero, b.Maximum(hi, zero), axis)
        x = b.Concat(left, x, right, axis=axis)
    return x


class CenterCropPadExtractor(OnnxExtractor):
    op_types = ("CenterCropPad",)

    @classmethod
    def extract(cls, node):
        node["axes"] = cls.ints(node, "axes")


@translator("onnx", "CenterCropPad")
def center_crop_pad(node: Node, b: OpBuilder) -> list[Port]:
    """Slice of the centred crop, then Pad-12 with zeros to the target sizes: per axis, crop start
    (dim - size) // 2 where the dim is larger, pad begin (size - dim) // 2 where it is smaller."""
    x = node.in_port(0).get_source()
    rank = input_rank(node)
    axes = node.axes if node.axes is not None else list(range(rank))
    axes = np.array([a % rank for a in axes], np.int64)
    dims = b.Gather(b.ShapeOf(x, output_type="i64"), axes, np.int64(0))
    sizes = convert(b, node.in_port(1).get_source(), "i64")
    zero, two = i64(0), i64(2)
    start = b.Divide(b.Maximum(b.Subtract(dims, sizes), zero), two)
    cropped = b.Slice(x, start, b.Add(start, b.Minimum(dims, sizes)), np.ones(len(axes), np.int64), axes)
    extra = b.Maximum(b.Subtract(sizes, dims), zero)
    before = b.Divide(extra, two)
    zeros = np.zeros(rank, np.int64)
    begin = b.ScatterUpdate(zeros, axes, before, np.int64(0))
    end = b.ScatterUpdate(zeros, axes, b.Subtract(extra, before), np.int64(0))
    return [b.Pad(cropped, begin, end, pad_mode="constant")]
