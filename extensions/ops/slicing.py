"""Slicing operations: Slice-8 (start/stop/step/axes inputs) and StridedSlice-1 (masks)."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import DYN, normalize_axis
from mo.utils.types import INT_TYPES


def slice_length(dim: int, start: int, stop: int, step: int) -> int:
    """Length of ``range(dim)[start:stop:step]`` with clamping; DYN for a dynamic dim."""
    if step == 0:
        raise ValueError("slice step is 0")
    if dim < 0:
        return DYN
    return len(range(*slice(start, stop, step).indices(dim)))


def _ints(value) -> list[int]:
    return [int(v) for v in np.atleast_1d(value).reshape(-1)]


class Slice(Op):
    """data[start:stop:step] along ``axes`` (input 4; default 0..len(start)-1); out-of-range
    bounds clamp, negative bounds count from the end."""

    op = "Slice"
    string_inputs = True        # moves string tensors too (OpenVINO string support)
    input_ranks = {1: (1,), 2: (1,), 3: (1,), 4: (1,)}
    input_types = {1: INT_TYPES, 2: INT_TYPES, 3: INT_TYPES, 4: INT_TYPES}
    version = "opset8"

    @classmethod
    def _slices(cls, node, rank: int, start, stop, step, axes) -> dict[int, slice]:
        start, stop, step = _ints(start), _ints(stop), _ints(step)
        if not len(start) == len(stop) == len(step):
            raise ValueError(f"start {start}, stop {stop} and step {step} differ in length")
        axes = list(range(len(start))) if axes is None else _ints(axes)
        if len(axes) != len(start):
            raise ValueError(f"axes {axes} and start {start} differ in length")
        result = {}
        for a, b, e, s in zip(axes, start, stop, step):
            a = normalize_axis(a, rank)
            if a in result:
                raise ValueError(f"axis {a} is sliced twice")
            if s == 0:
                raise ValueError("slice step is 0")
            result[a] = slice(b, e, s)
        return result

    @classmethod
    def evaluate(cls, node, x, start, stop, step, axes=None):
        slices = cls._slices(node, x.ndim, start, stop, step, axes)
        return x[tuple(slices.get(i, slice(None)) for i in range(x.ndim))]

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None]
        values = [node.in_value(i) for i in (1, 2, 3)]
        axes = node.in_value(4)
        if any(v is None for v in values) or (node.is_in_port_connected(4) and axes is None):
            if node.is_in_port_connected(4) and axes is not None:
                dyn = {normalize_axis(a, len(shape)) for a in _ints(axes)}
                return [tuple(DYN if i in dyn else d for i, d in enumerate(shape))]
            return [(DYN,) * len(shape)]
        slices = cls._slices(node, len(shape), *values, axes)
        return [tuple(slice_length(d, slices[i].start, slices[i].stop, slices[i].step) if i in slices else d
                      for i, d in enumerate(shape))]


def _mask(node, name: str, n: int) -> list[int]:
    values = [int(v) for v in (node.get(name) or [])]
    return values + [0] * (n - len(values))


def strided_slice_index(node, rank: int, begin, end, stride) -> list:
    """The numpy index (slices, None for new axes, ints for shrunk axes) of a StridedSlice."""
    begin, end = _ints(begin), _ints(end)
    stride = _ints(stride) if stride is not None else [1] * len(begin)
    n = len(begin)
    bm, em = _mask(node, "begin_mask", n), _mask(node, "end_mask", n)
    new, shrink, ellipsis = (_mask(node, k, n) for k in ("new_axis_mask", "shrink_axis_mask", "ellipsis_mask"))
    index: list = []
    consumed = sum(1 for i in range(n) if not new[i] and not ellipsis[i])
    for i in range(n):
        if ellipsis[i]:
            index.extend([slice(None)] * (rank - consumed))
        elif new[i]:
            index.append(None)
        elif shrink[i]:
            index.append(begin[i])
        else:
            index.append(slice(None if bm[i] else begin[i], None if em[i] else end[i], stride[i]))
    return index


class StridedSlice(Op):
    """data[begin:end:stride] with the TensorFlow-style masks (1 in begin_mask/end_mask ignores
    that bound)."""

    op = "StridedSlice"
    string_inputs = True        # moves string tensors too (OpenVINO string support)
    input_ranks = {1: (1,), 2: (1,), 3: (1,)}
    input_types = {1: INT_TYPES, 2: INT_TYPES, 3: INT_TYPES}
    defaults = {"begin_mask": [0], "end_mask": [0], "new_axis_mask": [], "shrink_axis_mask": [],
                "ellipsis_mask": []}
    ir_attrs = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")

    @classmethod
    def evaluate(cls, node, x, begin, end, stride=None):
        return x[tuple(strided_slice_index(node, x.ndim, begin, end, stride))]

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        begin, end = node.in_value(1), node.in_value(2)
        stride = node.in_value(3) if node.is_in_port_connected(3) else np.ones_like(begin)
        if shape is None or begin is None or end is None or stride is None:
            return [None]
        out = []
        axis = 0
        for item in strided_slice_index(node, len(shape), begin, end, stride):
            if item is None:
                out.append(1)
                continue
            if isinstance(item, slice):
                out.append(slice_length(shape[axis], item.start, item.stop, item.step or 1))
            axis += 1
        return [tuple(out) + tuple(shape[axis:])]
