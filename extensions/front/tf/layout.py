"""Channels-last <-> channels-first helpers for lowering TensorFlow's NHWC operations.

A layout-sensitive TensorFlow op in NHWC becomes ``Transpose(to NCHW) -> opset op (NCHW) ->
Transpose(to NHWC)``; the layout step (extensions/middle/transpose_sinking.py) then moves those
Transposes through layout-agnostic ops and cancels the pairs that meet.
"""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.building import to_channels_first, to_channels_last


def channels_last(data_format: str) -> bool:
    """Whether a TensorFlow data_format (NHWC, NDHWC, NWC, NCHW...) keeps channels last."""
    return not data_format.startswith("NC")


def spatial(values, data_format: str) -> list[int]:
    """The spatial entries of a per-dimension attribute given in ``data_format`` order."""
    values = [int(v) for v in values]
    return values[1:-1] if channels_last(data_format) else values[2:]


def explicit_pads(node) -> tuple[list[int], list[int]]:
    """(pads_begin, pads_end) of the spatial dims from ``explicit_paddings`` (pairs per dim in
    data_format order)."""
    pairs = np.array(node.explicit_paddings, np.int64).reshape(-1, 2).tolist()
    picked = spatial(range(len(pairs)), node.data_format)
    return [pairs[i][0] for i in picked], [pairs[i][1] for i in picked]


def window_attrs(node) -> dict:
    """strides, dilations, pads and auto_pad of a TensorFlow windowed op for the opset op."""
    fmt = node.data_format
    attrs = {"strides": spatial(node.strides, fmt), "dilations": spatial(node.dilations, fmt)}
    n = len(attrs["strides"])
    if node.padding == "SAME":
        attrs.update(auto_pad="same_upper", pads_begin=[0] * n, pads_end=[0] * n)
    elif node.padding == "VALID":
        attrs.update(auto_pad="valid", pads_begin=[0] * n, pads_end=[0] * n)
    elif node.padding == "EXPLICIT":
        begin, end = explicit_pads(node)
        attrs.update(auto_pad="explicit", pads_begin=begin, pads_end=end)
    else:
        raise ValueError(f"unknown padding '{node.padding}'")
    return attrs


def in_channels_first(b: OpBuilder, x, node, rank: int):
    """``x`` transposed to channels-first when the node's data_format keeps channels last."""
    if not channels_last(node.data_format):
        return x
    return b.Transpose(x, to_channels_first(rank), name=f"{node.name}/to_channels_first")


def back_to_data_format(b: OpBuilder, y, node, rank: int):
    """A channels-first result ``y`` in the node's data_format again."""
    if not channels_last(node.data_format):
        return y
    return b.Transpose(y, to_channels_last(rank), name=f"{node.name}/to_channels_last")
