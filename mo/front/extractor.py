"""Extractor base class: reads one framework operation's attributes into the node."""
from __future__ import annotations

from mo.graph.node import Node


class Extractor:
    """Fills a node's attributes from its framework description.

    Subclasses set ``framework`` and ``op_types`` (the framework op types handled; a domain may
    be given as ``"domain::Type"``) and implement ``extract(node)``, which sets ``node.op`` and
    the op's attributes, usually through ``SomeOp.update_node(node, attrs)``."""

    abstract = True
    framework: str = ""
    op_types: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "abstract" not in cls.__dict__:
            cls.abstract = False

    @classmethod
    def extract(cls, node: Node) -> None:
        raise NotImplementedError
