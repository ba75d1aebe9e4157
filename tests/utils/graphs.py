"""The one way tests build graphs: an OpBuilder over a fresh Graph with the built-in registry.

    g, b = new_graph()                     # op form (front phase)
    g, b = new_graph(data_form=True)       # data form: nodes are inferred as they are created
    x = b.Parameter(shape=(1, 3), element_type="f32")
    y = b.ReLU(x); b.Result(y)

``infer_op`` builds Parameter/Const inputs for one op in data form and returns its output ports.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from mo.cli.options import ConversionOptions
from mo.graph.builder import OpBuilder
from mo.graph.graph import Graph
from mo.pipeline.context import ConversionContext
from mo.registry import Registry


@lru_cache(maxsize=1)
def registry() -> Registry:
    return Registry.build()


def new_graph(data_form: bool = False, framework: str = "onnx", **options) -> tuple[Graph, OpBuilder]:
    """A fresh graph in a conversion context with default options (or the ``options`` given)."""
    graph = Graph(context=ConversionContext(ConversionOptions(**options), registry(), framework))
    graph.graph["opsets"] = {"": 21}
    if data_form:
        graph.to_data_form()
    return graph, OpBuilder(graph)


def infer_op(op: str, *inputs, **attrs):
    """Create ``op`` in a data-form graph fed by ``inputs`` and return its output ports.

    An input is a numpy array (a Const), a (shape, element_type) pair (a Parameter), or None."""
    graph, b = new_graph(data_form=True)
    ports = []
    for value in inputs:
        if value is None:
            ports.append(None)
        elif isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
            ports.append(b.Parameter(shape=tuple(value[0]) if value[0] is not None else None, element_type=value[1]))
        else:
            ports.append(b.const(np.asarray(value)))
    node = b.node(op, *ports, **attrs)
    return [node.out_port(i) for i in range(node.op_class.outputs_count(node))]
