"""SpaceToBatch-2 and BatchToSpace-2: moving spatial blocks into the batch and back. Inputs: data
[batch, D_1, ...], block_shape, pads_begin/crops_begin, pads_end/crops_end (each of the data's
rank, the batch entry 1 / 0)."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import DYN


def _ints(value) -> list[int]:
    return [int(v) for v in np.reshape(value, -1)]


def space_to_batch(x: np.ndarray, block: list[int], begin: list[int], end: list[int]) -> np.ndarray:
    x = np.pad(x, list(zip(begin, end)))
    n, spatial = x.shape[0], x.shape[1:]
    split = [n]
    for d, bs in zip(spatial, block[1:]):
        split += [d // bs, bs]
    x = x.reshape(split)
    k = len(spatial)
    order = [2 + 2 * i for i in range(k)] + [0] + [1 + 2 * i for i in range(k)]
    return x.transpose(order).reshape([n * int(np.prod(block[1:]))] + [d // bs for d, bs in zip(spatial, block[1:])])


def batch_to_space(x: np.ndarray, block: list[int], begin: list[int], end: list[int]) -> np.ndarray:
    inner = block[1:]
    k = len(inner)
    n = x.shape[0] // int(np.prod(inner))
    dims = list(x.shape[1:])
    x = x.reshape(inner + [n] + dims)
    order = [k] + [a for i in range(k) for a in (k + 1 + i, i)] + list(range(2 * k + 1, x.ndim))
    x = x.transpose(order).reshape([n] + [d * bs for d, bs in zip(dims, inner)] + dims[k:])
    return x[tuple(slice(b, x.shape[i] - e) for i, (b, e) in enumerate(zip(begin, end)))]


def block_batch_shape(shape: tuple, block: list[int], begin: list[int], end: list[int], to_batch: bool) -> tuple:
    """Output shape of SpaceToBatch (``to_batch``) or BatchToSpace; block and pads per dim."""
    if to_batch:
        out = [DYN if d < 0 else (d + b + e) // bs for d, bs, b, e in zip(shape, block, begin, end)]
        out[0] = DYN if shape[0] < 0 else shape[0] * int(np.prod(block))
    else:
        out = [DYN if d < 0 else d * bs - b - e for d, bs, b, e in zip(shape, block, begin, end)]
        out[0] = DYN if shape[0] < 0 else shape[0] // int(np.prod(block))
    return tuple(out)


class _BlockBatch(Op):
    abstract = True
    version = "opset2"
    to_batch = True

    @classmethod
    def evaluate(cls, node, x, block, begin, end):
        fn = space_to_batch if cls.to_batch else batch_to_space
        return fn(x, _ints(block), _ints(begin), _ints(end))

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        values = [node.in_value(i) for i in (1, 2, 3)]
        if shape is None:
            return [None]
        if any(v is None for v in values):
            return [(DYN,) * len(shape)]
        return [block_batch_shape(shape, *(_ints(v) for v in values), cls.to_batch)]


class SpaceToBatch(_BlockBatch):
    """Zero-pads the spatial dims, then moves each block_shape block into the batch dim."""

    op = "SpaceToBatch"


class BatchToSpace(_BlockBatch):
    """Moves blocks of the batch dim back into the spatial dims, then crops them."""

    op = "BatchToSpace"
    to_batch = False
