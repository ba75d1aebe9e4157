"""Elimination of consecutive Transposes and Reshapes, and of ones that change nothing."""
from __future__ import annotations

import numpy as np

from extensions.middle.constant_folding import ConstantFolding
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import Transform
from mo.utils.shape import is_static


def _order(node) -> list[int] | None:
    order = node.in_value(1)
    rank = node.in_port(0).data.get_rank()
    if order is None or rank is None:
        return None
    order = [int(o) % rank for o in np.atleast_1d(order)] if order.size else list(range(rank - 1, -1, -1))
    return order


class MergeConsecutiveTransposes(Transform):
    """Transpose(Transpose(x, p), q) -> Transpose(x, p[q]); an identity order disappears."""

    phase = "middle"

    def run_after(self):
        return [ConstantFolding]

    def find_and_replace_pattern(self, graph) -> None:
        if not graph.has_op("Transpose"):
            return
        for node in graph.topological_ops():
            if node.op != "Transpose" or node.id not in graph:
                continue
            order = _order(node)
            if order is None:
                continue
            source = node.in_port(0).get_source()
            if source.node.op == "Transpose" and _order(source.node) is not None:
                inner = _order(source.node)
                order = [inner[i] for i in order]
                source = source.node.in_port(0).get_source()
            if order == list(range(len(order))):
                node.out_port(0).get_connection().set_source(source)
                graph.remove_node(node.id)
                continue
            if source != node.in_port(0).get_source():
                b = OpBuilder(graph, node.name)
                merged = b.Transpose(source, np.array(order, np.int64), name=node.name)
                node.out_port(0).get_connection().set_source(merged)
                graph.remove_node(node.id)


class MergeConsecutiveReshapes(Transform):
    """Reshape(Reshape(x, a), b) -> Reshape(x, b) when b is constant and does not copy dims of
    the intermediate tensor (no 0 with special_zero); a Reshape to the same static shape goes."""

    phase = "middle"

    def run_after(self):
        return [ConstantFolding]

    def find_and_replace_pattern(self, graph) -> None:
        if not graph.has_op("Reshape"):
            return
        for node in graph.topological_ops():
            if node.op != "Reshape" or node.id not in graph:
                continue
            source = node.in_port(0).get_source()
            target = node.in_value(1)
            if source.node.op == "Reshape" and target is not None and not (
                    node.special_zero and np.any(target == 0)):
                source.node.in_port(0).get_source().connect(node.in_port(0))
                source = node.in_port(0).get_source()
            in_shape = source.data.get_shape()
            if is_static(in_shape) and in_shape == node.out_port(0).data.get_shape():
                node.out_port(0).get_connection().set_source(source)
                graph.remove_node(node.id)
