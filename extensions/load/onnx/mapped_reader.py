"""Reads an .onnx file without copying its weights.

The file is memory-mapped; a walk over the protobuf wire format finds the main graph's
initializers and the byte range of each one's ``raw_data``. Protobuf then parses a copy of the
model *without* those payloads (small), and each initializer's value becomes a numpy view over
the mapped file. The weights are thus held once (as file pages) instead of once in the parsed
message and again as arrays.
"""
from __future__ import annotations

import mmap
import os

from mo.errors import InputModelError
from mo.utils.varint import VarintError, encode_varint, read_varint

_MODEL_GRAPH = 7
_GRAPH_INITIALIZER = 5
_TENSOR_RAW_DATA = 9




def _fields(buf, start: int, end: int):
    """(field number, wire type, field start, payload start, payload end) of each field."""
    pos = start
    while pos < end:
        field_start = pos
        key, pos = read_varint(buf, pos, end)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, pos2 = read_varint(buf, pos, end)
            payload = (pos, pos2)
            pos = pos2
        elif wire == 1:
            payload = (pos, pos + 8)
            pos += 8
        elif wire == 2:
            length, pos = read_varint(buf, pos, end)
            payload = (pos, pos + length)
            pos += length
        elif wire == 5:
            payload = (pos, pos + 4)
            pos += 4
        else:
            raise VarintError("a field runs past the end of the data")
        if pos > end:
            raise VarintError("a field runs past the end of the data")
        yield number, wire, field_start, payload[0], payload[1]


def _length_delimited(number: int, payload: bytes) -> bytes:
    return encode_varint((number << 3) | 2) + encode_varint(len(payload)) + payload


def _strip_tensor(buf, start: int, end: int) -> tuple[bytes, tuple[int, int] | None]:
    """TensorProto bytes without raw_data, and the (start, end) of raw_data in ``buf``."""
    parts = []
    raw = None
    for number, wire, field_start, p0, p1 in _fields(buf, start, end):
        if number == _TENSOR_RAW_DATA and wire == 2:
            raw = (p0, p1)
        else:
            parts.append(bytes(buf[field_start:p1]))
    return b"".join(parts), raw


def read_mapped(path: str):
    """(ModelProto whose main-graph initializers carry no raw_data, list of numpy-ready raw byte
    ranges as memoryviews in initializer order, the mmap)."""
    from onnx import ModelProto

    with open(path, "rb") as f:
        try:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:   # empty file
            raise InputModelError(f"'{path}' is empty: it is not an ONNX model.") from None
    view = memoryview(mapped)
    size = len(mapped)
    try:
        model_parts = []
        raws: list[memoryview | None] = []
        for number, wire, field_start, p0, p1 in _fields(view, 0, size):
            if number == _MODEL_GRAPH and wire == 2:
                graph_parts = []
                for g_number, g_wire, g_start, g0, g1 in _fields(view, p0, p1):
                    if g_number == _GRAPH_INITIALIZER and g_wire == 2:
                        header, raw = _strip_tensor(view, g0, g1)
                        graph_parts.append(_length_delimited(_GRAPH_INITIALIZER, header))
                        raws.append(None if raw is None else view[raw[0]:raw[1]])
                    else:
                        graph_parts.append(bytes(view[g_start:g1]))
                model_parts.append(_length_delimited(_MODEL_GRAPH, b"".join(graph_parts)))
            else:
                model_parts.append(bytes(view[field_start:p1]))
    except VarintError:
        raise InputModelError(f"'{path}' is not a readable ONNX model: the file is truncated, corrupt or of "
                              f"another format.") from None
    model = ModelProto()
    try:
        model.ParseFromString(b"".join(model_parts))
    except Exception as e:
        raise InputModelError(f"'{path}' is not a readable ONNX model: the file is truncated, corrupt or of "
                              f"another format ({type(e).__name__}: {e}).") from None
    return model, raws, mapped


def read_model_proto(path: str):
    """Parse an ONNX file, turning every way it can be broken into one InputModelError.
    Returns the ModelProto (main-graph initializers without their raw bytes) and
    {initializer name: memoryview of its raw bytes in the memory-mapped file}."""
    if not os.path.isfile(path):
        raise InputModelError(f"Model file '{path}' does not exist.")
    model, raws, _ = read_mapped(path)
    check_model_proto(model, path)
    raw_by_name = {t.name: raw for t, raw in zip(model.graph.initializer, raws) if raw is not None}
    return model, raw_by_name


def check_model_proto(model, where: str) -> None:
    if model.ir_version <= 0 or not model.HasField("graph") or not model.opset_import:
        raise InputModelError(
            f"'{where}' is not an ONNX model (it parses, but has no IR version, opset or graph): "
            f"the file is truncated or of another format.")
