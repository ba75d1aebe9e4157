"""Error types raised by the converter.

Every error a user can cause (bad file, bad option, unsupported op) is a ``ConversionError``:
the CLI prints its message as one paragraph and exits with status 1. Anything else is a bug in
the converter and is reported with a traceback.
"""
from __future__ import annotations


class ConversionError(Exception):
    """A problem with the user's model or options, reported without a traceback."""


class InputModelError(ConversionError):
    """The model file is missing, truncated, of the wrong format or refers to missing data."""


class OptionError(ConversionError):
    """A command-line option or ``convert_model`` argument is malformed or contradicts the model."""


class UnsupportedOpsError(ConversionError):
    """One or more operations of the model have no extractor."""

    def __init__(self, framework: str, unsupported: dict[str, list[str]]):
        self.unsupported = unsupported
        lines = [f"  {op_type}: {', '.join(names[:5])}" + (f" (+{len(names) - 5} more)" if len(names) > 5 else "")
                 for op_type, names in sorted(unsupported.items())]
        count = len(unsupported)
        super().__init__(
            f"{count} {framework} operation type{'s are' if count > 1 else ' is'} not supported "
            f"(type: node names):\n" + "\n".join(lines) +
            "\nAdd an extractor for each of them with --extensions, or cut the graph around them "
            "with --input/--output.")


class MissingPackageError(ConversionError):
    """The framework package a model needs is not installed."""


class OutputError(ConversionError):
    """The IR cannot be written where it was asked to go (folder read-only, full, or a file)."""


class ExtensionError(ConversionError):
    """A user extension failed to load or raised while running."""


class GraphError(ConversionError):
    """The model graph is malformed (cycle, dangling input, shape conflict)."""
