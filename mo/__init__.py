"""mo: a model optimizer that converts trained models to OpenVINO IR v11.

    from mo import convert_model
    paths = convert_model(input_model="model.onnx", output_dir="out", input_shape=[1, 3, 224, 224])
    paths.xml, paths.bin
"""
from __future__ import annotations

from typing import Any


def convert_model(input_model: Any = None, **options: Any):
    """Convert ``input_model`` (a path or a framework model object) to IR; keyword arguments are
    named like the command-line options (``output_dir``, ``input``, ``input_shape``, ``output``,
    ``batch``, ``static_shape``, ``model_name``, ``framework``, ``extensions``...). Returns the
    written paths as ``IRPaths(xml, bin)``. Raises ``mo.errors.ConversionError`` on bad input."""
    from mo.cli.options import make_options
    from mo.pipeline.convert import convert
    opts = make_options({"input_model": input_model, **options})
    return convert(opts)


__all__ = ["convert_model"]
