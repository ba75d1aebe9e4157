"""Helper for extractors of ONNX operators whose older opsets carry as attributes what newer
opsets take as inputs (Squeeze axes, Reshape shape, Slice starts, Split split, TopK k ...): the
extractor adds a Const feeding that input, so the rest of the converter sees one form only."""
from __future__ import annotations

import numpy as np

from mo.graph.node import Node


def add_const_input(node: Node, port: int, value, name: str, dtype=np.int64) -> None:
    """Feed input ``port`` of ``node`` from a new Const holding ``value``."""
    if node.is_in_port_connected(port):
        raise ValueError(f"input {port} of '{node.name}' is given both as attribute and as input")
    const = node.graph.registry.op("Const").create(
        node.graph, (), name=f"{node.name}/{name}", value=np.asarray(value, dtype=dtype))
    const.out_port(0).connect(node.in_port(port))
