"""Reading and writing safetensors files without torch and without copies.

A safetensors file is an 8-byte little-endian header length N, a JSON header of N bytes
(``{"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}}``,
offsets relative to the end of the header), then the tensors' bytes. ``SafetensorsFile`` maps
the file read-only and gives each tensor as a numpy view of the mapping: nothing is read until
the view is, and the IR writer releases the pages of such views once written
(``mo/emit/bin_writer.release_pages``). bf16 tensors are views of their raw 16-bit patterns
(uint16), float8 ones of their bytes (uint8): numpy has no type for them.

``write_safetensors`` writes tensors one by one from a generator, so a large file is written
without holding its tensors (the benchmark and the tests use it).
"""
from __future__ import annotations

import json
import mmap
import os
import struct
from typing import Iterable, NamedTuple

import numpy as np

from mo.errors import InputModelError

# safetensors dtype -> (OpenVINO element type, numpy dtype of the view)
DTYPES = {
    "F64": ("f64", np.float64), "F32": ("f32", np.float32), "F16": ("f16", np.float16),
    "BF16": ("bf16", np.uint16), "I64": ("i64", np.int64), "I32": ("i32", np.int32), "I16": ("i16", np.int16),
    "I8": ("i8", np.int8), "U64": ("u64", np.uint64), "U32": ("u32", np.uint32), "U16": ("u16", np.uint16),
    "U8": ("u8", np.uint8), "BOOL": ("boolean", np.bool_), "F8_E4M3": ("f8e4m3", np.uint8),
    "F8_E5M2": ("f8e5m2", np.uint8),
}
# element types whose views hold raw bit patterns rather than the values
RAW_TYPES = frozenset({"bf16", "f8e4m3", "f8e5m2"})
# a header is JSON text of names, shapes and offsets: a larger one is not a safetensors file
MAX_HEADER_BYTES = 100 * 2 ** 20


class TensorInfo(NamedTuple):
    element_type: str
    shape: tuple[int, ...]
    begin: int      # offset in the file
    end: int


class SafetensorsFile:
    """One safetensors file: its tensors' element types and shapes from the header (checked
    against the file's size), and their values as read-only views of the file mapping."""

    def __init__(self, path: str):
        self.path = path
        self.tensors: dict[str, TensorInfo] = {}
        self.metadata: dict = {}
        self._map: mmap.mmap | None = None
        try:
            size = os.path.getsize(path)
            with open(path, "rb") as f:
                head = f.read(8)
                if len(head) < 8:
                    self._fail(f"it has {size} bytes, less than the 8 of the header length")
                (length,) = struct.unpack("<Q", head)
                if length > min(size - 8, MAX_HEADER_BYTES):
                    self._fail(f"its header length says {length} bytes, but the file has {size} bytes: the file "
                               f"is truncated or not a safetensors file")
                text = f.read(length)
        except OSError as e:
            raise InputModelError(f"Cannot read the safetensors file '{path}': {e.strerror or e}.") from e
        try:
            header = json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            self._fail(f"its header is not valid JSON ({e})")
        if not isinstance(header, dict):
            self._fail("its header is not a JSON object")
        data_start = 8 + length
        for name, entry in header.items():
            if name == "__metadata__":
                self.metadata = entry if isinstance(entry, dict) else {}
                continue
            self.tensors[name] = self._entry(name, entry, data_start, size)

    def _fail(self, what: str):
        raise InputModelError(f"'{self.path}' is not a valid safetensors file: {what}. Save the weights again "
                              f"(e.g. model.save_pretrained(folder)).")

    def _entry(self, name: str, entry, data_start: int, size: int) -> TensorInfo:
        if not isinstance(entry, dict):
            self._fail(f"the header entry of tensor '{name}' is not an object")
        dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
        if dtype not in DTYPES:
            self._fail(f"tensor '{name}' has dtype {dtype!r}, which is not one of {', '.join(DTYPES)}")
        if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                                  for d in shape):
            self._fail(f"tensor '{name}' has shape {shape!r}, not a list of sizes")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(isinstance(o, int) and o >= 0
                                                                         for o in offsets)):
            self._fail(f"tensor '{name}' has data_offsets {offsets!r}, not [begin, end]")
        et, np_type = DTYPES[dtype]
        begin, end = data_start + offsets[0], data_start + offsets[1]
        expected = int(np.prod(shape, dtype=np.int64)) * np.dtype(np_type).itemsize
        if end - begin != expected:
            self._fail(f"tensor '{name}' ({dtype} {shape}) should have {expected} bytes, its offsets "
                       f"{offsets} give {end - begin}")
        if end > size:
            self._fail(f"tensor '{name}' ends at byte {end}, beyond the end of the file ({size} bytes): the "
                       f"file is truncated")
        return TensorInfo(et, tuple(shape), begin, end)

    def array(self, name: str) -> np.ndarray:
        """The tensor as a read-only numpy view of the mapped file (raw bit patterns for the
        RAW_TYPES)."""
        info = self.tensors[name]
        np_type = DTYPES_BY_ET[info.element_type]
        count = (info.end - info.begin) // np.dtype(np_type).itemsize
        if count == 0:
            return np.zeros(info.shape, np_type)
        if self._map is None:
            with open(self.path, "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return np.frombuffer(self._map, np_type, count, info.begin).reshape(info.shape)


DTYPES_BY_ET = {et: np_type for et, np_type in DTYPES.values()}


_DTYPE_NAMES = {et: name for name, (et, _) in DTYPES.items()}


def write_safetensors(path: str, tensors: Iterable[tuple[str, str, tuple[int, ...], Iterable[bytes]]],
                      metadata: dict | None = None) -> None:
    """Write a safetensors file from (name, element type, shape, chunks of the tensor's bytes)
    entries. The header needs every tensor's size first: the entries are listed once for it
    (their chunks are not consumed), then written in order, chunk by chunk."""
    entries = list(tensors)
    header: dict = {"__metadata__": metadata} if metadata else {}
    offset = 0
    sizes = []
    for name, et, shape, _ in entries:
        size = int(np.prod(shape, dtype=np.int64)) * np.dtype(DTYPES_BY_ET[et]).itemsize
        header[name] = {"dtype": _DTYPE_NAMES[et], "shape": list(shape), "data_offsets": [offset, offset + size]}
        sizes.append(size)
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)      # the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for (name, _, _, chunks), size in zip(entries, sizes):
            written = sum(f.write(chunk) for chunk in chunks)
            if written != size:
                raise ValueError(f"tensor '{name}' was given {written} bytes, its type and shape make {size}")
