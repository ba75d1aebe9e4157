"""Constant folding: ops whose outputs are all known become Const nodes."""
from __future__ import annotations

from mo.pipeline.transform import Transform

_NEVER_FOLD = frozenset({"Parameter", "Const", "Result", "Assign", "ReadValue"})


class ConstantFolding(Transform):
    """Replace every op whose output values were computed during inference by Consts.

    Values that depend on a ShapeOf (``shape_derived``) are kept as computations so the IR stays
    reshapeable, unless --static_shape is given."""

    phase = "middle"

    def find_and_replace_pattern(self, graph) -> None:
        static = graph.options.static_shape
        registry = graph.registry
        const_op = registry.op("Const")
        for node in graph.topological_ops():
            if node.id not in graph or node.op in _NEVER_FOLD or not graph.output_values_known(node.id) \
                    or not node.op_class.foldable:
                continue
            outputs = node.out_ports()
            datas = [graph._node.get(graph.output_data(node.id, i) or "", {}) for i in outputs]
            if not datas or any(d.get("value") is None for d in datas):
                continue
            if not static and any(d.get("shape_derived") and d["value"].size for d in datas):
                continue     # (an empty value folds anyway: the runtime's kernels may divide by its 0 dim)
            for idx, port in outputs.items():
                if not port.is_connected():
                    continue
                data = graph._node[graph.output_data(node.id, idx)]
                const = const_op.create(graph, (), name=node.name if len(outputs) == 1 else f"{node.name}:{idx}",
                                        value=data["value"], element_type=data["dtype"])
                port.get_connection().set_source(const.out_port(0))
            graph.remove_node(node.id)      # with its output data nodes that feed nothing
        graph.remove_orphan_data()
