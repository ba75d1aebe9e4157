"""Removal of elementwise ops with a neutral constant: x + 0, x - 0, x * 1, x / 1 (the constant
must not change x's shape or type through broadcasting)."""
from __future__ import annotations

import numpy as np

from extensions.middle.scale_shift_fusions import MergeConstantAdds
from mo.pipeline.transform import Transform

# op -> (neutral value, input positions the constant may take)
NEUTRAL = {"Add": (0, (0, 1)), "Subtract": (0, (1,)), "Multiply": (1, (0, 1)), "Divide": (1, (1,))}


class RemoveNeutralElementwise(Transform):
    """x + 0 -> x and friends, when the result has x's shape and element type."""

    phase = "middle"

    def run_after(self):
        return [MergeConstantAdds]   # a zero bias may only appear once constant Adds are merged

    def find_and_replace_pattern(self, graph) -> None:
        for op, (neutral, positions) in NEUTRAL.items():
            for node in graph.nodes_by_op(op):
                for pos in positions:
                    value = node.in_value(pos)
                    if value is None or value.size == 0 or not np.all(value == neutral):
                        continue
                    other = node.in_port(1 - pos).get_source()
                    if node.in_value(1 - pos) is not None:
                        continue   # both constant: ConstantFolding's business
                    out = node.out_port(0).data
                    if other.data.get_shape() != out.get_shape() or other.data.get_dtype() != out.get_dtype():
                        continue
                    if other.data.get_shape() is None:
                        continue
                    node.out_port(0).get_connection().set_source(other)
                    graph.remove_node(node.id)
                    break
