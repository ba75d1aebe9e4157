"""LoweredOp: a framework op that partial inference replaces by the opset ops it lowers to.

Some framework ops can only be translated once the element types, ranks or constant values of
their inputs are known (type promotion, negative dims, sizes computed from shapes), and writing
a shape inference for each of them beside its lowering would say everything twice. A LoweredOp
does the lowering as its inference: when partial inference reaches the node, its inputs are
inferred, ``lower(node, b)`` builds the replacement from them with an OpBuilder (each new node is
inferred as it is created, so later steps of the lowering see its shape, type and value), the
node's consumers and tensor names move to the returned ports and the node is removed. Later
phases never see it.
"""
from __future__ import annotations

from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.ops.op import Op


class LoweredOp(Op):
    """Base of ops lowered during partial inference. Subclasses set ``op`` and implement
    ``lower``; the node's attributes (from its extractor) and input ports are what it reads."""

    abstract = True
    type = None

    @classmethod
    def type_infer(cls, node: Node) -> None:
        pass

    @classmethod
    def infer(cls, node: Node) -> None:
        graph = node.graph
        before = graph._seq
        outputs = cls.lower(node, OpBuilder(graph, node.name))
        replace_node_outputs(node, list(outputs), before)

    @classmethod
    def lower(cls, node: Node, b: OpBuilder) -> list[Port | None]:
        """The ports that replace the node's outputs, in order (None for an unused output)."""
        raise NotImplementedError


def replace_node_outputs(node: Node, outputs: list[Port | None], first_new_seq: int) -> None:
    """Move the consumers and tensor names of ``node``'s outputs to ``outputs`` and remove it. A
    single output made by a node created after ``first_new_seq`` takes the node's name, so the
    IR layer keeps the framework's name."""
    from mo.pipeline.transform import replace_outputs
    graph = node.graph
    if len(outputs) == 1 and outputs[0] is not None:
        producer = outputs[0].node
        if producer.get("_seq", 0) > first_new_seq:
            producer["name"] = node.name
    replace_outputs(node, outputs)
    if node.id in graph:
        graph.remove_node(node.id)
