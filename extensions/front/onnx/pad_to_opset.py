"""Lowering of ONNX Pad without ``axes`` to Pad-12 (``wrap`` and ``axes`` need the rank: see
extensions/middle/pad_axes.py)."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.building import as_scalar
from mo.graph.node import Node
from mo.graph.port import Port
from mo.pipeline.transform import ReplaceOp


def pad_value(b: OpBuilder, node: Node, x: Port) -> Port | None:
    """The scalar padding value: input 2, the ``value`` attribute of old opsets, or None (0)."""
    if node.is_in_port_connected(2):
        return as_scalar(b, node.in_port(2).get_source())
    if node.value:
        return b.ConvertLike(np.float32(node.value), x)
    return None


class PadToOpset(ReplaceOp):
    """Pad(x, pads=[begins..., ends...], value) -> Pad-12(x, begins, ends, value)."""

    op = "onnx::Pad"

    def replace_op(self, graph, node):
        if node.is_in_port_connected(3) or node.mode == "wrap":
            return None
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        begin, end = b.Split(node.in_port(1).get_source(), np.int64(0), num_splits=2)
        value = pad_value(b, node, x) if node.mode == "constant" else None
        inputs = [x, begin, end] + ([value] if value is not None else [])
        return [b.Pad(*inputs, pad_mode=node.mode, name=node.name)]
