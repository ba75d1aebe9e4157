"""Arguments of a loaded ATen node, and ``@aten``, which registers an ATen translator.

The loader gives an ATen node one input port per schema argument (see ``builder.py``);
``AtenArgs`` reads them by name or position: graph values as Ports, constants as Python values,
tensor lists as lists of Ports, int lists as Python lists or 1-D tensors.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from extensions.load.pytorch.quantized import AVERAGING, requantize_like_input
from extensions.load.pytorch.schema import is_number_type
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.node import Node
from mo.graph.port import Port

_MISSING = object()


def where(node: Node) -> str:
    """How messages name a node: its name, ATen operation and source line."""
    source = node.get("source")
    return f"'{node.name}' ({node.get('fw_op')}{', ' + source if source else ''})"


class AtenArgs:
    """Read access to the arguments of an ATen node (op form or data form)."""

    def __init__(self, node: Node, builder=None):
        self.node = node
        self.builder = builder      # for int lists the model computes as one tensor
        self.names = tuple(node.get("arg_names") or ())
        self.types = tuple(node.get("arg_types") or ())

    def __len__(self) -> int:
        return len(self.names)

    def index(self, key: int | str) -> int | None:
        if isinstance(key, int):
            return key if key < len(self.names) else None
        try:
            return self.names.index(key)
        except ValueError:
            return None

    def has(self, key: int | str) -> bool:
        return self.index(key) is not None

    def port(self, key: int | str) -> Port | None:
        """The output Port feeding the argument, or None (None argument, absent, or a list)."""
        i = self.index(key)
        if i is None or not self.node.is_in_port_connected(i):
            return None
        return self.node.in_port(i).get_source()

    def tensor(self, key: int | str) -> Port:
        """A tensor argument that must be given."""
        port = self.port(key)
        if port is None:
            raise ConversionError(f"Argument '{key}' of {where(self.node)} is missing.")
        return port

    def is_none(self, key: int | str) -> bool:
        i = self.index(key)
        if i is None:
            return True
        name = self.names[i]
        return (not self.node.is_in_port_connected(i) and i not in (self.node.get("list_args") or {})
                and (self.node.get("const_args") or {}).get(name) is None)

    def const(self, key: int | str, default: Any = _MISSING) -> Any:
        """The Python value of a constant argument (a list for lists, None for None); ``default``
        when the argument is absent. A value computed by the model is a ConversionError."""
        i = self.index(key)
        if i is None:
            if default is _MISSING:
                raise ConversionError(f"{where(self.node)} has no argument '{key}'.")
            return default
        name = self.names[i]
        consts = self.node.get("const_args") or {}
        if name in consts:
            return consts[name]
        value = self.value(i)
        if value is not None:
            return value.tolist()
        if i in (self.node.get("list_args") or {}):
            items = [self.node.in_value(p) if p is not None else None for p in self.node.list_args[i]]
            if all(v is not None for v in items):
                return [v.tolist() for v in items]
        if default is not _MISSING and not self.node.is_in_port_connected(i):
            return default
        raise ConversionError(f"Argument '{name}' of {where(self.node)} must be known when converting, but the "
                              f"model computes it.")

    def value(self, key: int | str) -> np.ndarray | None:
        """The constant (or folded) value feeding the argument, if known."""
        i = self.index(key)
        if i is None or not self.node.is_in_port_connected(i):
            return None
        return self.node.in_value(i)

    def tensors(self, key: int | str) -> list[Port | None]:
        """The elements of a tensor-list argument."""
        i = self.index(key)
        lists = self.node.get("list_args") or {}
        if i in lists:
            return [self.node.in_port(p).get_source() if p is not None else None for p in lists[i]]
        port = self.port(key)
        return [] if port is None else [port]

    def int_list(self, key: int | str) -> list[int] | list[Port | int]:
        """An int-list argument: Python ints where known, Ports (0-d or 1-D) where computed."""
        i = self.index(key)
        lists = self.node.get("list_args") or {}
        if i in lists:
            items: list = []
            for p in lists[i]:
                v = self.node.in_value(p)
                items.append(int(v) if v is not None and v.ndim == 0 else self.node.in_port(p).get_source())
            return items
        split = self._computed_ints(i)
        if split is not None:
            return split
        value = self.const(key)
        if value is None:
            return None
        return [int(v) for v in np.atleast_1d(value)]

    def _computed_ints(self, i: int | None) -> list[Port] | None:
        """The elements of an int list the model computes as one 1-D tensor of a known length
        (``x.size()`` in scripted code), as 0-d tensors; None otherwise."""
        if i is None or self.builder is None or self.value(i) is not None or not self.node.is_in_port_connected(i):
            return None
        port = self.node.in_port(i).get_source()
        shape = port.data.get_shape()
        if shape is None or len(shape) != 1 or shape[0] < 0 or port.data.get_dtype() not in ("i64", "i32"):
            return None
        b = self.builder
        return [b.Gather(port, np.int64(j), np.int64(0)) for j in range(shape[0])]

    def is_weak(self, key: int | str) -> bool:
        """Whether the argument is a Python number (a wrapped number in type promotion)."""
        i = self.index(key)
        if i is None:
            return False
        if i < len(self.types) and is_number_type(self.types[i]):
            return True
        port = self.port(i)
        return port is not None and bool(port.node.get("pytorch_scalar"))


def aten(*names: str) -> Callable:
    """Register ``fn(node, a, b)`` as the translator of the ATen ops ``names`` (``"aten::relu"``):
    ``a`` is the node's ``AtenArgs``, ``b`` an OpBuilder named after the node."""
    def register(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def translate(node: Node, b) -> list:
            outputs = fn(node, AtenArgs(node, b), b)
            if node.get("quant_dtype") and node.fw_op in AVERAGING:
                outputs = requantize_like_input(node, b, outputs)
            return outputs
        return translator("pytorch", *names)(translate)
    return register
