"""ConversionContext: what the graphs of one conversion share (options, registry, framework).

Every graph of a conversion, bodies included, holds the same context (``graph.context``); the
loader creates the main graph with it and ``new_body`` passes it on. Nothing of it is global:
two conversions in one process each have their own.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mo.cli.options import ConversionOptions
    from mo.registry import Registry


def lint_requested() -> bool:
    """Whether ``Graph.lint()`` runs after every transform and translation (the test suite sets
    MO_LINT=1; it costs a walk of the graph per step)."""
    return os.environ.get("MO_LINT", "") not in ("", "0")


@dataclass
class ConversionContext:
    """Options, registry and framework of one conversion, plus what its steps record."""

    options: "ConversionOptions"
    registry: "Registry"
    framework: str
    lint: bool = field(default_factory=lint_requested)
    # framework op key -> [nodes translated, milliseconds], for --report
    translations: dict[str, list] = field(default_factory=dict)
    # --progress (mo/pipeline/progress.py); a no-op unless asked for
    progress: object = None

    def __post_init__(self):
        if self.progress is None:
            from mo.pipeline.progress import NO_PROGRESS
            self.progress = NO_PROGRESS

    @classmethod
    def default(cls, framework: str = "onnx", registry: "Registry | None" = None, **options) -> "ConversionContext":
        """A context with default options (tests, and graphs built outside a conversion)."""
        from mo.cli.options import ConversionOptions
        from mo.registry import Registry
        return cls(ConversionOptions(**options), registry or Registry.build(), framework)
