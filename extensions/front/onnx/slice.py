"""ONNX Slice (to Slice-8) and Split (to Split / VariadicSplit / Slices): extractors and
translators."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from mo.front.translator import translator
from mo.graph.building import dim, i64, shape_of, static_dim


class SliceExtractor(OnnxExtractor):
    """Slice: inputs (data, starts, ends, axes, steps) from opset 10, attributes before."""

    op_types = ("Slice",)

    @classmethod
    def extract(cls, node):
        if node.opset < 10:
            add_const_input(node, 1, cls.ints(node, "starts"), "starts")
            add_const_input(node, 2, cls.ints(node, "ends"), "ends")
            axes = cls.ints(node, "axes")
            if axes is not None:
                add_const_input(node, 3, axes, "axes")


@translator("onnx", "Slice")
def slice_(node, b):
    """Slice(data, starts, ends, axes, steps) -> Slice(data, starts, ends, steps, axes); missing
    steps are ones."""
    starts = node.in_port(1).get_source()
    if node.is_in_port_connected(4):
        steps = node.in_port(4).get_source()
    elif starts.data.get_value() is not None:
        steps = np.ones(starts.data.get_value().size, np.int64)
    else:
        steps = b.Broadcast(np.int64(1), shape_of(b, starts), mode="numpy")
    axes = [node.in_port(3).get_source()] if node.is_in_port_connected(3) else []
    return [b.Slice(node.in_port(0).get_source(), starts, node.in_port(2).get_source(), steps, *axes)]


class SplitExtractor(OnnxExtractor):
    """Split by the lengths in ``split`` (attribute before opset 13, input 1 after), or into equal
    parts, one per output (``num_outputs`` of opset 18 allows a smaller last part)."""

    op_types = ("Split",)

    @classmethod
    def extract(cls, node):
        split = cls.ints(node, "split")
        if split is not None and not node.is_in_port_connected(1):
            add_const_input(node, 1, split, "split")
        node.update({"axis": int(cls.attr(node, "axis", 0)), "uneven": cls.attr(node, "num_outputs") is not None})


def split_lengths(size: int, n: int) -> list[int]:
    """Chunks of ceil(size / n), the last one what is left."""
    chunk = -(-size // n)
    return [min(chunk, max(size - i * chunk, 0)) for i in range(n)]


@translator("onnx", "Split")
def split(node, b):
    """Split with lengths -> VariadicSplit; into n equal parts -> Split. A ``num_outputs`` split
    has parts of ceil(dim / n), the last one smaller: Split when n divides a known dim,
    VariadicSplit with the lengths for another known dim, and for a dim known only at run time
    one Slice per part (Slice clamps the last)."""
    x = node.in_port(0).get_source()
    axis = np.int64(node.axis)
    n = node.num_outputs
    if node.is_in_port_connected(1):
        parts = b.VariadicSplit(x, axis, node.in_port(1).get_source(), num_outputs=n, name=node.name)
    elif not node.uneven:
        parts = b.Split(x, axis, num_splits=n, name=node.name)
    else:
        size = static_dim(x, node.axis)
        if size is not None and size % n == 0:
            parts = b.Split(x, axis, num_splits=n, name=node.name)
        elif size is not None:
            parts = b.VariadicSplit(x, axis, i64(split_lengths(size, n)), name=node.name)
        else:
            chunk = b.Divide(b.Add(dim(b, x, node.axis), np.int64(n - 1)), np.int64(n))
            parts = [b.Slice(x, b.Multiply(chunk, i64(i)), b.Multiply(chunk, i64(i + 1)), i64(1), i64(node.axis),
                             name=f"{node.name}:{i}") for i in range(n)]
    return list(parts) if isinstance(parts, (tuple, list)) else [parts]
