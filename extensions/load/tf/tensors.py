"""TensorFlow element types, shapes and tensors as OpenVINO element types, shape tuples and numpy
arrays. The numbers are TensorFlow's ``DataType`` enum (types.proto)."""
from __future__ import annotations

import numpy as np

from mo.errors import InputModelError
from mo.utils.types import np_dtype

# DataType -> OpenVINO element type; resource and variant handles have none (None).
TF_TO_ET = {
    1: "f32", 2: "f64", 3: "i32", 4: "u8", 5: "i16", 6: "i8", 7: "string", 9: "i64", 10: "boolean",
    14: "bf16", 17: "u16", 19: "f16", 22: "u32", 23: "u64",
}
HANDLE_TYPES = {20: "resource", 21: "variant"}
TF_TYPE_NAMES = {8: "complex64", 11: "qint8", 12: "quint8", 13: "qint32", 15: "qint16", 16: "quint16",
                 18: "complex128"}
# complex DataTypes -> (name, element type of the real and imaginary parts). OpenVINO carries a
# complex tensor as a real one with a last dim of 2 (see the complex helpers of mo/graph/building.py).
TF_COMPLEX = {8: ("complex64", "f32"), 18: ("complex128", "f64")}
# element types numpy reads straight from tensor_content bytes
_DIRECT = ("f32", "f64", "f16", "i64", "i32", "i16", "i8", "u8", "u16", "u32", "u64", "boolean")


def element_type_of(dtype: int, where: str = "") -> str | None:
    """OpenVINO element type of a TensorFlow DataType; None for resource/variant handles."""
    dtype = int(dtype)
    if dtype > 100:          # reference types (DT_FLOAT_REF...) hold the same values
        dtype -= 100
    if dtype in TF_TO_ET:
        return TF_TO_ET[dtype]
    if dtype in HANDLE_TYPES:
        return None
    name = TF_TYPE_NAMES.get(dtype, str(dtype))
    raise InputModelError(f"TensorFlow element type {name}{where} has no OpenVINO equivalent.")


def shape_of(shape_proto) -> tuple | None:
    """Shape tuple of a TensorShapeProto: -1 for unknown dimensions, None for unknown rank."""
    if shape_proto.unknown_rank:
        return None
    return tuple(int(d.size) if d.size >= 0 else -1 for d in shape_proto.dim)


def tensor_to_array(tensor, where: str = "") -> tuple[np.ndarray, str]:
    """(numpy value, element type) of a TensorProto (TensorFlow's or the light reader's). Packed
    ``tensor_content`` is read without a second copy (a read-only numpy view of the bytes)."""
    et = element_type_of(tensor.dtype, where)
    if et is None:
        raise InputModelError(f"Constant{where} holds a resource or variant handle, which cannot be converted.")
    shape = shape_of(tensor.tensor_shape) or ()
    if et in _DIRECT and tensor.tensor_content:
        dtype = np_dtype(et)
        content = tensor.tensor_content
        count = int(np.prod(shape, dtype=np.int64))
        if len(content) != count * dtype.itemsize:
            raise InputModelError(f"Constant{where} has {len(content)} bytes of data but its shape {list(shape)} "
                                  f"needs {count * dtype.itemsize}: the model is corrupt.")
        return np.frombuffer(content, dtype=dtype, count=count).reshape(shape), et
    if et in ("f16", "bf16") and tensor.tensor_content:
        bits = np.frombuffer(tensor.tensor_content, np.uint16)
        return _half_values(bits, et).reshape(shape), et
    return _from_value_fields(tensor, et, shape, where), et


# element type -> the repeated field of TensorProto that holds values one by one
_VALUE_FIELDS = {"f32": "float_val", "f64": "double_val", "i32": "int_val", "i16": "int_val", "i8": "int_val",
                 "u8": "int_val", "u16": "int_val", "i64": "int64_val", "boolean": "bool_val", "f16": "half_val",
                 "bf16": "half_val", "u32": "uint32_val", "u64": "uint64_val", "string": "string_val"}


def _half_values(bits: np.ndarray, et: str) -> np.ndarray:
    """f16 values, or bf16 values as f32 (the converter holds bf16 in f32)."""
    bits = bits.astype(np.uint16)
    if et == "f16":
        return bits.view(np.float16)
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _from_value_fields(tensor, et: str, shape: tuple, where: str) -> np.ndarray:
    """A tensor given value by value; fewer values than elements repeat the last one."""
    values = list(getattr(tensor, _VALUE_FIELDS[et]))
    count = int(np.prod(shape, dtype=np.int64))
    if et == "string":
        flat = np.array([v.decode("utf-8", "replace") for v in values], dtype=object)
    elif et in ("f16", "bf16"):
        flat = _half_values(np.array(values, np.int64), et)
    else:
        flat = np.array(values, dtype=np_dtype(et))
    if flat.size > count:
        raise InputModelError(f"Constant{where} has {flat.size} values but its shape {list(shape)} holds {count}.")
    if flat.size < count:
        fill = flat[-1] if flat.size else (np.zeros((), flat.dtype) if et != "string" else "")
        flat = np.concatenate([flat, np.full(count - flat.size, fill, dtype=flat.dtype)])
    return flat.reshape(shape)


def complex_parts_type(dtype: int) -> str | None:
    """The element type of the parts of a complex DataType (f32 for complex64), else None."""
    dtype = int(dtype)
    return TF_COMPLEX[dtype % 100][1] if dtype % 100 in TF_COMPLEX else None


def complex_tensor_to_array(tensor, where: str = "") -> tuple[np.ndarray, str]:
    """(value [..., 2] of (real, imaginary) pairs, element type of the parts) of a complex
    TensorProto."""
    et = complex_parts_type(tensor.dtype)
    shape = shape_of(tensor.tensor_shape) or ()
    count = int(np.prod(shape, dtype=np.int64))
    dtype = np_dtype(et)
    if tensor.tensor_content:
        content = tensor.tensor_content
        if len(content) != count * 2 * dtype.itemsize:
            raise InputModelError(f"Constant{where} has {len(content)} bytes of data but its shape {list(shape)} "
                                  f"needs {count * 2 * dtype.itemsize}: the model is corrupt.")
        return np.frombuffer(content, dtype=dtype, count=2 * count).reshape(tuple(shape) + (2,)), et
    values = np.array(tensor.scomplex_val if et == "f32" else tensor.dcomplex_val, dtype=dtype).reshape(-1, 2)
    if len(values) > count:
        raise InputModelError(f"Constant{where} has {len(values)} values but its shape {list(shape)} holds {count}.")
    if len(values) < count:
        fill = values[-1:] if len(values) else np.zeros((1, 2), dtype)
        values = np.concatenate([values, np.repeat(fill, count - len(values), axis=0)])
    return values.reshape(tuple(shape) + (2,)), et
