"""Lowering of ONNX Slice to Slice-8 and of ONNX Split to Split / VariadicSplit."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp


class SliceToOpset(ReplaceOp):
    """Slice(data, starts, ends, axes, steps) -> Slice(data, starts, ends, steps, axes); missing
    steps are ones."""

    op = "onnx::Slice"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        starts = node.in_port(1).get_source()
        if node.is_in_port_connected(4):
            steps = node.in_port(4).get_source()
        elif starts.data.get_value() is not None:
            steps = np.ones(starts.data.get_value().size, np.int64)
        else:
            steps = b.Broadcast(np.int64(1), b.ShapeOf(starts, output_type="i64"), mode="numpy")
        axes = node.in_port(3).get_source() if node.is_in_port_connected(3) else None
        inputs = [node.in_port(0).get_source(), starts, node.in_port(2).get_source(), steps]
        return [b.Slice(*inputs, *([axes] if axes is not None else []), name=node.name)]


class SplitToOpset(ReplaceOp):
    """Split with lengths -> VariadicSplit; into n equal parts -> Split. A ``num_outputs`` split
    (whose last part may be smaller) waits for the middle phase (SplitUnevenToOpset)."""

    op = "onnx::Split"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        axis = np.int64(node.axis)
        n = node.num_outputs
        if node.is_in_port_connected(1):
            parts = b.VariadicSplit(x, axis, node.in_port(1).get_source(), num_outputs=n, name=node.name)
        elif node.uneven:
            return None
        else:
            parts = b.Split(x, axis, num_splits=n, name=node.name)
        return list(parts) if isinstance(parts, tuple) else [parts]
