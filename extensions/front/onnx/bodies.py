"""Helpers for ONNX nodes with bodies (If, Loop, Scan): the body's ONNX inputs and outputs in
order, port map entries of the tensors a body reads from the enclosing graph, and edits that put
an op between a body Parameter or Result and the rest of the body."""
from __future__ import annotations

from typing import Callable

from extensions.ops.control_flow import port_entry
from mo.errors import GraphError
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port


def body_inputs(body) -> list[Node]:
    """Parameters made from the body's ONNX graph inputs, in the order the graph lists them."""
    params = [n for n in body.nodes_by_op("Parameter") if n.get("onnx_input")]
    return sorted(params, key=lambda n: n["_seq"])


def body_outputs(body) -> list[Node]:
    """Results made from the body's ONNX graph outputs, in the order the graph lists them."""
    results = [n for n in body.nodes_by_op("Result") if n.get("onnx_output") is not None]
    return sorted(results, key=lambda n: n["_seq"])


def outer_input_entries(node: Node, body_name: str, body, first_port: int) -> list[dict]:
    """Port map entries binding the body Parameters that stand for tensors of the enclosing
    graph; the loader feeds those tensors to ``node`` from input ``first_port`` on, in the
    order of ``node.outer_names``."""
    params = body.graph.get("outer_inputs", {})
    return [port_entry(first_port + j, params[name], body_name)
            for j, name in enumerate(node.get("outer_names") or []) if name in params]


def check_arity(node: Node, what: str, found: int, expected: int) -> None:
    if found != expected:
        raise GraphError(f"the body of {node.fw_op} '{node.name}' has {found} {what}, expected {expected}")


def after_parameter(param: Node, make: Callable[[OpBuilder, Port], Port]) -> None:
    """Feed every consumer of body Parameter ``param`` from ``make(builder, param output)``."""
    consumers = param.out_port(0).get_destinations()
    new = make(OpBuilder(param.graph, param.name), param.out_port(0))
    for dst in consumers:
        new.connect(dst)


def before_result(result: Node, make: Callable[[OpBuilder, Port], Port]) -> None:
    """Feed body Result ``result`` from ``make(builder, its current source)``."""
    src = result.in_port(0).get_source()
    make(OpBuilder(result.graph, result.name), src).connect(result.in_port(0))
