"""Base of the PyTorch lowerings, and the helpers they share.

An ATen operation becomes opset operations once the element types, ranks and constant values of
its inputs are known (type promotion, negative dims, sizes computed from shapes): its node is an
``AtenOp`` (a ``mo.ops.lowered.LoweredOp``), whose ``build(node, a, b)`` runs when partial
inference reaches it, reads the arguments through ``a`` (``AtenArgs``) and builds the
replacement with the OpBuilder ``b``.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from extensions.load.pytorch.arguments import AtenArgs, where
from mo.errors import ConversionError
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.ops.lowered import LoweredOp
from mo.utils.types import np_dtype

_CATEGORY = {"boolean": 0, "u8": 1, "i8": 1, "i16": 1, "i32": 1, "i64": 1, "u16": 1, "u32": 1, "u64": 1,
             "f16": 2, "bf16": 2, "f32": 2, "f64": 2}
_BITS = {"u8": 8, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "u16": 16, "u32": 32, "u64": 64,
         "f16": 16, "bf16": 16, "f32": 32, "f64": 64}
_DEFAULT = {0: "boolean", 1: "i64", 2: "f32"}   # the type a Python bool / int / float takes


class AtenOp(LoweredOp):
    """An ATen operation lowered during partial inference; subclasses implement ``build``."""

    abstract = True

    @classmethod
    def lower(cls, node: Node, b: OpBuilder) -> list[Port | None]:
        return cls.build(node, AtenArgs(node), b)

    @classmethod
    def build(cls, node: Node, a: AtenArgs, b: OpBuilder) -> list[Port | None]:
        raise NotImplementedError


# ---------------------------------------------------------------------------- types


def category(et: str | None) -> int:
    if et not in _CATEGORY:
        raise ConversionError(f"Element type {et} is not supported in PyTorch arithmetic.")
    return _CATEGORY[et]


def is_float_type(et: str | None) -> bool:
    return _CATEGORY.get(et) == 2


def promote_types(x: str | None, y: str | None) -> str | None:
    """torch.promote_types of two element types (None: no type yet)."""
    if x is None or x == y:
        return y
    if y is None:
        return x
    cx, cy = category(x), category(y)
    if cx != cy:
        return x if cx > cy else y
    if cx == 2:
        if {x, y} == {"f16", "bf16"}:
            return "f32"
        return x if _BITS[x] >= _BITS[y] else y
    if "u8" in (x, y):      # u8 with a signed type needs the next wider signed type
        other = y if x == "u8" else x
        return {"i8": "i16"}.get(other, other)
    return x if _BITS[x] >= _BITS[y] else y


def _combine(higher: str | None, lower: str | None) -> str | None:
    if higher is None:
        return lower
    if lower is None or is_float_type(higher):
        return higher
    if higher == "boolean" or is_float_type(lower):
        return promote_types(higher, lower)
    return higher


def result_type(items: Sequence[tuple[Port, bool]]) -> str:
    """The element type PyTorch computes an operation on these inputs in: tensors with dims
    decide over 0-d tensors, which decide over Python numbers (``weak``), unless the latter are
    of a higher category (bool < int < float); a Python float then gives f32."""
    dims = zero = wrapped = None
    for port, weak in items:
        et = port.data.get_dtype()
        if weak:
            wrapped = promote_types(wrapped, _DEFAULT[category(et)])
        elif port.data.get_rank() == 0:
            zero = promote_types(zero, et)
        else:
            dims = promote_types(dims, et)
    return _combine(dims, _combine(zero, wrapped))


def convert(b: OpBuilder, port: Port, et: str) -> Port:
    """``port`` in element type ``et`` (a Convert when it is of another type)."""
    if port.data.get_dtype() == et:
        return port
    if port.node.op == "Const":
        from extensions.ops.elementwise import convert_value
        return b.const(convert_value(np.asarray(port.node.value), et), element_type=et)
    return b.Convert(port, destination_type=et)


def promoted(a: AtenArgs, keys: Sequence[int | str], b: OpBuilder) -> tuple[str, list[Port]]:
    """The result type of the tensor arguments ``keys`` and the arguments converted to it."""
    ports = [a.tensor(k) for k in keys]
    et = result_type([(p, a.is_weak(k)) for p, k in zip(ports, keys)])
    return et, [convert(b, p, et) for p in ports]


def const(b: OpBuilder, value: Any, et: str) -> Port:
    """A constant of element type ``et``."""
    return b.const(np.asarray(value).astype(np_dtype(et)), element_type=et)


# ---------------------------------------------------------------------------- shapes


def rank_of(port: Port, node: Node) -> int:
    """The rank of ``port``; an unknown rank is a ConversionError that asks for input shapes."""
    rank = port.data.get_rank()
    if rank is None:
        raise ConversionError(f"The rank of an input of {where(node)} is not known; give the model input "
                              f"shapes with --input (dynamic dimensions as ?).")
    return rank


def norm_axis(dim: int, rank: int, node: Node) -> int:
    """A torch dim (may be negative) as an axis in [0, rank)."""
    dim = int(dim)
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise ConversionError(f"Dimension {dim} is out of range for rank {rank} in {where(node)}.")
    return dim + rank if dim < 0 else dim


def shape_of(b: OpBuilder, port: Port) -> Port:
    """The shape of ``port`` as a 1-D i64 tensor (a constant when static)."""
    return b.ShapeOf(port, output_type="i64")


def dim_size(b: OpBuilder, port: Port, axis: int) -> Port:
    """The size of ``port`` along ``axis`` as a 0-d i64 tensor."""
    shape = port.data.get_shape()
    if shape is not None and shape[axis] >= 0:
        return b.const(np.int64(shape[axis]))
    return b.Gather(shape_of(b, port), b.const(np.int64(axis)), b.const(np.int64(0)))


def int_list_port(b: OpBuilder, items: Sequence[int | Port] | Port) -> Port:
    """A 1-D i64 tensor of ints given as Python ints and computed scalars or 1-D tensors."""
    if isinstance(items, Port):
        return convert(b, items, "i64")
    if all(not isinstance(i, Port) for i in items):
        return b.const(np.array([int(i) for i in items], np.int64))
    parts, run = [], []
    for item in items:
        if isinstance(item, Port):
            if run:
                parts.append(b.const(np.array(run, np.int64)))
                run = []
            item = convert(b, item, "i64")
            if item.data.get_rank() != 1:
                item = b.Reshape(item, b.const(np.array([1], np.int64)), special_zero=False)
            parts.append(item)
        else:
            run.append(int(item))
    if run:
        parts.append(b.const(np.array(run, np.int64)))
    return parts[0] if len(parts) == 1 else b.Concat(*parts, axis=0)


def reshape(b: OpBuilder, port: Port, shape: Sequence[int | Port] | Port, **kw) -> Port:
    """Reshape to ``shape`` (-1 infers one dimension, 0 is a zero-sized dimension)."""
    return b.Reshape(port, int_list_port(b, shape), special_zero=False, **kw)


def scalar_int(b: OpBuilder, value: int | Port) -> Port:
    """A 0-d i64 tensor of an int given as a Python int or a computed scalar."""
    if isinstance(value, Port):
        value = convert(b, value, "i64")
        if value.data.get_rank() != 0:
            value = b.Reshape(value, b.const(np.array([], np.int64)), special_zero=False)
        return value
    return b.const(np.int64(value))
