"""Weights file writer: each distinct constant is written once, streamed to the file."""
from __future__ import annotations

from typing import BinaryIO

import numpy as np

from mo.utils.types import np_dtype


def _pack_nibbles(values: np.ndarray) -> bytes:
    flat = values.reshape(-1).astype(np.uint8) & 0x0F
    if flat.size % 2:
        flat = np.concatenate([flat, np.zeros(1, np.uint8)])
    return (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes()


def _to_bf16(values: np.ndarray) -> bytes:
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16).tobytes()


def tensor_bytes(value: np.ndarray, element_type: str) -> memoryview | bytes:
    """The bytes of ``value`` as the IR stores an ``element_type`` constant."""
    if element_type in ("u4", "i4"):
        return _pack_nibbles(value)
    if element_type == "u1":
        return np.packbits(value.reshape(-1).astype(np.uint8) != 0).tobytes()
    if element_type == "bf16":
        return _to_bf16(value)
    if element_type in ("f8e4m3", "f8e5m2"):
        raise ValueError(f"constants of type {element_type} cannot be written yet")
    arr = np.ascontiguousarray(value, dtype=np_dtype(element_type))
    return memoryview(arr).cast("B") if arr.size else b""


def fingerprint(data) -> bytes:
    """A cheap key that tells most different tensors apart without reading them whole: the size
    and the first and last 256 bytes."""
    view = memoryview(data).cast("B") if not isinstance(data, bytes) else memoryview(data)
    return len(view).to_bytes(8, "little") + bytes(view[:256]) + bytes(view[-256:])


class BinWriter:
    """Appends tensors to a weights stream and returns their (offset, size); a tensor whose
    bytes were written before is not written again. Tensors are compared by a cheap fingerprint
    first, and in full only when fingerprints match, so unique weights are never hashed. Only
    the graph's own arrays are remembered, not the bytes written (a strided array's contiguous
    copy is dropped once written)."""

    def __init__(self, stream: BinaryIO):
        self.stream = stream
        self.offset = 0
        self._seen: dict[tuple[str, bytes], list[tuple[np.ndarray, tuple[int, int]]]] = {}

    def add(self, value: np.ndarray, element_type: str) -> tuple[int, int]:
        value = np.asarray(value)
        data = tensor_bytes(value, element_type)
        size = len(data) if isinstance(data, bytes) else data.nbytes
        candidates = self._seen.setdefault((element_type, fingerprint(data)), [])
        for earlier, location in candidates:
            if earlier.dtype == value.dtype and earlier.size == value.size and \
                    np.array_equal(earlier.reshape(-1), value.reshape(-1)):
                return location
        location = (self.offset, size)
        self.stream.write(data)
        self.offset += size
        candidates.append((value, location))
        return location
