"""Extractor base class: reads one framework operation's attributes into the node."""
from __future__ import annotations

import inspect

from mo.graph.node import Node
from mo.ops.op import Op


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

    @classmethod
    def becomes(cls, op_type: str) -> list[str]:
        """Names the ops a node of ``op_type`` may become, for ``mo --explain`` (which keeps those
        the registry has): by default the Op classes and the strings ``extract`` names (the op
        may be looked up by name, ``registry.op("MatMul")``); an extractor that picks the op from
        a table overrides this. Empty: the node stays a framework op for a rewrite."""
        code = inspect.unwrap(cls.extract)
        names = inspect.getclosurevars(code).globals.values()
        classes = {v.op for v in names if isinstance(v, type) and issubclass(v, Op) and v.op}
        return sorted(classes | {c for c in code.__code__.co_consts if isinstance(c, str)})
