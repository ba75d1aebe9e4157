"""Helpers shared by the middle lowerings of the neural-network operators: dims that may be
known only at run time, and conversions to element types known in the middle phase (Convert
rather than ConvertLike, which is turned into Convert before some of these lowerings run)."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.port import Port


def dim(b: OpBuilder, port, axis: int) -> np.int64 | Port:
    """Size of one dim of ``port``: an i64 number when static, else a scalar computed at run time."""
    shape = port.data.get_shape()
    if shape is not None and shape[axis] >= 0:
        return np.int64(shape[axis])
    return b.Gather(b.ShapeOf(port), np.array(axis, np.int64), np.array(0, np.int64))


def as_type(b: OpBuilder, port, dtype: str) -> Port:
    """``port`` converted to ``dtype`` unless it has that type already."""
    if port.data.get_dtype() == dtype:
        return port
    return b.Convert(port, destination_type=dtype)


def as_float(b: OpBuilder, size) -> np.float32 | Port:
    """A size from ``dim`` as an f32 number or scalar."""
    return np.float32(size) if isinstance(size, np.integer) else as_type(b, size, "f32")
