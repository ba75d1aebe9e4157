"""Lowering of the ONNX Pad forms that need the input rank: ``axes`` (opset 18) and ``wrap``."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.pad_to_opset import pad_value
from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder
from mo.graph.building import i64, input_rank
from mo.graph.node import Node
from mo.graph.port import Port

INT64_MAX = np.iinfo(np.int64).max


def full_pads(b: OpBuilder, node: Node, rank: int) -> tuple[Port, Port]:
    """(begins, ends) for every dim: ONNX pads [begins..., ends...] scattered to ``axes``
    (normalised modulo the rank), zeros elsewhere; folds to constants when the inputs are."""
    begin, end = b.Split(node.in_port(1).get_source(), np.int64(0), num_splits=2)
    if not node.is_in_port_connected(3):
        return begin, end
    axes = b.FloorMod(b.Convert(node.in_port(3).get_source(), destination_type="i64"), np.int64(rank))
    zeros = np.zeros(rank, np.int64)
    return (b.ScatterUpdate(zeros, axes, b.Convert(begin, destination_type="i64"), np.int64(0)),
            b.ScatterUpdate(zeros, axes, b.Convert(end, destination_type="i64"), np.int64(0)))


def _slice(b: OpBuilder, x, start, stop, axis: int):
    return b.Slice(x, start, stop, np.ones(1, np.int64), i64(axis))


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
        dim = b.Gather(b.ShapeOf(x, output_type="i64"), i64(axis), np.int64(0))
        x = _slice(b, x, b.Maximum(b.Negative(lo), zero), b.Subtract(dim, b.Maximum(b.Negative(hi), zero)), axis)
        dim = b.Gather(b.ShapeOf(x, output_type="i64"), i64(axis), np.int64(0))
        left = _slice(b, x, b.Subtract(dim, b.Maximum(lo, zero)), i64(INT64_MAX), axis)
        right = _slice(b, x, zero, b.Maximum(hi, zero), axis)
        x = b.Concat(left, x, right, axis=axis)
    return x


class PadAxesToOpset(MiddleReplaceOp):
    """ONNX Pad with ``axes`` -> Pad-12 with pads for every dim; ``wrap`` -> Slice/Concat."""

    op = "onnx::Pad"

    def replace_op(self, graph, node):
        x = node.in_port(0).get_source()
        rank = input_rank(node)
        b = OpBuilder(graph, node.name)
        begin, end = full_pads(b, node, rank)
        if node.mode == "wrap":
            known = begin.data.get_value(), end.data.get_value()
            if known[0] is not None and known[1] is not None:
                return [b.Identity(wrap_pad_static(b, x, *known), name=node.name)]
            return [b.Identity(wrap_pad_dynamic(b, x, begin, end, rank), name=node.name)]
        value = pad_value(b, node, x) if node.mode == "constant" else None
        return [b.Pad(x, begin, end, *([value] if value is not None else []), pad_mode=node.mode, name=node.name)]


class CenterCropPadToOpset(MiddleReplaceOp):
    """CenterCropPad -> Slice of the centred crop, then Pad-12 with zeros to the target sizes:
    per axis, crop start (dim - size) // 2 where the dim is larger, pad begin (size - dim) // 2
    where it is smaller."""

    op = "onnx::CenterCropPad"

    def replace_op(self, graph, node):
        x = node.in_port(0).get_source()
        rank = input_rank(node)
        axes = node.axes if node.axes is not None else list(range(rank))
        axes = np.array([a % rank for a in axes], np.int64)
        b = OpBuilder(graph, node.name)
        dims = b.Gather(b.ShapeOf(x, output_type="i64"), axes, np.int64(0))
        sizes = b.Convert(node.in_port(1).get_source(), destination_type="i64")
        zero, two = i64(0), i64(2)
        start = b.Divide(b.Maximum(b.Subtract(dims, sizes), zero), two)
        cropped = b.Slice(x, start, b.Add(start, b.Minimum(dims, sizes)), np.ones(len(axes), np.int64), axes)
        extra = b.Maximum(b.Subtract(sizes, dims), zero)
        before = b.Divide(extra, two)
        zeros = np.zeros(rank, np.int64)
        begin = b.ScatterUpdate(zeros, axes, before, np.int64(0))
        end = b.ScatterUpdate(zeros, axes, b.Subtract(extra, before), np.int64(0))
        return [b.Pad(cropped, begin, end, pad_mode="constant", name=node.name)]
