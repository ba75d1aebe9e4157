"""Mod and FloorMod of floats: the runtime gives NaN for an infinite divisor."""
from __future__ import annotations

from extensions.middle.constant_folding import ConstantFolding
from mo.graph.builder import OpBuilder
from mo.graph.building import typed_const
from mo.pipeline.transform import Transform
from mo.utils.types import is_float


class FloatRemainders(Transform):
    """Mod and FloorMod of floats (of every framework), right for infinite operands:
    fmod = x where y is infinite and x finite, else Mod(x, y) (the runtime gives NaN there);
    floor remainder = fmod + y where fmod != 0 and sign(fmod) != sign(y)."""

    phase = "middle"
    ops = ("Mod", "FloorMod")

    def run_before(self):
        return [ConstantFolding]

    def find_and_replace_pattern(self, graph) -> None:
        for node in graph.nodes_by_op("Mod") + graph.nodes_by_op("FloorMod"):
            dtype = node.in_dtype(0)
            if not is_float(dtype) or node.get("inf_safe"):
                continue
            b = OpBuilder(graph, node.name)
            x, y = node.in_port(0).get_source(), node.in_port(1).get_source()
            r = b.Select(b.LogicalAnd(b.IsInf(y), b.IsFinite(x)), x, b.Mod(x, y, inf_safe=True))
            if node.op == "FloorMod":
                zero = typed_const(b, 0, dtype)
                wrong_sign = b.LogicalAnd(b.NotEqual(r, zero), b.NotEqual(b.Less(r, zero), b.Less(y, zero)))
                r = b.Add(r, b.Select(wrong_sign, y, zero))
            node.out_port(0).get_connection().set_source(r)
            r.node["name"] = node.name
            graph.remove_node(node.id)
