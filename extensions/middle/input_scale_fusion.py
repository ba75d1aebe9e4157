"""Per-channel preprocessing folded into the first convolution.

x * s or x / s (s per input channel or scalar) read only by a Convolution is the same as the
convolution with its weights scaled along the input-channel axis (zero padding commutes with a
scale). x - m or x + m is folded into a bias only when the convolution does not pad, since the
padding would otherwise see m where the original sees zeros.
"""
from __future__ import annotations

import numpy as np

from extensions.middle.scale_shift_fusions import MergeConstantAdds, _channel_factor, _sole_consumer
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import Transform


def _per_channel(node, pos: int, channels: int, rank: int):
    value = node.in_value(pos)
    if value is None or node.in_port(1 - pos).data.get_value() is not None:
        return None
    if node.out_port(0).data.get_shape() != node.in_port(1 - pos).data.get_shape():
        return None
    return _channel_factor(value.astype(np.float64), rank, channels, 1)


def _no_padding(conv) -> bool:
    if conv.get("auto_pad") == "valid":
        return True
    return conv.get("auto_pad") == "explicit" and not any(conv.get("pads_begin") or []) and \
        not any(conv.get("pads_end") or [])


class FoldInputScaleIntoConvolution(Transform):
    """Multiply/Divide by a per-input-channel constant feeding only a Convolution's data input
    -> weights scaled; Subtract/Add of one, when the convolution has no padding -> a bias."""

    phase = "middle"

    def run_after(self):
        return [MergeConstantAdds]

    def find_and_replace_pattern(self, graph) -> None:
        for conv in graph.nodes_by_op("Convolution"):
            while conv.id in graph and self._fold_once(graph, conv):
                pass

    def _fold_once(self, graph, conv) -> bool:
        src = conv.in_port(0).get_source()
        node = src.node
        weights = conv.in_port(1).get_source()
        shape = conv.in_port(0).data.get_shape()
        if node.op not in ("Multiply", "Divide", "Subtract", "Add") or weights.node.op != "Const" or \
                shape is None or shape[1] < 0 or _sole_consumer(src) != conv:
            return False
        channels, rank = shape[1], len(shape)
        positions = (0, 1) if node.op in ("Multiply", "Add") else (1,)
        for pos in positions:
            factor = _per_channel(node, pos, channels, rank)
            if factor is not None:
                break
        else:
            return False
        w = weights.node.value.astype(np.float64)
        b = OpBuilder(graph, conv.name)
        x = node.in_port(1 - pos).get_source()
        if node.op in ("Multiply", "Divide"):
            if node.op == "Divide":
                if np.any(factor == 0):
                    return False
                factor = 1.0 / factor
            scaled = w * factor.reshape((1, -1) + (1,) * (w.ndim - 2))
            b.const(scaled.astype(weights.node.value.dtype), name=weights.node.name).connect(conv.in_port(1))
            x.connect(conv.in_port(0))
            graph.remove_node(node.id)
            return True
        if not _no_padding(conv) or len(conv.out_port(0).get_destinations()) == 0:
            return False
        shift = factor if node.op == "Add" else -factor
        bias = (w * shift.reshape((1, -1) + (1,) * (w.ndim - 2))).sum(axis=tuple(range(1, w.ndim)))
        x.connect(conv.in_port(0))
        graph.remove_node(node.id)
        consumers = conv.out_port(0).get_destinations()
        add = b.Add(conv.out_port(0), bias.astype(weights.node.value.dtype).reshape((-1,) + (1,) * (rank - 2)),
                    name=f"{conv.name}/input_shift")
        add.take_names(conv.out_port(0))
        for port in consumers:
            add.connect(port)
        return True
