"""ONNX Loop -> Loop and ONNX Scan -> TensorIterator, with the body edits the opset needs.

ONNX Loop feeds its body (iteration number, condition, carried values...) and takes back
(condition, carried values..., scan outputs...); OpenVINO Loop gets the same as a
``current_iteration`` Parameter, the condition as a carried value whose Result is also the
``execution_condition``, and scan outputs concatenated along axis 0 of a body Result that has the
iteration's value with a leading axis of 1 (hence an Unsqueeze).

ONNX Scan slices its scan inputs along an axis that the body does not see: each slice of the
TensorIterator keeps the axis with size 1, so a Squeeze follows the body Parameter and an
Unsqueeze precedes each scan output's Result. Opset 8 Scan has a leading batch axis on every
input and output: the TensorIterator runs inside a Loop over the batch.
"""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.bodies import (
    after_parameter,
    before_result,
    body_inputs,
    body_outputs,
    check_arity,
    outer_input_entries,
)
from extensions.ops.control_flow import new_body, port_entry, sliced_entry
from mo.errors import ConversionError
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp


def unsqueeze_result(result, axis: int) -> None:
    before_result(result, lambda b, src: b.Unsqueeze(src, np.array([axis], np.int64)))


def squeeze_parameter(param, axis: int) -> None:
    after_parameter(param, lambda b, p: b.Squeeze(p, np.array([axis], np.int64)))


class LoopToOpset(ReplaceOp):
    """ONNX Loop -> Loop (opset5)."""

    op = "onnx::Loop"

    def replace_op(self, graph, node):
        body = node.bodies["body"]
        params, results = body_inputs(body), body_outputs(body)
        n_in = len(node.pb.input)
        n_carried = n_in - 2
        n_outputs = len(node.pb.output)
        check_arity(node, "inputs", len(params), n_carried + 2)
        check_arity(node, "outputs", len(results), n_outputs + 1)
        b = OpBuilder(graph, node.name)
        trip = node.in_port(0).get_source() or b.const(np.array(-1, np.int64))
        cond = node.in_port(1).get_source() or b.const(np.array(True))
        inputs = [trip, cond, cond] + [node.in_port(2 + k).get_source() for k in range(n_carried)]
        in_map = [port_entry(-1, params[0], purpose="current_iteration")]
        in_map += [port_entry(2 + k, p) for k, p in enumerate(params[1:])]
        in_map += outer_input_entries(node, "body", body, len(inputs))
        inputs += [node.in_port(n_in + j).get_source() for j in range(len(node.get("outer_names") or []))]
        out_map = [port_entry(-1, results[0], purpose="execution_condition")]
        out_map += [port_entry(k, r) for k, r in enumerate(results[1:n_carried + 1])]
        for j, r in enumerate(results[n_carried + 1:]):
            unsqueeze_result(r, 0)
            out_map.append(sliced_entry(n_carried + j, r, 0))
        back = [{"from": r.id, "to": p.id} for r, p in zip(results[:n_carried + 1], params[1:])]
        loop = b.node("Loop", *inputs, name=node.name, bodies={"body": body}, input_port_map=in_map,
                      output_port_map=out_map, back_edges=back, num_outputs=n_outputs)
        return [loop.out_port(i) for i in range(n_outputs)]


def scan_iterator(graph, node, body, states: list, scans: list, outer: list, axis_shift: int = 0,
                  name: str | None = None):
    """A TensorIterator running the ONNX Scan body ``body`` over ``scans`` with initial
    ``states`` and ``outer`` (the tensors the body reads from the enclosing graph) as inputs;
    axes of scan inputs and outputs are reduced by ``axis_shift``."""
    params, results = body_inputs(body), body_outputs(body)
    n_state, n_scan = len(states), len(scans)
    check_arity(node, "inputs", len(params), n_state + n_scan)
    n_outputs = len(results)
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
    return OpBuilder(graph).node("TensorIterator", *states, *scans, *outer, name=name or node.name,
                                 bodies={"body": body}, input_port_map=in_map, output_port_map=out_map,
                                 back_edges=back, num_outputs=n_outputs)


class ScanToTensorIterator(ReplaceOp):
    """ONNX Scan -> TensorIterator (opset 8: inside a Loop over the batch)."""

    op = "onnx::Scan"

    def replace_op(self, graph, node):
        first = int(node.batched)
        if node.batched and node.is_in_port_connected(0):
            raise ConversionError(f"Scan '{node.name}' has sequence_lens (opset 8), which is not supported")
        n_onnx = len(node.pb.input)
        sources = [node.in_port(i).get_source() for i in range(first, n_onnx)]
        outer = [node.in_port(n_onnx + j).get_source() for j in range(len(node.get("outer_names") or []))]
        states, scans = sources[:node.num_state], sources[node.num_state:]
        if not node.batched:
            ti = scan_iterator(graph, node, node.bodies["body"], states, scans, outer)
        else:
            ti = self.batch_iterator(graph, node, sources, outer)
        return [ti.out_port(i) for i in range(len(node.pb.output))]

    @staticmethod
    def batch_iterator(graph, node, sources: list, outer: list):
        """Loop over the batch axis of every state and scan input (OpenVINO does not nest
        TensorIterators); its body squeezes the batch axis, runs the Scan and unsqueezes the
        results, which the Loop concatenates along the batch axis again."""
        inner_body = node.bodies["body"]
        body = new_body(graph)
        b = OpBuilder(body, node.name)
        squeezed, in_map = [], []
        for i in range(len(sources)):
            p = b.node("Parameter", name=f"{node.name}/batch_in{i}")
            in_map.append(sliced_entry(2 + i, p, 0))
            squeezed.append(b.Squeeze(p.out_port(0), np.array([0], np.int64)))
        outer_params = []
        for j in range(len(outer)):
            p = b.node("Parameter", name=f"{node.name}/outer_in{j}")
            in_map.append(port_entry(2 + len(sources) + j, p))
            outer_params.append(p.out_port(0))
        inner = scan_iterator(body, node, inner_body, squeezed[:node.num_state], squeezed[node.num_state:],
                              outer_params, axis_shift=1, name=node.name + "/scan")
        out_map = [port_entry(-1, b.node("Result", b.const(np.array(True)), name=f"{node.name}/cond"),
                         purpose="execution_condition")]
        for i in range(inner.op_class.outputs_count(inner)):
            r = b.node("Result", b.Unsqueeze(inner.out_port(i), np.array([0], np.int64)),
                       name=f"{node.name}/batch_out{i}")
            out_map.append(sliced_entry(i, r, 0))
        g = OpBuilder(graph, node.name)
        batch = g.VariadicSplit(g.ShapeOf(sources[0]), np.array(0, np.int64), np.array([1, -1], np.int64),
                                num_outputs=2)[0]
        return g.node("Loop", batch, g.const(np.array(True)), *sources, *outer, name=node.name,
                      bodies={"body": body}, input_port_map=in_map, output_port_map=out_map,
                      num_outputs=len(out_map) - 1)
