"""Common sub-expression elimination: two ops of the same type, version and IR attributes fed by
the same tensors compute the same thing, so the later one's consumers are fed by the earlier one.
Models exported with shape computations repeat ShapeOf/Gather/Unsqueeze chains many times."""
from __future__ import annotations

import numpy as np

from extensions.back.cleanup import RemoveDeadNodes
from extensions.back.merge_constants import MergeDuplicateConstants
from mo.pipeline.transform import Transform

# Never merged: inputs/outputs, state and randomness, sub-graph owners.
_KEEP = frozenset({"Parameter", "Result", "Const", "ReadValue", "Assign", "RandomUniform", "Multinomial",
                   "If", "Loop", "TensorIterator"})


def _freeze(value):
    if isinstance(value, np.ndarray):
        return ("nd", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


class EliminateCommonSubexpressions(Transform):
    """One pass in topological order; the key of an op is (type, version, IR attributes, sources
    of every input, number of outputs)."""

    phase = "back"
    on_save = True

    def run_after(self):
        return [MergeDuplicateConstants]

    def run_before(self):
        return [RemoveDeadNodes]

    def find_and_replace_pattern(self, graph) -> None:
        seen: dict[tuple, object] = {}
        for node in graph.topological_ops():
            if node.id not in graph or node.op in _KEEP or node.get("bodies") or node.get("rt_info"):
                continue
            op_class = node.op_class
            if op_class.type is None or not op_class.foldable:
                continue
            sources = []
            for i in graph.in_indices(node.id):
                src_id, src_idx = graph.producer(node.id, i)
                sources.append((i, src_id, src_idx))
            try:
                key = (node.type, node.get("version"), _freeze(op_class.ir_data(node)), tuple(sources),
                       op_class.outputs_count(node))
                hash(key)
            except TypeError:
                continue
            keeper = seen.setdefault(key, node)
            if keeper is node:
                continue
            for idx, port in node.out_ports().items():
                if port.is_connected():
                    port.get_connection().set_source(keeper.out_port(idx))
            graph.remove_node(node.id)
