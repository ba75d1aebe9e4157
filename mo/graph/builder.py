"""OpBuilder: builds graph pieces in op vocabulary, for transforms and tests.

    b = OpBuilder(graph, prefix="gemm")
    y = b.Add(b.MatMul(a, w, transpose_b=True), bias)     # output ports
    top = b.op("TopK", x, b.const(3), axis=1, mode="max", num_outputs=2)  # -> tuple of ports

Inputs are output Ports, Nodes (their output 0) or numpy arrays / Python numbers, which become
Const nodes (Python ints as i64, floats as f32). Ops are looked up by name in the graph's
registry. In a data-form graph each new node is inferred as soon as it is created.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mo.graph.node import Node
from mo.graph.port import Port


def as_array(value: Any) -> np.ndarray:
    """numpy array for a constant given as a Python value (ints -> i64, floats -> f32)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, np.generic):
        return np.asarray(value)
    arr = np.asarray(value)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    elif arr.dtype.kind == "i" or (arr.dtype == np.float64 and arr.size == 0):
        arr = arr.astype(np.int64)
    return arr


class OpBuilder:
    """Creates op nodes in ``graph`` with names derived from ``prefix``."""

    def __init__(self, graph, prefix: str = ""):
        self.graph = graph
        self.prefix = prefix

    def _name(self, op_name: str, name: str | None) -> str:
        if name is not None:
            return name
        return f"{self.prefix}/{op_name}" if self.prefix else op_name

    def const(self, value: Any, name: str | None = None, element_type: str | None = None) -> Port:
        attrs = {"value": as_array(value)}
        if element_type is not None:
            attrs["element_type"] = element_type
        return self.graph.registry.op("Const").create(
            self.graph, (), name=self._name("Const", name), **attrs).out_port(0)

    def port(self, value: Any) -> Port | None:
        """An output port for an input given as Port, Node, None or constant value."""
        if value is None or isinstance(value, Port):
            return value
        if isinstance(value, Node):
            return value.out_port(0)
        return self.const(value)

    def node(self, op_name: str, *inputs: Any, name: str | None = None, **attrs) -> Node:
        """Create an op node and return the node itself."""
        op_class = self.graph.registry.op(op_name)
        ports = [self.port(v) for v in inputs]
        return op_class.create(self.graph, ports, name=self._name(op_name, name), **attrs)

    def op(self, op_name: str, *inputs: Any, name: str | None = None, **attrs) -> Port | tuple[Port, ...]:
        """Create an op node; returns its output port, or a tuple of ports for several outputs."""
        node = self.node(op_name, *inputs, name=name, **attrs)
        count = node.op_class.outputs_count(node)
        if count == 1:
            return node.out_port(0)
        return tuple(node.out_port(i) for i in range(count))

    def __getattr__(self, op_name: str):
        if op_name.startswith("_"):
            raise AttributeError(op_name)

        def make(*inputs, **attrs):
            return self.op(op_name, *inputs, **attrs)
        return make
