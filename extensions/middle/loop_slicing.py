"""Transposes around the sequence inputs and outputs of a Loop become its slicing axes.

Recurrent layers in TensorFlow go time-major for their loop: ``Transpose([1, 0, 2])`` of the
batch-major sequence, a loop slicing axis 0, and the stacked outputs transposed back. The Loop
can slice the batch-major tensor along axis 1 and concatenate its outputs along axis 1 instead,
when the Transpose only moves the sliced axis (the other dimensions keep their order):

* input: ``Loop(Transpose(x, Q))`` sliced along ``a``, the body squeezing ``a`` -> ``Loop(x)``
  sliced along ``Q[a]``, the body squeezing ``Q[a]``;
* output: ``Transpose(Loop(...), Q)`` concatenated along ``a``, the body unsqueezing ``a`` ->
  concatenated along ``b`` (where ``Q[b] == a``), the body unsqueezing ``b``.
"""
from __future__ import annotations

import numpy as np

from extensions.middle.transpose_rules import perm_of
from extensions.middle.transpose_sinking import LayoutStep
from extensions.ops.control_flow import set_parameter, sliced_shape
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.pipeline.infer import infer_node


def moves_only(perm: list[int], axis: int) -> bool:
    """Whether ``perm`` keeps the relative order of every dimension but ``axis``."""
    rest = [p for p in perm if p != axis]
    return rest == sorted(rest)


def _single_axis(node: Node, port: int) -> int | None:
    value = node.in_value(port)
    return None if value is None or value.size != 1 else int(value.reshape(-1)[0])


def _retarget(graph, node: Node, axis: int, op: str) -> None:
    """Replace Squeeze/Unsqueeze ``node`` by the same op on ``axis``."""
    b = OpBuilder(graph, node.name)
    new = b.op(op, node.in_port(0).get_source(), np.array([axis], np.int64), name=node.name)
    node.out_port(0).get_connection().set_source(new)
    graph.remove_node(node.id)


def _whole_unit_slices(entry: dict) -> bool:
    return entry.get("part_size", 1) == 1 and abs(entry.get("stride", 1)) == 1


class TransposeIntoLoopSlicing(LayoutStep):
    """See the module docstring."""

    def find_and_replace_pattern(self, graph) -> None:
        for loop in graph.nodes_by_op("Loop") + graph.nodes_by_op("TensorIterator"):
            changed = any([self._inputs(graph, loop), self._outputs(graph, loop)])
            if changed:
                infer_node(loop)

    @staticmethod
    def _inputs(graph, loop: Node) -> bool:
        body = loop.bodies["body"]
        changed = False
        for entry in loop.input_port_map:
            if entry.get("axis") is None or entry["external_port_id"] < 0 or not _whole_unit_slices(entry):
                continue
            src = loop.in_port(entry["external_port_id"]).get_source()
            perm = perm_of(src.node) if src.node.op == "Transpose" else None
            readers = body.node(entry["internal_id"]).out_port(0).get_destinations()
            if perm is None or len(src.get_destinations()) != 1 or not moves_only(perm, perm[entry["axis"]]) \
                    or not readers or any(r.node.op != "Squeeze" or _single_axis(r.node, 1) != entry["axis"]
                                          for r in readers):
                continue
            new_axis = perm[entry["axis"]]
            source = src.node.in_port(0).get_source()
            # the body Parameter takes the new slices' shape first, so the new Squeezes infer
            param = body.node(entry["internal_id"])
            set_parameter(param, sliced_shape(source.data.get_shape(), {**entry, "axis": new_axis}),
                          param.element_type)
            infer_node(param)
            for reader in readers:
                _retarget(body, reader.node, new_axis, "Squeeze")
            source.connect(loop.in_port(entry["external_port_id"]))
            graph.remove_node(src.node.id)
            entry["axis"] = new_axis
            changed = True
        return changed

    @staticmethod
    def _outputs(graph, loop: Node) -> bool:
        body = loop.bodies["body"]
        changed = False
        for entry in loop.output_port_map:
            if entry.get("axis") is None or entry["external_port_id"] < 0 or not _whole_unit_slices(entry):
                continue
            port = loop.out_port(entry["external_port_id"])
            readers = port.get_destinations()
            t = readers[0].node if len(readers) == 1 else None
            perm = perm_of(t) if t is not None and t.op == "Transpose" else None
            result = body.node(entry["internal_id"])
            unsqueeze = result.in_port(0).get_source().node
            if perm is None or not moves_only(perm, entry["axis"]) or unsqueeze.op != "Unsqueeze" \
                    or _single_axis(unsqueeze, 1) != entry["axis"] \
                    or len(unsqueeze.out_port(0).get_destinations()) != 1:
                continue
            new_axis = perm.index(entry["axis"])
            _retarget(body, unsqueeze, new_axis, "Unsqueeze")
            # the output becomes what the Transpose made: its own names stand for it transposed back
            port.hold_transposed_names(port, [int(i) for i in np.argsort(perm)])
            t.out_port(0).get_connection().set_source(port)
            graph.remove_node(t.id)
            entry["axis"] = new_axis
            changed = True
        return changed
