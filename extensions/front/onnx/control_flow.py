"""ONNX If, Loop and Scan: If maps to If (an extractor), Loop is translated to Loop and Scan to
TensorIterator, with the body edits the opset needs. Bodies are translated when the sub-graph op
the translator builds is inferred.

ONNX Loop feeds its body (iteration number, condition, carried values...) and takes back
(condition, carried values..., scan outputs...); OpenVINO Loop gets the same as a
``current_iteration`` Parameter, the condition as a carried value whose Result is also the
``execution_condition``, and scan outputs concatenated along axis 0 of a body Result that has the
iteration's value with a leading axis of 1 (hence an Unsqueeze).

ONNX Scan slices its scan inputs along an axis that the body does not see: each slice of the
TensorIterator keeps the axis with size 1, so a Squeeze follows the body Parameter and an
Unsqueeze precedes each scan output's Result. Opset 8 Scan has a leading batch axis on every
input and output: the TensorIterator runs inside a Loop over the batch.

The ONNX loader builds each GRAPH attribute as a body; tensors a body reads from the enclosing
graph become body Parameters (``body.graph["outer_inputs"]``) and extra inputs of the node, from
input ``len(node.pb.input)`` on, in the order of ``node["outer_names"]``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.control_flow import If, new_body, port_entry, sliced_entry
from mo.errors import ConversionError, GraphError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import i64
from mo.graph.node import Node
from mo.graph.port import Port

# ---------------------------------------------------------------------------- bodies


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


def outer_sources(node: Node) -> list[Port]:
    """The tensors of the enclosing graph the bodies of ``node`` read, as the loader feeds them."""
    first = len(node.pb.input)
    return [node.in_port(first + j).get_source() for j in range(len(node.get("outer_names") or []))]


def check_arity(node: Node, what: str, found: int, expected: int) -> None:
    if found != expected:
        raise GraphError(f"the body of {node.fw_op} '{node.name}' has {found} {what}, expected {expected}")


def require_inputs(node: Node, ports, what: str) -> None:
    """Refuse an empty name among the inputs ``ports`` of ``node`` (only optional inputs may be
    omitted; ``what`` says what these are)."""
    missing = [i for i in ports if not node.is_in_port_connected(i)]
    if missing:
        raise ConversionError(f"input {missing[0]} of {node.fw_op} '{node.name}' is empty, but {what} cannot be "
                              f"omitted: the model is invalid")


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


def unsqueeze_result(result: Node, axis: int) -> None:
    before_result(result, lambda b, src: b.Unsqueeze(src, i64(axis)))


def squeeze_parameter(param: Node, axis: int) -> None:
    after_parameter(param, lambda b, p: b.Squeeze(p, i64(axis)))


# ---------------------------------------------------------------------------- If


class IfExtractor(OnnxExtractor):
    """If -> If: input 0 is the condition, the tensors the branches read from the enclosing
    graph follow; output i is output i of the branch that runs."""

    op_types = ("If",)

    @classmethod
    def extract(cls, node):
        bodies = {"then_body": node.bodies["then_branch"], "else_body": node.bodies["else_branch"]}
        n_outputs = len(node.pb.output)
        inputs, outputs = [], []
        for name, body in bodies.items():
            results = body_outputs(body)
            check_arity(node, f"{name} outputs", len(results), n_outputs)
            inputs += outer_input_entries(node, name, body, len(node.pb.input))
            outputs += [port_entry(i, r, name) for i, r in enumerate(results)]
        If.update_node(node, {"bodies": bodies, "input_port_map": inputs, "output_port_map": outputs,
                              "num_outputs": n_outputs})


# ---------------------------------------------------------------------------- Loop


@translator("onnx", "Loop")
def loop(node: Node, b: OpBuilder) -> list[Port]:
    """Loop (opset5) over the ONNX body; an absent trip count is -1 (no limit), an absent
    condition true."""
    body = node.bodies["body"]
    params, results = body_inputs(body), body_outputs(body)
    n_carried = len(node.pb.input) - 2
    n_outputs = len(node.pb.output)
    check_arity(node, "inputs", len(params), n_carried + 2)
    check_arity(node, "outputs", len(results), n_outputs + 1)
    require_inputs(node, range(2, len(node.pb.input)), "its loop-carried values")
    trip = node.in_port(0).get_source() or b.const(np.array(-1, np.int64))
    cond = node.in_port(1).get_source() or b.const(np.array(True))
    inputs = [trip, cond, cond] + [node.in_port(2 + k).get_source() for k in range(n_carried)]
    in_map = [port_entry(-1, params[0], purpose="current_iteration")]
    in_map += [port_entry(2 + k, p) for k, p in enumerate(params[1:])]
    in_map += outer_input_entries(node, "body", body, len(inputs))
    inputs += outer_sources(node)
    out_map = [port_entry(-1, results[0], purpose="execution_condition")]
    out_map += [port_entry(k, r) for k, r in enumerate(results[1:n_carried + 1])]
    for j, r in enumerate(results[n_carried + 1:]):
        unsqueeze_result(r, 0)
        out_map.append(sliced_entry(n_carried + j, r, 0))
    back = [{"from": r.id, "to": p.id} for r, p in zip(results[:n_carried + 1], params[1:])]
    op = b.node("Loop", *inputs, name=node.name, bodies={"body": body}, input_port_map=in_map,
                output_port_map=out_map, back_edges=back, num_outputs=n_outputs)
    return [op.out_port(i) for i in range(n_outputs)]


# ---------------------------------------------------------------------------- Scan


class ScanExtractor(OnnxExtractor):
    """Scan (opset 8 with a batch axis, opset 9+ without); directions default to forward and
    axes to the first axis after the batch axis (if any)."""

    op_types = ("Scan",)

    @classmethod
    def extract(cls, node):
        n_scan_in = int(cls.attr(node, "num_scan_inputs"))
        batched = node.opset < 9
        n_state = len(node.pb.input) - n_scan_in - int(batched)
        n_scan_out = len(node.pb.output) - n_state
        directions = cls.ints(node, "scan_input_directions" if not batched else "directions", [0] * n_scan_in)
        axis = int(batched)   # opset 8: the scan axis follows the batch axis
        node.update({
            "batched": batched, "num_state": n_state, "num_scan_inputs": n_scan_in,
            "input_axes": cls.ints(node, "scan_input_axes", [axis] * n_scan_in),
            "input_directions": directions,
            "output_axes": cls.ints(node, "scan_output_axes", [axis] * n_scan_out),
            "output_directions": cls.ints(node, "scan_output_directions", [0] * n_scan_out)})


@translator("onnx", "Scan")
def scan(node: Node, b: OpBuilder) -> list[Port]:
    """TensorIterator over the ONNX body (opset 8: inside a Loop over the batch)."""
    first = int(node.batched)
    if node.batched and node.is_in_port_connected(0):
        raise ConversionError("sequence_lens (Scan of opset 8) is not supported")
    sources = [node.in_port(i).get_source() for i in range(first, len(node.pb.input))]
    require_inputs(node, range(first, len(node.pb.input)), "its states and scan inputs")
    outer = outer_sources(node)
    if not node.batched:
        op = scan_iterator(b, node, node.bodies["body"], sources[:node.num_state], sources[node.num_state:], outer,
                           name=node.name)
    else:
        op = batch_loop(b, node, sources, outer)
    return [op.out_port(i) for i in range(len(node.pb.output))]


def scan_iterator(b: OpBuilder, node: Node, body, states: list, scans: list, outer: list, axis_shift: int = 0,
                  name: str | None = None) -> Node:
    """A TensorIterator (built with ``b``) running the ONNX Scan body ``body`` over ``scans`` with
    initial ``states`` and ``outer`` (the tensors the body reads from the enclosing graph) as
    inputs; axes of scan inputs and outputs are reduced by ``axis_shift``."""
    params, results = body_inputs(body), body_outputs(body)
    n_state, n_scan = len(states), len(scans)
    check_arity(node, "inputs", len(params), n_state + n_scan)
    check_arity(node, "outputs", len(results), len(node.pb.output))
    in_map = [port_entry(k, p) for k, p in enumerate(params[:n_state])]
    for j, p in enumerate(params[n_state:]):
        axis = node.input_axes[j] - axis_shift
        squeeze_parameter(p, axis)
        in_map.append(sliced_entry(n_state + j, p, axis, bool(node.input_directions[j])))
    in_map += outer_input_entries(node, "body", body, n_state + n_scan)
    out_map = [port_entry(k, r) for k, r in enumerate(results[:n_state])]
    for j, r in enumerate(results[n_state:]):
        axis = node.output_axes[j] - axis_shift
        unsqueeze_result(r, axis)
        out_map.append(sliced_entry(n_state + j, r, axis, bool(node.output_directions[j])))
    back = [{"from": r.id, "to": p.id} for r, p in zip(results[:n_state], params[:n_state])]
    return b.node("TensorIterator", *states, *scans, *outer, name=name, bodies={"body": body},
                  input_port_map=in_map, output_port_map=out_map, back_edges=back, num_outputs=len(results))


def body_parameter(b: OpBuilder, like: Port, name: str, sliced: bool) -> Node:
    """A body Parameter standing for ``like`` (one slice along axis 0 when ``sliced``), typed
    and shaped as what the enclosing op will bind to it, so the body is translated with them."""
    shape = like.data.get_shape()
    if sliced and shape:
        shape = (1,) + tuple(shape[1:])
    return b.node("Parameter", name=name, shape=shape, element_type=like.data.get_dtype() or "f32")


def batch_loop(b: OpBuilder, node: Node, sources: list, outer: list) -> Node:
    """Loop over the batch axis of every state and scan input (OpenVINO does not nest
    TensorIterators); its body squeezes the batch axis, runs the Scan and unsqueezes the
    results, which the Loop concatenates along the batch axis again."""
    body = new_body(b.graph)
    bb = OpBuilder(body, node.name)
    squeezed, in_map = [], []
    for i, src in enumerate(sources):
        p = body_parameter(bb, src, f"{node.name}/batch_in{i}", sliced=True)
        in_map.append(sliced_entry(2 + i, p, 0))
        squeezed.append(bb.Squeeze(p.out_port(0), i64(0)))
    outer_params = []
    for j, src in enumerate(outer):
        p = body_parameter(bb, src, f"{node.name}/outer_in{j}", sliced=False)
        in_map.append(port_entry(2 + len(sources) + j, p))
        outer_params.append(p.out_port(0))
    inner = scan_iterator(bb, node, node.bodies["body"], squeezed[:node.num_state], squeezed[node.num_state:],
                          outer_params, axis_shift=1, name=node.name + "/scan")
    out_map = [port_entry(-1, bb.node("Result", bb.const(np.array(True)), name=f"{node.name}/cond"),
                          purpose="execution_condition")]
    for i in range(inner.op_class.outputs_count(inner)):
        r = bb.node("Result", bb.Unsqueeze(inner.out_port(i), i64(0)), name=f"{node.name}/batch_out{i}")
        out_map.append(sliced_entry(i, r, 0))
    batch = b.VariadicSplit(b.ShapeOf(sources[0]), np.int64(0), i64(1, -1), num_outputs=2)[0]
    return b.node("Loop", batch, b.const(np.array(True)), *sources, *outer, name=node.name, bodies={"body": body},
                  input_port_map=in_map, output_port_map=out_map, num_outputs=len(out_map) - 1)
