"""Transform base classes.

A transform belongs to one phase (``front``: op graph, no shapes; ``middle``: shapes known;
``back``: opset form), may be limited to some frameworks, and orders itself against other
transforms with ``run_after()`` / ``run_before()``. It either implements
``find_and_replace_pattern(graph)``, or (``ReplaceOp``) names one op type and replaces each node
of that type, found through the graph's op index.
"""
from __future__ import annotations

from mo.graph.node import Node
from mo.graph.port import Port

PHASES = ("front", "middle", "back")


class Transform:
    """Base of all graph transforms. Subclasses set ``phase``."""

    abstract = True
    phase: str = "front"
    enabled: bool = True
    # None: every framework; otherwise the frameworks this transform applies to.
    frameworks: tuple[str, ...] | None = None
    # The op types this transform looks for (``mo --explain`` lists it under them).
    ops: tuple[str, ...] = ()
    # Run again (in phase order) when an IR converted in memory with float32 weights is saved
    # with fp16 compression (``IRModel.save``): the weights' storage form and the clean-up after it.
    on_save: bool = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "abstract" not in cls.__dict__:
            cls.abstract = False

    def run_after(self) -> list[type]:
        return []

    def run_before(self) -> list[type]:
        return []

    def graph_condition(self, graph) -> bool:
        """Run only when this holds for the graph (e.g. a cli option is set)."""
        return True

    def find_and_replace_pattern(self, graph) -> None:
        raise NotImplementedError

    @classmethod
    def name(cls) -> str:
        return cls.__name__

    def matched_ops(self) -> set[str]:
        """The op types this transform looks for."""
        return set(self.ops)


class ReplaceOp(Transform):
    """Replace every node whose ``op`` is ``self.op`` with what ``replace_op`` builds.

    ``replace_op(graph, node)`` returns the output ports that take over the node's outputs
    (in output order; None for an output with no replacement), or None when it rewired
    everything itself. The old node is removed afterwards."""

    abstract = True
    op: str = ""

    def matched_ops(self) -> set[str]:
        return {self.op} | set(self.ops)

    def find_and_replace_pattern(self, graph) -> None:
        for node in graph.nodes_by_op(self.op):
            if node.id not in graph:
                continue
            new_outputs = self.replace_op(graph, node)
            if new_outputs is None:
                continue
            replace_outputs(node, new_outputs)

    def replace_op(self, graph, node: Node) -> list[Port | None] | None:
        raise NotImplementedError


def replace_outputs(node: Node, new_outputs: list[Port | None]) -> None:
    """Move every consumer (and tensor name) of ``node``'s outputs to ``new_outputs`` and remove
    ``node``."""
    for idx, port in node.out_ports().items():
        if idx < len(new_outputs) and new_outputs[idx] is not None:
            port.get_connection().set_source(new_outputs[idx])
        elif port.is_connected():
            raise AssertionError(f"output {idx} of {node.id} is used but has no replacement")
    node.graph.remove_node(node.id)
