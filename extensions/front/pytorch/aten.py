"""What the ATen translators share: PyTorch's type promotion (``promoted``, ``result_type``) and
the building helpers they use most, under the names they use (the generic ones come from
``mo/graph/building.py``).

ATen translators are functions registered with ``@aten("aten::name")``
(``extensions/load/pytorch/arguments.py``): ``fn(node, a, b)`` reads the arguments through ``a``
(``AtenArgs``) and builds opset ops with the OpBuilder ``b`` once every input is inferred.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from extensions.load.pytorch.arguments import AtenArgs
from mo.errors import ConversionError
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, int_list_port, norm_axis, rank_of, shape_of  # noqa: F401 (used by translators)
from mo.graph.building import dim as dim_size  # noqa: F401
from mo.graph.building import typed_const as const  # noqa: F401
from mo.graph.port import Port

_CATEGORY = {"boolean": 0, "u8": 1, "i8": 1, "i16": 1, "i32": 1, "i64": 1, "u16": 1, "u32": 1, "u64": 1,
             "f16": 2, "bf16": 2, "f32": 2, "f64": 2}
_BITS = {"u8": 8, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "u16": 16, "u32": 32, "u64": 64,
         "f16": 16, "bf16": 16, "f32": 32, "f64": 64}
_DEFAULT = {0: "boolean", 1: "i64", 2: "f32"}   # the type a Python bool / int / float takes


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


def promoted(a: AtenArgs, keys: Sequence[int | str], b: OpBuilder) -> tuple[str, list[Port]]:
    """The result type of the tensor arguments ``keys`` and the arguments converted to it."""
    ports = [a.tensor(k) for k in keys]
    et = result_type([(p, a.is_weak(k)) for p, k in zip(ports, keys)])
    return et, [convert(b, p, et) for p in ports]


# ---------------------------------------------------------------------------- shapes


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
