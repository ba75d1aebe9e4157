"""Translators: the one function per framework op that builds its opset sub-graph.

    @translator("onnx", "Resize", "Upsample")
    def resize(node: Node, b: OpBuilder) -> list[Port | None]:
        x = node.in_port(0).get_source()          # inputs are inferred: types, shapes, values
        ...
        return [b.Interpolate(x, sizes, ...)]     # the ports replacing the node's outputs

The translate step (``mo/pipeline/translate.py``) calls a node's translator when its topological
walk reaches it, after every input of the node has been inferred (or translated), so a
translator reads element types, ranks, static dims and constant values freely. Nodes it creates
with the OpBuilder ``b`` are inferred as they are created. It returns the output ports that take
over the node's outputs, in order (None for an output nothing uses); the node's consumers and
tensor names move to them and the node is removed.

The decorator only marks the function; the registry of each conversion collects marked
functions from the modules it scans (the built-in ``extensions`` package and user
``--extensions`` folders), so a user folder adds or replaces translators as it does extractors.
Keys are the framework's op types, as the extractors use them (ONNX ops of another domain as
``"domain::Type"``; ATen ops as ``"aten::name"``).
"""
from __future__ import annotations

from typing import Callable

TRANSLATOR_MARK = "__mo_translator__"


def translator(framework: str, *op_types: str) -> Callable:
    """Register the decorated function as the translator of ``op_types`` of ``framework``."""
    if not op_types:
        raise ValueError("translator() needs at least one op type")

    def mark(fn: Callable) -> Callable:
        previous = getattr(fn, TRANSLATOR_MARK, ())
        setattr(fn, TRANSLATOR_MARK, tuple(previous) + ((framework, tuple(op_types)),))
        return fn
    return mark


def translator_keys(fn) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The (framework, op types) registrations a function is marked with (empty if none)."""
    return getattr(fn, TRANSLATOR_MARK, ()) if callable(fn) else ()


# Framework key suffix of the translators that convert an op whose input is complex.
COMPLEX_KEY = "+complex"


def complex_translator(framework: str, *op_types: str) -> Callable:
    """Register the decorated function as what converts ``op_types`` of ``framework`` when one of
    the node's inputs is complex (a real tensor [..., 2] of (real, imaginary) pairs marked with
    ``mark_complex``; see the complex helpers of ``mo/graph/building.py``). The translate step
    calls it instead of the op's translator, or instead of inferring the opset op an extractor
    set (the node's attributes from the extractor are there to read); an op without one that
    meets a complex input is refused. An op that takes complex and real inputs alike registers
    one function with both decorators."""
    return translator(framework + COMPLEX_KEY, *op_types)
