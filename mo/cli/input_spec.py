"""Parsing of --input, --input_shape, --output and --batch.

``--input "x[1,3,224,224]{f32},mask[1,?]"``: names, each with an optional shape in brackets
(``?`` or ``-1`` dynamic, ``a..b`` / ``a..`` / ``..b`` a dynamic dimension with bounds, which the
IR's Parameter keeps as "1..8") and
an optional element type in braces, and optionally ``->value`` to freeze the input to a value.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from mo.errors import OptionError
from mo.graph.building import COMPLEX_TYPES
from mo.utils.types import ALL_TYPES

TYPE_ALIASES = {
    "float32": "f32", "float": "f32", "fp32": "f32", "float16": "f16", "half": "f16", "fp16": "f16",
    "float64": "f64", "double": "f64", "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "boolean",
    "bfloat16": "bf16", "cfloat": "complex64", "cdouble": "complex128",
}


@dataclass
class InputSpec:
    """One entry of --input: a tensor name with an optional shape, type and frozen value."""

    name: str | None
    shape: tuple | None = None
    element_type: str | None = None
    value: Any = None
    extra: dict = field(default_factory=dict)
    # bounds of dynamic dimensions: axis -> (lower, upper), -1 for no upper bound
    bounds: dict = field(default_factory=dict)


def parse_element_type(text: str, where: str) -> str:
    t = text.strip().lower()
    t = TYPE_ALIASES.get(t, t)
    if t in COMPLEX_TYPES:      # a complex input: [..., 2] pairs of its parts' type in the IR
        return t
    if t not in ALL_TYPES:
        raise OptionError(f"Unknown element type '{text}' in {where}; use one of: "
                          f"{', '.join(sorted(ALL_TYPES))}.")
    return t


def parse_shape(text: str, where: str) -> tuple:
    """'1,3,?,-1' or '1 3 224 224' -> (1, 3, -1, -1)."""
    return parse_dims(text, where)[0]


def parse_dims(text: str, where: str) -> tuple[tuple, dict]:
    """A shape and the bounds of its bounded dimensions: '1..8,3' -> ((-1, 3), {0: (1, 8)})."""
    text = text.strip().strip("[]()").strip()
    if not text:
        return (), {}
    dims, bounds = [], {}
    for axis, token in enumerate(re.split(r"[,\s]+", text)):
        if token in ("?", "-1"):
            dims.append(-1)
        elif re.fullmatch(r"\d*\.\.\d*", token):
            low, high = token.split("..")
            low, high = int(low or 0), int(high) if high else -1
            if high >= 0 and high < low:
                raise OptionError(f"Dimension '{token}' in shape '{text}' of {where} has its upper bound below "
                                  f"its lower bound.")
            if low == high:
                dims.append(low)
                continue
            dims.append(-1)
            if low > 0 or high >= 0:
                bounds[axis] = (low, high)
        elif re.fullmatch(r"\d+", token):
            dims.append(int(token))
        else:
            raise OptionError(f"Malformed dimension '{token}' in shape '{text}' of {where}: use a "
                              f"non-negative integer, ? or -1, or bounds such as 1..8.")
    return tuple(dims), bounds


def _dims_from_sequence(dims, where: str) -> tuple[tuple, dict]:
    """A shape given as a Python sequence: ints (-1 dynamic), None or '?' (dynamic), 'a..b'
    (bounded)."""
    shape, bounds = [], {}
    for axis, d in enumerate(dims):
        if d is None or _is_dim_object(d) or (isinstance(d, str) and d.strip() == "?"):
            shape.append(-1)
        elif isinstance(d, str):
            (value,), b = parse_dims(d, where)
            shape.append(value)
            bounds.update({axis: v for v in b.values()})
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and int(d) >= -1:
            shape.append(int(d))
        else:
            raise OptionError(f"Malformed dimension {d!r} in {where}: use a non-negative integer, -1 or None "
                              f"(dynamic), or bounds such as '1..8'.")
    return tuple(shape), bounds


def _is_dim(value) -> bool:
    if value is None or _is_dim_object(value):
        return True
    return (isinstance(value, (int, np.integer)) and not isinstance(value, bool)) or (
        isinstance(value, str) and bool(re.fullmatch(r"\s*(\?|-1|\d+|\d*\.\.\d*)\s*", value)))


def _is_shape(value) -> bool:
    if hasattr(value, "to_string") and not isinstance(value, str):   # an openvino PartialShape / Shape
        return True
    return isinstance(value, (list, tuple)) and all(_is_dim(d) for d in value)


def _shape_of(value, where: str) -> tuple[tuple, dict]:
    if hasattr(value, "to_string") and not isinstance(value, str):
        return parse_dims(value.to_string(), where)
    return _dims_from_sequence(value, where)


def _type_name(value) -> str:
    """An element type given as text, a numpy type or dtype, or an openvino Type."""
    if isinstance(value, str):
        return value
    if hasattr(value, "get_type_name"):
        return value.get_type_name()
    try:
        return np.dtype(value).name
    except TypeError:
        return str(value)


def _spec_from_object(item, where: str) -> InputSpec:
    """One input given as a Python object: a shape, or (name, shape[, type]) / (name, type)."""
    if _is_shape(item):
        shape, bounds = _shape_of(item, where)
        return InputSpec(None, shape, bounds=bounds, extra=_dim_objects(item))
    if isinstance(item, (tuple, list)):
        name = item[0] if item and isinstance(item[0], str) else None
        rest = list(item[1:] if name is not None else item)
        shape, bounds, et, dims = None, {}, None, ()
        for part in rest:
            if part is None:
                continue
            if _is_shape(part):
                shape, bounds = _shape_of(part, where)
                dims = part
            elif isinstance(part, (list, tuple)):
                _dims_from_sequence(part, where)     # says which dimension is malformed
            else:
                et = parse_element_type(_type_name(part), where)
        return InputSpec(name, shape, et, bounds=bounds, extra=_dim_objects(dims))
    raise OptionError(f"Malformed input {item!r} in {where}: give a shape ([1, 3, 224, 224]), a name, or a "
                      f"(name, shape) pair.")


def _dim_objects(dims) -> dict:
    """The framework dimension objects (torch.export.Dim) of a shape given as a sequence, by
    axis, kept for the loader (the shape has them as dynamic dims)."""
    objects = {i: d for i, d in enumerate(dims) if _is_dim_object(d)} if isinstance(dims, (list, tuple)) else {}
    return {"dims": objects} if objects else {}


def _split_top_level(text: str) -> list[str]:
    """Split at commas that are not inside [...] or {...}."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
            if depth < 0:
                raise OptionError(f"Unbalanced brackets in --input '{text}'.")
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    if depth != 0:
        raise OptionError(f"Unbalanced brackets in --input '{text}'.")
    parts.append("".join(current))
    return [p.strip() for p in parts]


_ITEM = re.compile(r"^(?P<name>[^\[\]{}]*?)\s*(\[(?P<shape>[^\]]*)\])?\s*(\{(?P<type>[^}]*)\})?\s*"
                   r"(->\s*(?P<value>.+))?$")


def _parse_value(text: str, et: str | None, where: str):
    text = text.strip()
    try:
        if text.startswith("["):
            items = [t for t in re.split(r"[,\s]+", text.strip("[]").strip()) if t]
        else:
            items = [text]
        parsed = []
        for t in items:
            if t.lower() in ("true", "false"):
                parsed.append(t.lower() == "true")
            else:
                parsed.append(float(t) if re.search(r"[.eE]|inf|nan", t) else int(t))
        value = np.array(parsed) if text.startswith("[") else np.array(parsed[0])
    except ValueError:
        raise OptionError(f"Malformed value '{text}' in {where}.") from None
    return value


def _is_dim_object(d: Any) -> bool:
    """A framework's symbolic dimension (torch.export.Dim): named, with min and max."""
    return hasattr(d, "__name__") and hasattr(d, "min") and hasattr(d, "max")


def parse_input(text: str | Sequence[Any] | None) -> list[InputSpec]:
    """--input text (or a list of such items, or of (name, shape) pairs) -> InputSpecs."""
    if text is None:
        return []
    if isinstance(text, str):
        items: list[Any] = _split_top_level(text)
    elif isinstance(text, dict):
        items = [(name, value) for name, value in text.items()]
    elif _is_shape(text) and not all(isinstance(t, str) for t in text):
        items = [text]                    # input=[1, 3, 224, 224]: the shape of the one input
    elif isinstance(text, tuple) and len(text) > 1 and isinstance(text[0], str) and _is_shape(text[1]):
        items = [text]                    # input=("x", [1, 3]): one named input
    else:
        items = list(text)
    specs = []
    for item in items:
        if isinstance(item, InputSpec):
            specs.append(item)
            continue
        if not isinstance(item, str):
            specs.append(_spec_from_object(item, "input"))
            continue
        if not item:
            raise OptionError(f"Empty item in --input '{text}'.")
        m = _ITEM.match(item)
        if m is None or (not m.group("name") and m.group("shape") is None):
            raise OptionError(f"Malformed --input item '{item}': expected name[shape]{{type}}, e.g. "
                              f"x[1,3,224,224]{{f32}}.")
        where = f"--input item '{item}'"
        shape, bounds = parse_dims(m.group("shape"), where) if m.group("shape") is not None else (None, {})
        et = parse_element_type(m.group("type"), where) if m.group("type") else None
        value = _parse_value(m.group("value"), et, where) if m.group("value") else None
        specs.append(InputSpec(m.group("name").strip() or None, shape, et, value, bounds=bounds))
    return specs


def parse_input_shape(value: str | Sequence | None) -> list[tuple]:
    """--input_shape '[1,3,224,224],[1,10]' (or a list / list of lists) -> list of shapes."""
    if value is None:
        return []
    if isinstance(value, str):
        groups = re.findall(r"[\[(]([^\])]*)[\])]", value)
        if not groups:
            groups = [value]
        return [parse_shape(g, f"--input_shape '{value}'") for g in groups]
    value = list(value)
    if value and all(isinstance(v, (int, np.integer)) for v in value):
        return [tuple(int(v) for v in value)]
    return [tuple(int(d) for d in s) if not isinstance(s, str) else parse_shape(s, "input_shape") for s in value]


def parse_output(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        names = [v.strip() for v in value.split(",")]
    else:
        names = [str(v).strip() for v in value]
    if any(not n for n in names):
        raise OptionError(f"Malformed --output '{value}': empty name.")
    return names
