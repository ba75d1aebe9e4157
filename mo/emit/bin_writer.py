"""Weights file writer: each distinct constant is written once, streamed to the file.

A constant of a numeric element type is written in chunks converted to that type as they are
written, so a Const may hold its value in a wider dtype than it is stored in: fp16 compression
keeps the float32 weights (views of the model file) on an f16 Const, and neither a float16 copy
of them nor a contiguous copy of a strided view is ever held whole.
"""
from __future__ import annotations

import math
import mmap
from typing import BinaryIO, Callable, Iterator

import numpy as np

try:
    from numpy.lib.array_utils import byte_bounds
except ImportError:      # numpy < 2
    byte_bounds = np.byte_bounds

from mo.utils.types import np_dtype

# Element types stored as the plain bytes of their numpy dtype (the others are packed: u4, i4,
# u1, bf16).
PLAIN_TYPES = frozenset({"f64", "f32", "f16", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "boolean"})
CHUNK_BYTES = 4 * 2 ** 20
_MADV_DONTNEED = getattr(mmap, "MADV_DONTNEED", None)
# Smaller views are not released: their few pages are shared with their neighbours, so releasing
# them would mostly mean reading them again.
RELEASE_MIN_BYTES = 64 * 1024


def _pack_nibbles(values: np.ndarray) -> bytes:
    flat = values.reshape(-1).astype(np.uint8) & 0x0F
    if flat.size % 2:
        flat = np.concatenate([flat, np.zeros(1, np.uint8)])
    return (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes()


def _to_bf16(values: np.ndarray) -> bytes:
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16).tobytes()


class LazyConstant:
    """A constant whose values are computed only while the writer streams them to the .bin:
    ``parts()`` yields them in C order as 1-D arrays of ``dtype`` (u4/i4: one value per byte, the
    writer packs them), computed from a source held elsewhere (the quantized weights of
    --compress_weights: from the float weights, often views of the model file), so they are never
    held whole. ``np.asarray`` of it computes them all (for checks and tests)."""

    def __init__(self, shape: tuple, dtype, parts: Callable[[], Iterator[np.ndarray]]):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.parts = parts

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __array__(self, dtype=None, copy=None):
        flat = np.concatenate([np.asarray(p, self.dtype) for p in self.parts()] or [np.zeros(0, self.dtype)])
        return flat.reshape(self.shape).astype(dtype or self.dtype, copy=False)


def packed_strings(value: np.ndarray) -> bytes:
    """Strings as the IR stores them: the count (i32), count + 1 offsets into the characters
    (i32, from 0), then the characters of every string, UTF-8 encoded, one after another."""
    items = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in np.asarray(value, object).reshape(-1)]
    offsets = np.concatenate([[0], np.cumsum([len(v) for v in items], dtype=np.int64)]).astype(np.int32)
    return np.int32(len(items)).tobytes() + offsets.tobytes() + b"".join(items)


def tensor_bytes(value: np.ndarray, element_type: str) -> memoryview | bytes:
    """The bytes of ``value`` as the IR stores an ``element_type`` constant, all at once (the
    writer streams the plain types with ``stored_chunks`` instead)."""
    if element_type in ("u4", "i4"):
        return _pack_nibbles(value)
    if element_type == "u1":
        return np.packbits(value.reshape(-1).astype(np.uint8) != 0).tobytes()
    if element_type == "bf16":
        return _to_bf16(value)
    if element_type == "string":
        return packed_strings(value)
    if element_type in ("f8e4m3", "f8e5m2"):
        raise ValueError(f"constants of type {element_type} cannot be written yet")
    arr = np.ascontiguousarray(value, dtype=np_dtype(element_type))
    return memoryview(arr).cast("B") if arr.size else b""


def stored_dtype(value: np.ndarray, element_type: str) -> np.dtype:
    """The dtype in which a constant's values are written and compared: the element type's own
    for the plain types, the value's container dtype for the packed ones."""
    return np_dtype(element_type) if element_type in PLAIN_TYPES else value.dtype


def flat_parts(value: np.ndarray, count: int) -> Iterator[np.ndarray]:
    """``value`` in C order as 1-D arrays of at most ``count`` values: views when the value is
    contiguous, one part's copy otherwise (made from the whole rows the part spans, a strided
    copy numpy does fast, when a row is not longer than a part)."""
    if value.flags.c_contiguous:
        flat = value.reshape(-1)
        for start in range(0, value.size, count):
            yield flat[start:start + count]
        return
    row = value.size // value.shape[0] if value.ndim and value.shape[0] else 0
    for start in range(0, value.size, count):
        if 0 < row <= count:
            first, end = start // row, (min(start + count, value.size) - 1) // row + 1
            offset = start - first * row
            yield np.ascontiguousarray(value[first:end]).reshape(-1)[offset:offset + count]
        else:
            yield value.flat[start:start + count]


def flat_chunks(value: np.ndarray, dtype: np.dtype, chunk_bytes: int = CHUNK_BYTES) -> Iterator[np.ndarray]:
    """``value`` in C order as 1-D arrays of ``dtype`` of at most ``chunk_bytes`` each: views
    when the value is contiguous and of that dtype, one chunk's copy otherwise."""
    for part in flat_parts(value, max(1, chunk_bytes // dtype.itemsize)):
        yield part.astype(dtype, copy=False)


def _read_only_mapping(value: np.ndarray) -> mmap.mmap | None:
    """The read-only memory map ``value`` is a view of (np.memmap, or np.frombuffer over a
    memoryview of an mmap), if any."""
    base = value
    while base is not None:
        if isinstance(base, mmap.mmap):
            return base if memoryview(base).readonly else None
        base = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
    return None


def release_pages(value: np.ndarray) -> None:
    """Drop the pages of a view of a read-only file mapping from this process's resident memory
    (they stay in the page cache, and are read again if the view is used again). Weights are
    views of the model file; without this, every page read once (to check or write a weight)
    counts as resident until the conversion ends. Anything else, and views under
    RELEASE_MIN_BYTES, are left alone."""
    if _MADV_DONTNEED is None or value.nbytes < RELEASE_MIN_BYTES:
        return
    mapping = _read_only_mapping(value)
    if mapping is None:
        return
    base = np.frombuffer(mapping, np.uint8, count=1).ctypes.data
    low, high = byte_bounds(value)
    start = (low - base) // mmap.PAGESIZE * mmap.PAGESIZE
    mapping.madvise(_MADV_DONTNEED, start, high - base - start)


def values_equal(a: np.ndarray, b: np.ndarray, dtype: np.dtype) -> bool:
    """Whether ``a`` and ``b`` have equal values once in ``dtype`` (compared chunk by chunk, as
    np.array_equal compares: NaN differs from NaN, -0.0 equals 0.0)."""
    if a.size != b.size:
        return False
    return all(np.array_equal(x, y) for x, y in zip(flat_chunks(a, dtype), flat_chunks(b, dtype)))


def head_tail(value: np.ndarray, dtype: np.dtype, count: int) -> bytes:
    """The bytes of the first and last ``count`` values in ``dtype`` (all of them when fewer)."""
    flat = value.flat
    return np.asarray(flat[:count], dtype).tobytes() + np.asarray(flat[-count:], dtype).tobytes()


def fingerprint(data) -> bytes:
    """A cheap key that tells most different tensors apart without reading them whole: the size
    and the first and last 256 bytes."""
    view = memoryview(data).cast("B") if not isinstance(data, bytes) else memoryview(data)
    return len(view).to_bytes(8, "little") + bytes(view[:256]) + bytes(view[-256:])


def plain_fingerprint(value: np.ndarray, dtype: np.dtype) -> bytes:
    """``fingerprint`` of the bytes ``value`` is stored as in ``dtype``, computed from its first
    and last values only."""
    size = value.size * dtype.itemsize
    return size.to_bytes(8, "little") + head_tail(value, dtype, 256 // dtype.itemsize)


class BinWriter:
    """Appends tensors to a weights stream and returns their (offset, size); a tensor whose
    values were written before is not written again. Tensors are compared by a cheap fingerprint
    first, and in full only when fingerprints match, so unique weights are never hashed. Only
    the graph's own arrays are remembered, not the bytes written. Plain types are written chunk
    by chunk, converted to the stored type on the way."""

    def __init__(self, stream: BinaryIO):
        self.stream = stream
        self.offset = 0
        self._seen: dict[tuple[str, bytes], list[tuple[np.ndarray, tuple[int, int]]]] = {}
        self._empty: tuple[int, int] | None = None

    def add(self, value: np.ndarray | LazyConstant, element_type: str) -> tuple[int, int]:
        if isinstance(value, LazyConstant):
            return self._add_lazy(value, element_type)
        value = np.asarray(value)
        if value.size == 0:
            return self._add_empty()
        if element_type == "bf16" and value.dtype == np.uint16:
            element_type = "u16"     # raw bf16 bit patterns (weights read from a file): stored as they are
        if element_type not in PLAIN_TYPES:
            return self._add_packed(value, element_type)
        dtype = np_dtype(element_type)
        candidates = self._seen.setdefault((element_type, plain_fingerprint(value, dtype)), [])
        for earlier, location in candidates:
            if values_equal(earlier, value, dtype):
                return location
        size = value.size * dtype.itemsize
        location = (self.offset, size)
        for part in flat_parts(value, CHUNK_BYTES // dtype.itemsize):
            self.stream.write(memoryview(part.astype(dtype, copy=False)).cast("B"))
            release_pages(part)
        self.offset += size
        candidates.append((value, location))
        return location

    def _add_empty(self) -> tuple[int, int]:
        """An empty tensor: one zero byte (shared by all of them), as OpenVINO's own serializer
        writes it, so that the IR reader hands shape inference a buffer and not a null pointer
        (a Broadcast to an empty shape failed to load with "ptr is Null")."""
        if self._empty is None:
            self._empty = (self.offset, 1)
            self.stream.write(b"\0")
            self.offset += 1
        return self._empty

    def _add_packed(self, value: np.ndarray, element_type: str) -> tuple[int, int]:
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

    def _add_lazy(self, value: LazyConstant, element_type: str) -> tuple[int, int]:
        """Write a LazyConstant part by part (nibbles packed across parts for u4/i4). Not
        de-duplicated: its source weights were, before they were quantized."""
        location = self.offset
        carry = np.zeros(0, np.uint8)
        for part in value.parts():
            if element_type in ("u4", "i4"):
                part = np.asarray(part).reshape(-1).astype(np.uint8)     # i4: two's complement nibbles
                part = np.concatenate([carry, part]) if carry.size else part
                carry, part = (part[-1:], part[:-1]) if part.size % 2 else (carry[:0], part)
                data = _pack_nibbles(part)
            else:
                data = memoryview(np.ascontiguousarray(part, np_dtype(element_type))).cast("B")
            self.stream.write(data)
            self.offset += len(data)
        if carry.size:
            data = _pack_nibbles(carry)
            self.stream.write(data)
            self.offset += len(data)
        return location, self.offset - location
