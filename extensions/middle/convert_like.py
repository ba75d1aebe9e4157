"""ConvertLike with a known target type becomes Convert; integer counts held in a float tensor
go back to integers directly."""
from __future__ import annotations

from extensions.middle.constant_folding import ConstantFolding
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp
from mo.utils.types import INT_TYPES


class ConvertLikeToConvert(ReplaceOp):
    """ConvertLike(x, like) -> Convert(x) to the element type of ``like`` once it is known (x itself
    when it has that type already)."""

    phase = "middle"
    op = "ConvertLike"

    def run_before(self):
        return [ConstantFolding]     # the constant pieces it builds get folded

    def replace_op(self, graph, node):
        target = node.in_dtype(1)
        if target is None:
            return None
        if target == node.in_dtype(0):
            return [node.in_port(0).get_source()]
        return [OpBuilder(graph).Convert(node.in_port(0).get_source(), destination_type=target, name=node.name)]


class IntegerValuedRoundTrip(ReplaceOp):
    """Convert(Convert(counts: int -> float), int) -> Convert(counts, int), when the first Convert is
    marked ``integer_valued`` (its values are integers a float holds exactly: counts that a
    translator made, such as histc's). The CPU plugin computes f32 tensors in bf16 when it infers
    in bf16, also between two Converts, and bf16 holds integers exactly only up to 256: the number
    of tokens routed to each expert of a mixture-of-experts layer (histc, then cumsum to int32)
    would be rounded, and rows lost or made up."""

    phase = "middle"
    op = "Convert"

    def replace_op(self, graph, node):
        if node.get("destination_type") not in INT_TYPES:
            return None
        source = node.in_port(0).get_source()
        inner = source.node
        if inner.op != "Convert" or not inner.get("integer_valued") or inner.in_dtype(0) not in INT_TYPES:
            return None
        counts = inner.in_port(0).get_source()
        if counts.data.get_dtype() == node.destination_type:
            return [counts]
        return [OpBuilder(graph).Convert(counts, destination_type=node.destination_type, name=node.name)]
