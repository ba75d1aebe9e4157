"""GroupedMatMul with constant expert weights, as one MatMul per expert over its own rows."""
from __future__ import annotations

import numpy as np

from extensions.middle.transpose_reshape_chains import MergeConsecutiveTransposes
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, i64, typed_const
from mo.pipeline.transform import Transform


def _weight_chain(port):
    """(Const, [Convert nodes after it], order) when ``port`` is a Const, through float Converts and
    constant Transposes: ``order`` maps the GroupedMatMul's [G, N, K] axes to the Const's."""
    order, converts = [0, 1, 2], []
    node = port.node
    while node.op in ("Transpose", "Convert"):
        if node.op == "Transpose":
            perm = node.in_value(1)
            if perm is None or np.size(perm) != 3:
                return None
            order = [int(np.asarray(perm).reshape(-1)[i]) % 3 for i in order]
        else:
            converts.insert(0, node)
        node = node.in_port(0).get_source().node
    if node.op != "Const" or np.ndim(node.value) != 3 or len(converts) > 1:
        return None
    return node, converts, order


class UnrollGroupedMatMul(Transform):
    """GroupedMatMul(rows [T, K], weights [G, N, K] constant, offsets [G]) -> for each expert g the
    rows offsets[g-1]..offsets[g] (a Slice) times its own weight (a MatMul with a constant [N, K]
    or [K, N] weight, a view of the expert's part of the original one), concatenated (and zero rows
    past the last offset, as the reference gives).

    Measured on the CPU plugin (benchmarks/moe_routing.py, a Mixtral-shaped expert layer): the
    plugin runs GroupedMatMul as its GatherMatmul kernel, which is as fast as this form for one
    decoded token but 2-8x slower for a prompt of 8-384 tokens, slower even than computing every
    expert densely; these per-expert MatMuls run as FullyConnected layers (an expert no row picks
    costs nothing), with the weights' decompression and --compress_weights as for any linear
    layer. A GroupedMatMul whose weights are computed, or without offsets, stays."""

    phase = "middle"
    ops = ("GroupedMatMul",)

    def run_after(self):
        return [MergeConsecutiveTransposes]

    def graph_condition(self, graph) -> bool:
        return graph.has_op("GroupedMatMul")

    def find_and_replace_pattern(self, graph) -> None:
        for node in list(graph.nodes_by_op("GroupedMatMul")):
            if len(node.in_ports()) < 3 or not node.is_in_port_connected(2):
                continue
            chain = _weight_chain(node.in_port(1).get_source())
            if chain is not None:
                self._unroll(graph, node, *chain)

    @staticmethod
    def _unroll(graph, node, const, converts, order) -> None:
        b = OpBuilder(graph, node.name)
        rows = node.in_port(0).get_source()
        offsets = convert(b, node.in_port(2).get_source(), "i64")
        value = const.value
        groups = value.shape[order[0]]
        # an expert's [N, K] (or [K, N]) part: the Const's remaining axes in their own order
        transpose_b = order[1] < order[2]
        one = i64(1)
        pieces, start = [], i64(0)
        for group in range(groups):
            index = [slice(None)] * 3
            index[order[0]] = group
            weight = b.const(value[tuple(index)], name=f"{const.name}/expert{group}", element_type=const.element_type)
            for c in converts:
                weight = b.Convert(weight, name=f"{c.name}/expert{group}", destination_type=c.destination_type,
                                   rt_info=dict(c.get("rt_info") or {}), foldable=c.get("foldable", True))
            end = b.Slice(offsets, i64(group), i64(group + 1), one, i64(0))
            part = b.Slice(rows, start, end, one, i64(0))
            pieces.append(b.MatMul(part, weight, transpose_b=transpose_b, name=f"{node.name}/expert{group}"))
            start = end
        # rows past the last offset: zeros (none when the offsets count every row)
        total = b.ShapeOf(rows, output_type="i64")
        tail_rows = b.Subtract(b.Slice(total, i64(0), one, one, i64(0)), start)
        zero = typed_const(b, 0, pieces[0].data.get_dtype())
        pieces.append(b.Broadcast(zero, b.Concat(tail_rows, i64(value.shape[order[1]]), axis=0)))
        result = b.Concat(*pieces, axis=0, name=node.name)
        node.out_port(0).get_connection().set_source(result)
        graph.remove_node(node.id)
