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
    """(numpy value, element type) of a TensorProto. Packed ``tensor_content`` is read without
    a second copy (a read-only numpy view of the bytes)."""
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
    import tensorflow as tf
    try:
        value = tf.make_ndarray(tensor)
    except Exception as e:
        raise InputModelError(f"Cannot read the value of constant{where}: {e}") from e
    if et == "string":
        value = np.array([v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value.reshape(-1)],
                         dtype=object).reshape(value.shape)
    elif et == "bf16":
        value = value.astype(np.float32)
    else:
        value = value.astype(np_dtype(et), copy=False)
    return value, et
