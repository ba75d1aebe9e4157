"""Inclusive scans (cumulative operations) that OpenVINO has no operation for, along an axis of
static length n, by prefix doubling: ceil(log2 n) steps, each combining every position with the
one s = 1, 2, 4 ... before it (positions before the start take the combination's identity).
Shared by ONNX CumProd and PyTorch's cumprod, cummax / cummin and logcumsumexp."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.building import i64
from mo.graph.port import Port


def shifted(b: OpBuilder, t: Port, axis: int, s: int, fill) -> Port:
    """``t`` moved by ``s`` along ``axis`` (towards the end), the first ``s`` positions ``fill``."""
    rank = t.data.get_rank()
    begin = np.zeros(rank, np.int64)
    begin[axis] = s
    head = b.Slice(t, i64(0), i64(-s), i64(1), i64(axis))
    return b.Pad(head, begin, np.zeros(rank, np.int64), fill, pad_mode="constant")


def prefix_scan(b: OpBuilder, values: Sequence[Port], axis: int, n: int,
                combine: Callable[[list, list], list], fills: Sequence) -> list[Port]:
    """The inclusive scan of the tensors ``values`` (scanned together, e.g. values and their
    indices) along ``axis`` of static length ``n``: ``combine(earlier, later)`` takes and gives a
    list like ``values`` and must be associative; ``fills`` are its identity elements."""
    ys = list(values)
    s = 1
    while s < n:
        before = [shifted(b, y, axis, s, fill) for y, fill in zip(ys, fills)]
        ys = combine(before, ys)
        s *= 2
    return ys
