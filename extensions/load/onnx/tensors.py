"""ONNX tensors and types as numpy arrays and OpenVINO element types.

External data is resolved next to the model file and memory-mapped (no copy); a location that
leaves the model's folder is refused.
"""
from __future__ import annotations

import logging
import os

import numpy as np

from mo.errors import InputModelError

# ONNX TensorProto.DataType -> OpenVINO element type
ONNX_TO_ET = {
    1: "f32", 2: "u8", 3: "i8", 4: "u16", 5: "i16", 6: "i32", 7: "i64", 8: "string", 9: "boolean",
    10: "f16", 11: "f64", 12: "u32", 13: "u64", 16: "bf16", 17: "f8e4m3", 19: "f8e5m2", 21: "u4",
    22: "i4",
}
ONNX_TYPE_NAMES = {
    14: "complex64", 15: "complex128", 18: "float8e4m3fnuz", 20: "float8e5m2fnuz", 23: "float4e2m1",
    24: "float8e8m0", 25: "uint2", 26: "int2",
}
# Types OpenVINO lacks whose every value a wider OpenVINO type holds exactly: model inputs and
# initializers of these types are widened (a Cast *to* them stays unsupported: it must round).
WIDENED = {18: "f32", 20: "f32", 23: "f32", 24: "f32", 25: "u8", 26: "i8"}

log = logging.getLogger("mo")


def element_type_of(onnx_type: int, where: str = "", widen: bool = False) -> str:
    """OpenVINO element type of an ONNX type; with ``widen``, a type OpenVINO lacks becomes the
    wider type that represents all its values (with a warning), otherwise it is an error."""
    if onnx_type in ONNX_TO_ET:
        return ONNX_TO_ET[onnx_type]
    name = ONNX_TYPE_NAMES.get(onnx_type, str(onnx_type))
    if widen and onnx_type in WIDENED:
        log.warning("ONNX element type %s%s is widened to %s, which holds all its values (OpenVINO has no %s).",
                    name, where, WIDENED[onnx_type], name)
        return WIDENED[onnx_type]
    raise InputModelError(f"ONNX element type {name}{where} has no OpenVINO equivalent.")


def _check_location(model_dir: str, location: str, tensor_name: str) -> str:
    base = os.path.realpath(model_dir)
    path = os.path.realpath(os.path.join(base, location))
    if os.path.isabs(location) or os.path.commonpath([base, path]) != base:
        raise InputModelError(
            f"External data of tensor '{tensor_name}' is at '{location}', outside the model's folder "
            f"'{base}'; it is refused. Move the data file next to the model.")
    if not os.path.isfile(path):
        raise InputModelError(
            f"External data file '{location}' of tensor '{tensor_name}' is missing (looked for '{path}'). "
            f"Keep the data files next to the model file.")
    return path


def _byte_count(info: dict, key: str, default: int, tensor_name: str) -> int:
    """An external-data ``offset`` or ``length``: a non-negative whole number of bytes."""
    text = info.get(key)
    if text is None:
        return default
    if not text.strip().isdigit():
        raise InputModelError(f"External data of tensor '{tensor_name}' has {key} '{text}', which is not a "
                              f"non-negative whole number of bytes: the model file is corrupt.")
    return int(text)


def _external_array(tensor, model_dir: str | None, dtype: np.dtype, shape: tuple) -> np.ndarray:
    info = {e.key: e.value for e in tensor.external_data}
    if model_dir is None:
        raise InputModelError(f"Tensor '{tensor.name}' uses external data but the model was not read "
                              f"from a file; pass the model's path instead.")
    path = _check_location(model_dir, info.get("location", ""), tensor.name)
    offset = _byte_count(info, "offset", 0, tensor.name)
    count = int(np.prod(shape, dtype=np.int64))
    length = _byte_count(info, "length", count * dtype.itemsize, tensor.name)
    file_size = os.path.getsize(path)
    if offset + length > file_size or length < count * dtype.itemsize:
        raise InputModelError(
            f"External data of tensor '{tensor.name}' needs bytes {offset}..{offset + count * dtype.itemsize} "
            f"of '{path}', which has {file_size} bytes: the data file is truncated or does not match the model.")
    if count == 0:
        return np.zeros(shape, dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=(count,)).reshape(shape)


_DIRECT = ("f32", "f64", "f16", "i64", "i32", "i16", "i8", "u8", "u16", "u32", "u64", "boolean")


def tensor_to_array(tensor, model_dir: str | None = None, raw=None) -> tuple[np.ndarray, str]:
    """(numpy value, element type) of an ONNX TensorProto; ``raw`` is its raw_data held
    elsewhere (a memoryview of the mapped model file), read without a copy."""
    from onnx import TensorProto, numpy_helper

    et = element_type_of(tensor.data_type, f" of tensor '{tensor.name}'", widen=True)
    shape = tuple(int(d) for d in tensor.dims)
    widened = tensor.data_type in WIDENED
    if raw is not None:
        if et in _DIRECT and not widened:
            from mo.utils.types import np_dtype
            dtype = np_dtype(et)
            count = int(np.prod(shape, dtype=np.int64))
            if len(raw) != count * dtype.itemsize:
                raise InputModelError(f"Tensor '{tensor.name}' has {len(raw)} bytes of data but its shape "
                                      f"{list(shape)} needs {count * dtype.itemsize}: the model is corrupt.")
            return np.frombuffer(raw, dtype=dtype, count=count).reshape(shape), et
        tensor = _with_raw(tensor, raw)
    if tensor.data_location == TensorProto.EXTERNAL and et not in ("string",):
        if et in _DIRECT and not widened:
            from mo.utils.types import np_dtype
            return _external_array(tensor, model_dir, np_dtype(et), shape), et
        if model_dir is None:
            raise InputModelError(f"Tensor '{tensor.name}' uses external data but the model was not read from a file.")
        from onnx.external_data_helper import load_external_data_for_tensor
        info = {e.key: e.value for e in tensor.external_data}
        _check_location(model_dir, info.get("location", ""), tensor.name)
        for key in ("offset", "length"):
            _byte_count(info, key, 0, tensor.name)
        try:
            load_external_data_for_tensor(tensor, model_dir)
        except (OSError, ValueError) as e:
            raise InputModelError(f"Cannot read the external data of tensor '{tensor.name}': {e}") from e
    try:
        value = numpy_helper.to_array(tensor)
    except Exception as e:
        raise InputModelError(f"Cannot read the data of tensor '{tensor.name}': {e}") from e
    if widened:
        from mo.utils.types import np_dtype
        value = value.astype(np.float32).astype(np_dtype(et))
    elif et == "string":
        value = np.array([v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value.reshape(-1)],
                         dtype=object).reshape(value.shape)
    elif et in ("bf16", "f8e4m3", "f8e5m2"):
        value = value.astype(np.float32)
    elif et in ("u4", "i4"):
        value = value.astype(np.uint8 if et == "u4" else np.int8)
    return value, et


def _with_raw(tensor, raw):
    from onnx import TensorProto
    full = TensorProto()
    full.CopyFrom(tensor)
    full.raw_data = bytes(raw)
    return full


def type_proto_info(type_proto, where: str = "", widen: bool = True) -> tuple[str | None, tuple | None]:
    """(element type, shape) of a tensor TypeProto; shape dims -1 when symbolic, shape None when
    the rank is unknown."""
    if not type_proto.HasField("tensor_type"):
        return None, None
    tt = type_proto.tensor_type
    et = element_type_of(tt.elem_type, where, widen) if tt.elem_type else None
    if not tt.HasField("shape"):
        return et, None
    dims = []
    for d in tt.shape.dim:
        dims.append(int(d.dim_value) if d.HasField("dim_value") else -1)
    return et, tuple(dims)
