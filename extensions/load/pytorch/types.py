"""Element types of PyTorch values: torch dtypes and TorchScript ScalarType codes as OpenVINO
element types, tensors as numpy arrays (sharing memory where the dtype allows), Python scalars
as the constants they become."""
from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

import numpy as np

# torch dtype name (str(torch.float32) without "torch.") -> element type
DTYPE_NAMES = {
    "float32": "f32", "float": "f32", "float64": "f64", "double": "f64", "float16": "f16", "half": "f16",
    "bfloat16": "bf16", "int64": "i64", "long": "i64", "int32": "i32", "int": "i32", "int16": "i16",
    "short": "i16", "int8": "i8", "uint8": "u8", "bool": "boolean", "uint16": "u16", "uint32": "u32",
    "uint64": "u64", "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2",
    # quantized types: only quantize calls take them (their tensors are float values in the graph)
    "qint8": "qint8", "quint8": "quint8", "qint32": "qint32",
}
# complex dtypes: the element type of their real and imaginary parts. A complex model input or
# constant is carried as [..., 2] pairs of that type, marked complex (mo/graph/building.py).
COMPLEX_PARTS = {"complex64": "f32", "complex128": "f64", "cfloat": "f32", "cdouble": "f64"}
# c10::ScalarType codes, as TorchScript constants give dtypes
SCALAR_TYPE_CODES = {0: "u8", 1: "i8", 2: "i16", 3: "i32", 4: "i64", 5: "f16", 6: "f32", 7: "f64",
                     9: "complex64", 10: "complex128", 11: "boolean", 12: "qint8", 13: "quint8", 14: "qint32",
                     15: "bf16", 23: "f8e5m2", 24: "f8e4m3"}


def scalar_type_code(element_type: str) -> int:
    """The c10::ScalarType code of an element type (what TorchScript's prim::dtype gives)."""
    for code, et in SCALAR_TYPE_CODES.items():
        if et == element_type:
            return code
    raise ValueError(f"element type {element_type} has no torch ScalarType")


def element_type_of_dtype(dtype: Any) -> str:
    """OpenVINO element type of a torch.dtype, a dtype name or a ScalarType code."""
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        try:
            return SCALAR_TYPE_CODES[int(dtype)]
        except KeyError:
            raise ValueError(f"unsupported torch ScalarType code {int(dtype)}") from None
    name = str(dtype).replace("torch.", "")
    if name in COMPLEX_PARTS:       # a complex dtype argument: translators that take one read it so
        return {"cfloat": "complex64", "cdouble": "complex128"}.get(name, name)
    try:
        return DTYPE_NAMES[name]
    except KeyError:
        raise ValueError(f"unsupported torch dtype {name}") from None


# bf16 tensors from this size on are kept as their raw bit patterns (``bf16_bits``); smaller ones
# are widened to f32 values, which translators can read
RAW_BF16_MIN_ELEMENTS = 1024


def bf16_bits(tensor) -> np.ndarray | None:
    """The raw bit patterns (uint16, sharing the tensor's memory) of a bf16 CPU tensor of at
    least RAW_BF16_MIN_ELEMENTS values, else None: a weight kept as it is rather than widened to
    an f32 copy of twice its size (``TorchGraphBuilder.stored_const``)."""
    import torch
    if tensor.dtype != torch.bfloat16 or tensor.device.type != "cpu" or tensor.numel() < RAW_BF16_MIN_ELEMENTS:
        return None
    t = tensor.detach()
    if 0 in t.stride():
        t = t.contiguous()
    return t.view(torch.int16).numpy().view(np.uint16)


def tensor_to_array(tensor) -> tuple[np.ndarray, str]:
    """(numpy value, element type) of a torch tensor; the array shares the tensor's memory
    unless the type has no numpy counterpart (bf16 and float8 are widened to f32)."""
    import torch
    t = tensor.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    et = element_type_of_dtype(t.dtype)
    if t.dtype in (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2):
        return t.float().numpy(), et
    if not t.is_contiguous() and t.numel() and t.stride() and 0 in t.stride():
        t = t.contiguous()   # an expanded view: numpy cannot hold zero strides as a plain array
    return t.numpy(), et


def scalar_array(value: Any) -> np.ndarray:
    """A Python number, bool or list of them as the constant it becomes: ints i64, floats f32
    (PyTorch computes Python floats in the tensor's type), bools boolean."""
    arr = np.asarray(value)
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        return arr.astype(np.float32)
    raise ValueError(f"{value!r} is not a number or a list of numbers")


def is_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float, np.number, np.bool_))


def is_number_list(value: Any) -> bool:
    """A (possibly nested) list or tuple of numbers, not empty of numbers only by being empty."""
    if not isinstance(value, (list, tuple)):
        return False
    return all(is_number(v) or is_number_list(v) for v in value)


@lru_cache(maxsize=1)
def _torch_dir() -> str:
    import torch
    return os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


@lru_cache(maxsize=4096)
def is_torch_file(path: str) -> bool:
    """Whether a source file belongs to the torch package (not the user's model code)."""
    return os.path.abspath(path).startswith(_torch_dir())


def complex_parts_type(dtype: Any) -> str | None:
    """The element type of the parts of a complex torch dtype (f32 for complex64), else None."""
    return COMPLEX_PARTS.get(str(dtype).replace("torch.", ""))
