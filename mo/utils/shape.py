"""Shape helpers. A shape is a tuple of ints where -1 is a dynamic dimension; None is a shape of
unknown rank."""
from __future__ import annotations

from typing import Iterable, Sequence

DYN = -1
Shape = tuple


def is_static(shape: Shape | None) -> bool:
    return shape is not None and all(d >= 0 for d in shape)


def broadcast_shapes(*shapes: Shape | None) -> Shape | None:
    """Numpy broadcasting of several shapes, with dynamic dimensions."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        static = {d for d in dims if d >= 0 and d != 1}
        if len(static) > 1:
            raise ValueError(f"shapes {list(shapes)} do not broadcast")
        if static:
            result.append(static.pop())
        elif any(d == DYN for d in dims):
            result.append(DYN)
        else:
            result.append(1)
    return tuple(result)


def normalize_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def normalize_axes(axes: Iterable[int], rank: int) -> list[int]:
    return [normalize_axis(int(a), rank) for a in axes]


def dim_product(dims: Sequence[int]) -> int:
    """Product of dimensions; -1 if any is dynamic."""
    result = 1
    for d in dims:
        if d < 0:
            return DYN
        result *= d
    return result


def shape_str(shape: Shape | None) -> str:
    """Human form: [1,?,224]."""
    if shape is None:
        return "[...]"
    return "[" + ",".join("?" if d < 0 else str(d) for d in shape) + "]"
