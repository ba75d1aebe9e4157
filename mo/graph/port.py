"""Port, PortData and Connection: the API every transform uses to read tensors and rewire.

* ``node.in_port(0).get_source()`` is the producer's output Port;
* ``node.out_port(0).get_destinations()`` are the consumers' input Ports;
* ``port.data.get_shape() / get_value() / get_dtype()`` read the tensor (data form);
* ``src.connect(dst)``, ``port.disconnect()``, ``port.get_connection().set_source(other)`` and
  ``Connection.insert_node(node)`` rewire.

Tensor names (the source framework's names of an output) live on the producing op node in
``tensor_names: {out_port: [names]}`` and travel with ``set_source(..., move_names=True)``.
Framework tensors that only exist in another dimension order (the layout step removed the
Transpose that made them) live in ``permuted_names: {out_port: {name: permutation}}`` and travel
with the tensor names; they are not written as names (``--validate_layers`` compares them).
"""
from __future__ import annotations

from typing import Any, Protocol

import numpy as np


class PortOwner(Protocol):
    """What a port needs of its node. ``mo.graph.node.Node`` is the one implementation; it
    makes its ports from this module, which therefore does not import it back."""

    graph: Any
    id: str
    attrs: dict

    def get(self, key: str, default: Any = None) -> Any: ...

    def in_port(self, idx: int) -> "Port": ...

    def out_port(self, idx: int) -> "Port": ...


class PortData:
    """Shape, value and element type of the tensor at a port."""

    __slots__ = ("port",)

    def __init__(self, port: "Port"):
        self.port = port

    def _data_attrs(self, create: bool = False) -> dict | None:
        port = self.port
        graph = port.node.graph
        if not graph.data_form:
            return None
        if port.type == "out":
            data_id = graph.output_data(port.node.id, port.idx, create=create)
        else:
            data_id = graph.input_data(port.node.id, port.idx)
        return None if data_id is None else graph._node[data_id]

    def _front_const(self):
        """In op form: the producing Const node's attributes, if the producer is a Const."""
        src = self.port if self.port.type == "out" else self.port.get_source()
        if src is None or src.node.get("op") != "Const":
            return None
        return src.node.attrs

    def get_shape(self) -> tuple | None:
        attrs = self._data_attrs()
        if attrs is None:
            c = self._front_const()
            return None if c is None or c.get("value") is None else tuple(c["value"].shape)
        return attrs.get("shape")

    def get_value(self) -> np.ndarray | None:
        attrs = self._data_attrs()
        if attrs is None:
            c = self._front_const()
            return None if c is None else c.get("value")
        return attrs.get("value")

    def get_dtype(self) -> str | None:
        attrs = self._data_attrs()
        if attrs is None:
            c = self._front_const()
            return None if c is None else c.get("element_type")
        return attrs.get("dtype")

    def get_rank(self) -> int | None:
        shape = self.get_shape()
        return None if shape is None else len(shape)

    def _set(self, key, value):
        if self.port.type != "out":
            src = self.port.get_source()
            if src is None:
                raise ValueError(f"input {self.port.idx} of {self.port.node.id} is not connected")
            src.data._set(key, value)
            return
        attrs = self._data_attrs(create=True)
        if attrs is None:
            raise ValueError("tensor data can be set only after data nodes are inserted")
        attrs[key] = value

    def set_shape(self, shape) -> None:
        self._set("shape", None if shape is None else tuple(int(d) for d in shape))

    def set_value(self, value: np.ndarray | None) -> None:
        self._set("value", value)
        if value is not None:
            self._set("shape", tuple(map(int, np.shape(value))))

    def set_dtype(self, dtype: str | None) -> None:
        self._set("dtype", dtype)


class Port:
    """One input or output port of an op node."""

    __slots__ = ("node", "idx", "type")

    def __init__(self, node: PortOwner, idx: int, type_: str):
        self.node = node
        self.idx = idx
        self.type = type_

    def __repr__(self) -> str:
        return f"Port({self.node.id!r}, {self.type}, {self.idx})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, Port) and other.node == self.node and other.idx == self.idx
                and other.type == self.type)

    def __hash__(self) -> int:
        return hash((self.node.id, self.idx, self.type))

    @property
    def data(self) -> PortData:
        return PortData(self)

    @property
    def graph(self):
        return self.node.graph

    # navigation ---------------------------------------------------------------
    def get_source(self) -> "Port | None":
        assert self.type == "in", "get_source is for input ports"
        src = self.graph.producer(self.node.id, self.idx)
        if src is None:
            return None
        return type(self.node)(self.graph, src[0]).out_port(src[1])

    def get_destinations(self) -> list["Port"]:
        assert self.type == "out", "get_destinations is for output ports"
        node = type(self.node)
        return [node(self.graph, d).in_port(i) for d, i in self.graph.consumers(self.node.id, self.idx)]

    def is_connected(self) -> bool:
        if self.type == "in":
            return self.graph.producer(self.node.id, self.idx) is not None
        return bool(self.graph.consumers(self.node.id, self.idx))

    def get_connection(self) -> "Connection":
        if self.type == "in":
            src = self.get_source()
            return Connection(self.graph, src, [self] if src is None else src.get_destinations())
        return Connection(self.graph, self, self.get_destinations())

    # rewiring -----------------------------------------------------------------
    def connect(self, dst: "Port") -> None:
        """Connect this output port to input port ``dst`` (which loses its old source)."""
        assert self.type == "out" and dst.type == "in", "connect goes from an output to an input"
        self.graph.link(self.node.id, self.idx, dst.node.id, dst.idx)

    def disconnect(self) -> None:
        if self.type == "in":
            self.graph.unlink_input(self.node.id, self.idx)
        else:
            for d in self.get_destinations():
                d.disconnect()

    # tensor names ---------------------------------------------------------------
    def get_tensor_names(self) -> list[str]:
        port = self if self.type == "out" else self.get_source()
        if port is None:
            return []
        return list(port.node.get("tensor_names", {}).get(port.idx, []))

    def add_tensor_names(self, names: list[str]) -> None:
        assert self.type == "out"
        table = self.node.get("tensor_names")
        if table is None:
            table = {}
            self.node["tensor_names"] = table
        current = table.setdefault(self.idx, [])
        current.extend(n for n in names if n not in current)

    def remove_tensor_names(self) -> list[str]:
        assert self.type == "out"
        table = self.node.get("tensor_names") or {}
        return table.pop(self.idx, [])

    def get_permuted_names(self) -> dict[str, tuple[int, ...]]:
        """Framework tensors this output holds in another dimension order: ``{name: perm}``, the
        framework's tensor being ``transpose(this tensor, perm)``."""
        port = self if self.type == "out" else self.get_source()
        if port is None:
            return {}
        return dict(port.node.get("permuted_names", {}).get(port.idx, {}))

    def add_permuted_names(self, names: dict[str, tuple[int, ...]]) -> None:
        assert self.type == "out"
        if names:
            self.node.attrs.setdefault("permuted_names", {}).setdefault(self.idx, {}).update(names)

    def remove_permuted_names(self) -> dict[str, tuple[int, ...]]:
        assert self.type == "out"
        return (self.node.get("permuted_names") or {}).pop(self.idx, {})

    def take_names(self, other: "Port") -> None:
        """This output takes the tensor names and permuted names of ``other`` (an output that
        it replaces: it holds the same tensor)."""
        self.add_tensor_names(other.remove_tensor_names())
        self.add_permuted_names(other.remove_permuted_names())

    def drop_names(self) -> None:
        """Forget this output's tensor names and permuted names: a rewrite changed its value in
        place (weights scaled, constants merged), so it no longer holds the tensors they name."""
        self.remove_tensor_names()
        self.remove_permuted_names()

    def hold_transposed_names(self, transpose: "Port", perm: list[int]) -> None:
        """The names of ``transpose``, the output of ``Transpose(this tensor, perm)`` that is
        going away, become permuted names of this output."""
        moved = {name: tuple(perm) for name in transpose.remove_tensor_names()}
        moved.update({name: tuple(perm[i] for i in inner) for name, inner in transpose.remove_permuted_names().items()})
        self.add_permuted_names(moved)


class Connection:
    """One source output port and all the input ports it feeds."""

    def __init__(self, graph, source: Port | None, destinations: list[Port]):
        self.graph = graph
        self.source = source
        self.destinations = destinations

    def get_source(self) -> Port | None:
        return self.source

    def get_destinations(self) -> list[Port]:
        return self.destinations

    def set_source(self, port: Port, move_names: bool = True) -> None:
        """Feed every destination from ``port`` instead; the tensor names of the old source move
        to ``port`` unless ``move_names`` is False."""
        if move_names and self.source is not None and self.source != port:
            port.take_names(self.source)
        for d in self.destinations:
            port.connect(d)
        self.source = port

    def insert_node(self, node: PortOwner, in_idx: int = 0, out_idx: int = 0) -> None:
        """Put ``node`` between the source and all destinations; names move to its output."""
        assert self.source is not None
        dests = list(self.destinations)
        new_out = node.out_port(out_idx)
        new_out.take_names(self.source)
        for d in dests:
            new_out.connect(d)
        self.source.connect(node.in_port(in_idx))
        self.destinations = dests

    def disconnect(self) -> None:
        for d in self.destinations:
            d.disconnect()
