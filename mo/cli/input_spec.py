"""Parsing of --input, --input_shape, --output and --batch.

``--input "x[1,3,224,224]{f32},mask[1,?]"``: names, each with an optional shape in brackets
(``?`` or ``-1`` dynamic, ``a..b`` a dynamic dimension with bounds, which is kept dynamic) and
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
    text = text.strip().strip("[]()").strip()
    if not text:
        return ()
    dims = []
    for token in re.split(r"[,\s]+", text):
        if token in ("?", "-1"):
            dims.append(-1)
        elif re.fullmatch(r"\d*\.\.\d*", token):
            dims.append(-1)
        elif re.fullmatch(r"\d+", token):
            dims.append(int(token))
        else:
            raise OptionError(f"Malformed dimension '{token}' in shape '{text}' of {where}: use a "
                              f"non-negative integer, ? or -1.")
    return tuple(dims)


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


def _shape_item(d: Any, item: Any) -> int:
    """One dimension of a shape given as a Python list: an int, -1 / None / '?' / 'a..b'
    (dynamic) or a framework dimension object (dynamic)."""
    if d is None or _is_dim_object(d):
        return -1
    if isinstance(d, str):
        return parse_shape(d, f"--input item {item!r}")[0]
    try:
        return int(d)
    except (TypeError, ValueError):
        raise OptionError(f"Malformed dimension {d!r} in --input item {item!r}: use an integer, -1, None, '?' "
                          f"or a torch.export.Dim.") from None


def parse_input(text: str | Sequence[Any] | None) -> list[InputSpec]:
    """--input text (or a list of such items, or of (name, shape) pairs) -> InputSpecs."""
    if text is None:
        return []
    if isinstance(text, str):
        items: list[Any] = _split_top_level(text)
    else:
        items = list(text)
    specs = []
    for item in items:
        if isinstance(item, InputSpec):
            specs.append(item)
            continue
        if isinstance(item, (tuple, list)):
            name = item[0] if item and isinstance(item[0], str) else None
            rest = item[1:] if name is not None else item
            dims = list(rest[0]) if rest else None
            shape = tuple(_shape_item(d, item) for d in dims) if dims is not None else None
            et = parse_element_type(str(rest[1]), "--input") if len(rest) > 1 and rest[1] is not None else None
            # framework dimension objects (torch.export.Dim) are dynamic, kept for the loader
            objects = {i: d for i, d in enumerate(dims or ()) if _is_dim_object(d)}
            specs.append(InputSpec(name, shape, et, extra={"dims": objects} if objects else {}))
            continue
        if not item:
            raise OptionError(f"Empty item in --input '{text}'.")
        m = _ITEM.match(item)
        if m is None or (not m.group("name") and m.group("shape") is None):
            raise OptionError(f"Malformed --input item '{item}': expected name[shape]{{type}}, e.g. "
                              f"x[1,3,224,224]{{f32}}.")
        where = f"--input item '{item}'"
        shape = parse_shape(m.group("shape"), where) if m.group("shape") is not None else None
        et = parse_element_type(m.group("type"), where) if m.group("type") else None
        value = _parse_value(m.group("value"), et, where) if m.group("value") else None
        specs.append(InputSpec(m.group("name").strip() or None, shape, et, value))
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
