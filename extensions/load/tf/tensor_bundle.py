"""A TensorFlow checkpoint (tensor bundle) read without TensorFlow.

``<prefix>.index`` is a table in LevelDB's SSTable format (blocks of prefix-compressed key/value
entries, an index block, and a 48-byte footer ending with the table's magic number) whose keys are
checkpoint keys and whose values are BundleEntryProto (tensor_bundle.proto); key "" holds the
BundleHeaderProto. An entry names its shard (``<prefix>.data-0000i-of-0000N``), the byte offset and
size of the tensor there, its element type and shape. Tensors are read as numpy views over
memory-mapped shards (one mapping a tensor): nothing is copied, pages are read when the IR is
written.
"""
from __future__ import annotations

import mmap
import os
import struct

import numpy as np

from extensions.load.tf.protos import parse_light
from extensions.load.tf.tensors import element_type_of, shape_of
from mo.errors import InputModelError
from mo.utils.types import np_dtype
from mo.utils.varint import VarintError, read_varint

TABLE_MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48


class UnsupportedBundle(Exception):
    """The bundle uses something this reader does not read (compression, sliced or string
    variables); the caller falls back to TensorFlow."""


def _read(data, pos: int) -> tuple[int, int]:
    try:
        return read_varint(data, pos)
    except VarintError as e:
        raise InputModelError(str(e)) from None


def _block(data: bytes, offset: int, size: int, path: str) -> bytes:
    """The contents of a block (its trailer: one compression byte and a CRC32C)."""
    if offset + size + 5 > len(data):
        raise InputModelError(f"'{path}' is truncated: a block ends past the end of the file.")
    kind = data[offset + size]
    if kind != 0:
        raise UnsupportedBundle(f"'{path}' has blocks compressed with method {kind}")
    return data[offset:offset + size]


def _entries(block: bytes):
    """(key, value) of a block's entries: each shares a prefix with the previous key."""
    if len(block) < 4:
        raise InputModelError("a block is shorter than its restart count")
    restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
    limit = len(block) - 4 - 4 * restarts
    pos, key = 0, b""
    while pos < limit:
        shared, pos = _read(block, pos)
        own, pos = _read(block, pos)
        length, pos = _read(block, pos)
        key = key[:shared] + block[pos:pos + own]
        pos += own
        yield key, block[pos:pos + length]
        pos += length


def read_table(path: str) -> dict[bytes, bytes]:
    """{key: value} of an SSTable file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < FOOTER_SIZE or struct.unpack_from("<Q", data, len(data) - 8)[0] != TABLE_MAGIC:
        raise InputModelError(f"'{path}' is not a TensorFlow checkpoint index (no table footer).")
    footer = data[-FOOTER_SIZE:]
    _, pos = _read(footer, 0)              # metaindex handle: unused
    _, pos = _read(footer, pos)
    index_offset, pos = _read(footer, pos)
    index_size, pos = _read(footer, pos)
    table = {}
    for _, handle in _entries(_block(data, index_offset, index_size, path)):
        offset, p = _read(handle, 0)
        size, _ = _read(handle, p)
        table.update(_entries(_block(data, offset, size, path)))
    return table


class TensorBundle:
    """The tensors of a checkpoint ``prefix`` (``.../variables/variables``)."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        index = prefix + ".index"
        try:
            raw = read_table(index)
        except InputModelError as e:
            raise InputModelError(f"Cannot read the checkpoint '{prefix}': {e}") from None
        what = f"An entry of the checkpoint index '{index}'"
        header = parse_light("BundleHeaderProto", raw.pop(b"", b""), what)
        if header.endianness != 0:
            raise UnsupportedBundle(f"'{index}' holds big-endian tensors")
        self.num_shards = max(header.num_shards, 1)
        self.entries = {key.decode("utf-8", "replace"): parse_light("BundleEntryProto", value, what)
                        for key, value in raw.items()}

    def _shard_path(self, shard: int) -> str:
        path = f"{self.prefix}.data-{shard:05d}-of-{self.num_shards:05d}"
        if not os.path.isfile(path):
            raise InputModelError(f"The checkpoint shard '{path}' is missing.")
        return path

    def _bytes_of(self, key: str) -> tuple[object, object, int]:
        """(entry, a read-only buffer holding the tensor, the tensor's offset in it). Each tensor
        maps its own pages, so the pages of a tensor the conversion replaces (folded into
        another) are let go with the last view of it."""
        entry = self.entries[key]
        if not 0 <= entry.shard_id < self.num_shards:
            raise InputModelError(f"The checkpoint tensor '{key}' is in shard {entry.shard_id} of "
                                  f"{self.num_shards}: the checkpoint is corrupt.")
        path = self._shard_path(entry.shard_id)
        if entry.offset < 0 or entry.size < 0 or entry.offset + entry.size > os.path.getsize(path):
            raise InputModelError(f"The checkpoint tensor '{key}' ends past the end of its shard: the checkpoint "
                                  f"is truncated.")
        if entry.size == 0:
            return entry, b"", 0
        start = entry.offset - entry.offset % mmap.ALLOCATIONGRANULARITY
        with open(path, "rb") as f:
            data = mmap.mmap(f.fileno(), entry.offset + entry.size - start, offset=start, access=mmap.ACCESS_READ)
        return entry, data, entry.offset - start

    def tensor(self, key: str) -> np.ndarray:
        """A numpy view (read-only) of the tensor under ``key``."""
        if key not in self.entries:
            raise InputModelError(f"The checkpoint '{self.prefix}' has no tensor '{key}'.")
        entry, data, offset = self._bytes_of(key)
        if entry.slices:
            raise UnsupportedBundle(f"the checkpoint tensor '{key}' is saved in slices")
        try:
            et = element_type_of(entry.dtype, f" of checkpoint tensor '{key}'")
        except InputModelError as e:             # complex, quantized: TensorFlow's freezing reads them
            raise UnsupportedBundle(str(e)) from None
        if et in (None, "string"):
            raise UnsupportedBundle(f"the checkpoint tensor '{key}' holds {et or 'handles'}")
        shape = shape_of(entry.shape) or ()
        count = int(np.prod(shape, dtype=np.int64))
        dtype = np.dtype(np.uint16) if et == "bf16" else np_dtype(et)
        if entry.size != count * dtype.itemsize:
            raise InputModelError(f"The checkpoint tensor '{key}' has {entry.size} bytes but its shape "
                                  f"{list(shape)} needs {count * dtype.itemsize}: the checkpoint is corrupt.")
        value = np.frombuffer(data, dtype=dtype, count=count, offset=offset).reshape(shape)
        if et == "bf16":                       # held in f32, as tensors.py does
            value = (value.astype(np.uint32) << 16).view(np.float32)
        return value

    def string(self, key: str) -> bytes:
        """The value of a scalar string tensor (the checkpoint's object graph): the length as a
        varint, a 4-byte checksum of the lengths, then the bytes."""
        if key not in self.entries:
            raise UnsupportedBundle(f"the checkpoint has no '{key}'")
        entry, data, offset = self._bytes_of(key)
        if element_type_of(entry.dtype) != "string" or shape_of(entry.shape):
            raise UnsupportedBundle(f"the checkpoint's '{key}' is not a scalar string")
        raw = bytes(data[offset:offset + entry.size])
        length, pos = _read(raw, 0)
        return raw[pos + 4:pos + 4 + length]
