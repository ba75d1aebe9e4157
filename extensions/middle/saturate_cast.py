"""ConvertLike with a known target type becomes Convert; a saturating conversion to a float8 type
(ONNX Cast/CastLike ``saturate=1``) clamps to the largest finite value of the target first."""
from __future__ import annotations

from extensions.middle.constant_folding import ConstantFolding
from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import Transform
from mo.utils.types import is_float

# Largest finite value of the float8 types.
F8_MAX = {"f8e4m3": 448.0, "f8e5m2": 57344.0}


class ConvertLikeToConvert(MiddleReplaceOp):
    """ConvertLike(x, like) -> Convert(x) to the element type of ``like`` once it is known (x itself
    when it has that type already)."""

    op = "ConvertLike"

    def replace_op(self, graph, node):
        target = node.in_dtype(1)
        if target is None:
            return None
        if target == node.in_dtype(0):
            return [node.in_port(0).get_source()]
        return [OpBuilder(graph).Convert(node.in_port(0).get_source(), destination_type=target,
                                         saturate=node.get("saturate", True), name=node.name)]


class SaturateConvert(Transform):
    """Convert(saturate=True) of a number to a float8 type -> Convert(Clamp(x, -max, max)), NaN kept."""

    phase = "middle"

    def run_after(self):
        return [ConvertLikeToConvert]

    def run_before(self):
        return [ConstantFolding]

    def find_and_replace_pattern(self, graph) -> None:
        for node in graph.nodes_by_op("Convert"):
            target = node.destination_type
            src = node.in_port(0).get_source()
            if not node.get("saturate") or target not in F8_MAX or src.data.get_dtype() in (None, "boolean"):
                continue
            node["saturate"] = False
            b = OpBuilder(graph, node.name)
            clamped = b.Clamp(src, min=-F8_MAX[target], max=F8_MAX[target])
            if is_float(src.data.get_dtype()):
                clamped = b.Select(b.IsNaN(src), src, clamped)   # Clamp does not keep NaN
            clamped.connect(node.in_port(0))
