"""Protocol-buffer style base-128 varints (ONNX's protobuf stream, TensorFlow's checkpoint table)."""
from __future__ import annotations


class VarintError(ValueError):
    """A varint that runs past the end of its buffer or past 64 bits."""


def read_varint(buf, pos: int, end: int | None = None) -> tuple[int, int]:
    """(value, position after it) of the varint at ``buf[pos]``, reading no further than ``end``
    (default: the buffer's length)."""
    end = len(buf) if end is None else end
    result = shift = 0
    while True:
        if pos >= end:
            raise VarintError("a varint runs past the end of its data")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise VarintError("a varint is longer than 64 bits")


def encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)
