"""Node: a light view over one node's attribute dictionary in a Graph."""
from __future__ import annotations

from typing import Any

from mo.graph.port import Port


class Node:
    """View of a graph node. Attributes read and write the node's networkx dictionary:
    ``node.op``, ``node['pads']``, ``node.get('axis', 0)``."""

    __slots__ = ("graph", "id")

    def __init__(self, graph, node_id: str):
        object.__setattr__(self, "graph", graph)
        object.__setattr__(self, "id", node_id)

    # attributes ---------------------------------------------------------------
    @property
    def attrs(self) -> dict:
        return self.graph._node[self.id]

    def __getattr__(self, key: str) -> Any:
        try:
            return self.graph._node[self.id][key]
        except KeyError:
            raise AttributeError(f"node '{self.id}' has no attribute '{key}'") from None

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value

    def __getitem__(self, key: str) -> Any:
        return self.graph._node[self.id][key]

    def __setitem__(self, key: str, value: Any) -> None:
        attrs = self.graph._node[self.id]
        if key == "op" and attrs.get("op") != value:
            self.graph.reindex_op(self.id, attrs.get("op"), value)
        elif key == "bodies" and value:
            self.graph.note_bodies(self.id)
        attrs[key] = value

    def __contains__(self, key: str) -> bool:
        return key in self.graph._node[self.id]

    def get(self, key: str, default: Any = None) -> Any:
        return self.graph._node[self.id].get(key, default)

    def update(self, values: dict) -> None:
        for k, v in values.items():
            self[k] = v

    def __eq__(self, other) -> bool:
        return isinstance(other, Node) and other.id == self.id and other.graph is self.graph

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"Node({self.id!r}, op={self.get('op')!r})"

    @property
    def name(self) -> str:
        return self.graph._node[self.id].get("name", self.id)

    @property
    def op_class(self):
        """The Op class registered for this node's ``op`` in the graph's registry."""
        return self.graph.registry.op(self.get("op"))

    # ports --------------------------------------------------------------------
    def in_port(self, idx: int) -> Port:
        return Port(self, idx, "in")

    def out_port(self, idx: int) -> Port:
        return Port(self, idx, "out")

    def in_ports(self) -> dict[int, Port]:
        """Connected input ports by number."""
        return {i: Port(self, i, "in") for i in self.graph.in_indices(self.id)}

    def out_ports(self) -> dict[int, Port]:
        """Output ports by number: the op's declared outputs plus any that are used."""
        count = self.get("num_outputs")
        indices = set(range(count)) if count is not None else set()
        indices.update(self.graph.out_indices(self.id))
        return {i: Port(self, i, "out") for i in sorted(indices)}

    def is_in_port_connected(self, idx: int) -> bool:
        return self.graph.producer(self.id, idx) is not None

    def in_value(self, idx: int):
        """Constant value feeding input ``idx`` or None."""
        return self.in_port(idx).data.get_value() if self.is_in_port_connected(idx) else None

    def _input_attr(self, idx: int, key: str):
        """``key`` of the data node feeding input ``idx`` (data form; the port's own reading
        otherwise): what in_shape and in_dtype read, without building the port."""
        graph = self.graph
        if not graph.data_form:
            data = self.in_port(idx).data
            return data.get_shape() if key == "shape" else data.get_dtype()
        data = graph.input_data(self.id, idx)
        return None if data is None else graph._node[data].get(key)

    def in_shape(self, idx: int):
        return self._input_attr(idx, "shape")

    def in_dtype(self, idx: int):
        return self._input_attr(idx, "dtype")
