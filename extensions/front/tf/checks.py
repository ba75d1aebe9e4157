"""The end of the TensorFlow front phase: every TensorFlow operation that only the front phase
can lower must be gone; what is left is a pattern the converter does not handle, reported by
name."""
from __future__ import annotations

from mo.errors import ConversionError
from mo.ops.internal import FrontOnlyOp
from mo.pipeline.anchors import FrontFinish
from mo.pipeline.transform import Transform


class CheckTfLowered(Transform):
    frameworks = ("tf",)

    def run_before(self):
        return [FrontFinish]

    def find_and_replace_pattern(self, graph) -> None:
        left = sorted((n.get("fw_op") or n.op, n.name) for n in graph.op_nodes()
                      if (n.op or "").startswith("tf::") and issubclass(n.op_class, FrontOnlyOp))
        if left:
            items = ", ".join(f"{kind} '{name}'" for kind, name in left[:10])
            raise ConversionError(f"These TensorFlow operations are used in a way the converter does not support: "
                                  f"{items}" + (f" (+{len(left) - 10} more)" if len(left) > 10 else "") + ".")
