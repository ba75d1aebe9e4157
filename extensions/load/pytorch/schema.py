"""ATen operator schemas as the loader uses them: the argument list of an operation (name, type,
default, keyword-only), read from ``torch._C.FunctionSchema`` objects (FX targets carry one,
TorchScript nodes give theirs as text), and binding of call arguments to it."""
from __future__ import annotations

from typing import Any, NamedTuple


class _NoDefault:
    def __repr__(self) -> str:
        return "<required>"


NO_DEFAULT = _NoDefault()

# Schema types whose values PyTorch treats as Python numbers ("wrapped numbers") in type promotion.
NUMBER_TYPES = frozenset({"number", "int", "float", "bool", "SymInt", "SymFloat", "SymBool", "Scalar"})


class ArgSpec(NamedTuple):
    """One schema argument: ``type`` is the schema type text (``Tensor``, ``Optional[Tensor]``,
    ``List[int]``, ``ScalarType``, ``number``...)."""

    name: str
    type: str
    default: Any = NO_DEFAULT
    kwarg_only: bool = False


def base_type(type_text: str) -> str:
    """The type without an Optional[] around it."""
    if type_text.startswith("Optional[") and type_text.endswith("]"):
        return type_text[len("Optional["):-1]
    return type_text


def is_number_type(type_text: str) -> bool:
    return base_type(type_text) in NUMBER_TYPES


def is_dtype_type(type_text: str) -> bool:
    return base_type(type_text) == "ScalarType"


_SPECS: dict[str, tuple[ArgSpec, ...]] = {}   # schema text -> specs (schemas never change)


def from_function_schema(schema) -> tuple[ArgSpec, ...]:
    """Argument specs of a ``torch._C.FunctionSchema``."""
    text = str(schema)
    found = _SPECS.get(text)
    if found is None:
        found = _SPECS[text] = tuple(
            ArgSpec(a.name, str(a.real_type), a.default_value if a.has_default_value() else NO_DEFAULT,
                    bool(a.kwarg_only)) for a in schema.arguments)
    return found


def from_schema_text(text: str) -> tuple[ArgSpec, ...]:
    """Argument specs of a schema given as text (``aten::add.Tensor(Tensor self, ...) -> Tensor``)."""
    found = _SPECS.get(text)
    if found is None:
        import torch
        found = from_function_schema(torch._C.parse_schema(text))
        _SPECS[text] = found
    return found


def synthetic(*args: str) -> tuple[ArgSpec, ...]:
    """Specs for an operation the loader builds itself: ``synthetic("Tensor self", "int dim")``."""
    specs = []
    for item in args:
        type_text, name = item.rsplit(" ", 1)
        specs.append(ArgSpec(name, type_text))
    return tuple(specs)


def bind(specs: tuple[ArgSpec, ...], args: tuple | list, kwargs: dict) -> list[Any]:
    """Values of every schema argument, in schema order: positional ``args`` first, then
    ``kwargs`` by name, then defaults. A missing required argument is a ValueError."""
    if len(args) > len(specs):
        raise ValueError(f"{len(args)} positional arguments for {len(specs)} parameters")
    values = list(args)
    for spec in specs[len(args):]:
        if spec.name in kwargs:
            values.append(kwargs[spec.name])
        elif spec.default is not NO_DEFAULT:
            values.append(spec.default)
        else:
            raise ValueError(f"argument '{spec.name}' is missing")
    unknown = set(kwargs) - {s.name for s in specs}
    if unknown:
        raise ValueError(f"unknown keyword arguments {sorted(unknown)}")
    return values
