"""Element types: the OpenVINO names used throughout the graph and their numpy equivalents."""
from __future__ import annotations

import numpy as np

# OpenVINO element type -> numpy dtype used to hold values of that type in the converter.
_ET_TO_NP: dict[str, np.dtype] = {
    "f64": np.dtype(np.float64),
    "f32": np.dtype(np.float32),
    "f16": np.dtype(np.float16),
    "i64": np.dtype(np.int64),
    "i32": np.dtype(np.int32),
    "i16": np.dtype(np.int16),
    "i8": np.dtype(np.int8),
    "u64": np.dtype(np.uint64),
    "u32": np.dtype(np.uint32),
    "u16": np.dtype(np.uint16),
    "u8": np.dtype(np.uint8),
    "boolean": np.dtype(np.bool_),
}
# Types without a numpy dtype of their own: values are held in the listed container dtype.
_ET_CONTAINER: dict[str, np.dtype] = {
    "bf16": np.dtype(np.float32),
    "f8e4m3": np.dtype(np.float32),
    "f8e5m2": np.dtype(np.float32),
    "u4": np.dtype(np.uint8),
    "i4": np.dtype(np.int8),
    "u1": np.dtype(np.uint8),
    "string": np.dtype(object),
}
_NP_TO_ET: dict[np.dtype, str] = {v: k for k, v in _ET_TO_NP.items()}

# Precision names used on IR ports.
_PRECISION = {
    "f64": "FP64", "f32": "FP32", "f16": "FP16", "bf16": "BF16",
    "i64": "I64", "i32": "I32", "i16": "I16", "i8": "I8", "i4": "I4",
    "u64": "U64", "u32": "U32", "u16": "U16", "u8": "U8", "u4": "U4", "u1": "U1",
    "boolean": "BOOL", "f8e4m3": "F8E4M3", "f8e5m2": "F8E5M2", "string": "STRING",
}

FLOAT_TYPES = frozenset({"f64", "f32", "f16", "bf16", "f8e4m3", "f8e5m2"})
INT_TYPES = frozenset({"i64", "i32", "i16", "i8", "i4", "u64", "u32", "u16", "u8", "u4", "u1"})
ALL_TYPES = frozenset(_PRECISION)


def np_dtype(element_type: str) -> np.dtype:
    """The numpy dtype that holds values of an OpenVINO element type."""
    if element_type in _ET_TO_NP:
        return _ET_TO_NP[element_type]
    if element_type in _ET_CONTAINER:
        return _ET_CONTAINER[element_type]
    raise ValueError(f"unknown element type '{element_type}'")


def element_type(dtype) -> str:
    """The OpenVINO element type of a numpy dtype (or array)."""
    if isinstance(dtype, np.ndarray):
        dtype = dtype.dtype
    dtype = np.dtype(dtype)
    try:
        return _NP_TO_ET[dtype]
    except KeyError:
        if dtype.kind in "OSU":
            return "string"
        raise ValueError(f"numpy dtype {dtype} has no OpenVINO element type") from None


def precision(element_type_name: str) -> str:
    """The port precision string written on IR ports."""
    return _PRECISION[element_type_name]


def bit_width(element_type_name: str) -> int:
    """Bits per element of an element type as stored in the .bin file."""
    if element_type_name in ("u4", "i4"):
        return 4
    if element_type_name == "u1":
        return 1
    if element_type_name in ("bf16", "f16"):
        return 16
    if element_type_name in ("f8e4m3", "f8e5m2"):
        return 8
    return np_dtype(element_type_name).itemsize * 8


def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    """The float32 values of raw bf16 bit patterns (uint16): what a bf16 Const holding a view of a
    weights file stands for (a float32 copy: read large ones chunk by chunk)."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def is_float(element_type_name: str | None) -> bool:
    return element_type_name in FLOAT_TYPES


def is_int(element_type_name: str | None) -> bool:
    return element_type_name in INT_TYPES


def round_to_bf16(x: np.ndarray) -> np.ndarray:
    """f32 values rounded (to nearest even) to the bf16 values they become, kept in f32."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return np.where(np.isnan(x), x, rounded.view(np.float32))


# Value ranges of the integer types whose numpy container is wider.
_NARROW_INT = {"u4": (0, 15), "i4": (-8, 7), "u1": (0, 1)}


def convert_value(x: np.ndarray, destination: str) -> np.ndarray:
    """``x`` converted as OpenVINO's Convert does: floats to integers truncate and saturate,
    to boolean is ``!= 0``."""
    dst = np_dtype(destination)
    if destination == "boolean":
        return x != 0
    if np.issubdtype(dst, np.integer):
        info = np.iinfo(dst)
        lo, hi = _NARROW_INT.get(destination, (info.min, info.max))
        if np.issubdtype(x.dtype, np.floating):
            with np.errstate(all="ignore"):
                return np.clip(np.trunc(np.nan_to_num(x)), lo, hi).astype(dst)
        if destination in _NARROW_INT:
            return np.clip(x, lo, hi).astype(dst)
        return x.astype(dst)
    if destination == "bf16":
        return round_to_bf16(x.astype(np.float32))
    return x.astype(dst)
