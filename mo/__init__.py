"""mo: a model optimizer that converts trained models to OpenVINO IR v11.

    from mo import convert_model
    ir = convert_model("model.onnx", input=[1, 3, 224, 224])      # in memory: IRModel
    ir.save("out/model.xml"); ov_model = ir.to_openvino()
    paths = convert_model("model.onnx", output_dir="out")          # written: IRPaths(xml, bin)
"""
from __future__ import annotations

import contextlib
import logging
import os
import sys
from typing import Any


def _pin_builtin_extensions() -> None:
    """Make ``import extensions`` give the built-in package installed beside ``mo``, whatever the
    current folder or sys.path holds: a folder named ``extensions`` in the working directory
    (a legacy user's extensions, say) would otherwise shadow it, and every conversion would fail
    for want of loaders. A different ``extensions`` already imported is replaced (logged)."""
    import importlib.util
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "extensions")
    init = os.path.join(folder, "__init__.py")
    if not os.path.isfile(init):
        return
    current = sys.modules.get("extensions")
    if current is not None:
        where = [os.path.realpath(p) for p in getattr(current, "__path__", [])]
        if where == [os.path.realpath(folder)]:
            return
        logging.getLogger("mo").warning("A module named 'extensions' from %s was imported before mo; mo uses its "
                                        "built-in extensions package (%s) instead.", where or "?", folder)
        for name in [n for n in sys.modules if n == "extensions" or n.startswith("extensions.")]:
            del sys.modules[name]
    spec = importlib.util.spec_from_file_location("extensions", init, submodule_search_locations=[folder])
    module = importlib.util.module_from_spec(spec)
    sys.modules["extensions"] = module
    spec.loader.exec_module(module)


_pin_builtin_extensions()


@contextlib.contextmanager
def _api_logging(options: dict):
    """``log_level=`` / ``verbose=`` of convert_model: the "mo" logger at that level for the
    call, printing ``[ LEVEL ] message`` to stderr when the application configured no handler."""
    level = options.get("log_level")
    if options.get("verbose") and str(level or "").upper() not in ("DEBUG", "NOTSET"):
        level = "INFO"
    if level is None:
        yield
        return
    logger = logging.getLogger("mo")
    name = {"WARN": "WARNING"}.get(str(level).upper(), str(level).upper())
    saved = logger.level
    handler = None
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("[ %(levelname)s ] %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(getattr(logging, name, logging.WARNING))
    try:
        yield
    finally:
        logger.setLevel(saved)
        if handler is not None:
            logger.removeHandler(handler)


def convert_model(input_model: Any = None, **options: Any):
    """Convert ``input_model`` (a path or a framework model object) to IR; keyword arguments are
    named like the command-line options (``input``, ``input_shape``, ``output``, ``batch``,
    ``static_shape``, ``model_name``, ``framework``, ``extensions``, ``log_level``,
    ``validate``...). ``input`` also takes OpenVINO's forms: a shape (``[1, 3, 224, 224]``), a
    list of shapes, ``(name, shape[, type])`` tuples or a dict name -> shape.

    With ``output_dir`` (or ``output_model="out/model.xml"``) the IR is written and its paths
    are returned as ``IRPaths(xml, bin)``; without, the IR is returned in memory as an
    ``IRModel`` (``.save(path)``, ``.to_openvino()``, ``.inputs``, ``.outputs``) whose float
    weights stay float32 (``save`` writes them as float16 unless ``compress_to_fp16=False``).
    ``validate=True`` runs the IR and the source model on the same inputs, prints the
    comparison and raises ``mo.runtime.validate.ValidationFailed`` when an output differs;
    ``validate_layers=True`` compares every tensor both have too (``report.layers``, a
    ``mo.runtime.layers.LayersReport``; ``validate_precision="bf16"`` runs the IR in bf16).
    Raises ``mo.errors.ConversionError`` on bad input."""
    from mo.cli.options import make_options
    from mo.pipeline.convert import convert
    with _api_logging(options):
        opts = make_options({"input_model": input_model, **options})
        result = convert(opts)
        if opts.validate:
            from mo.runtime.validate import ValidationFailed, validate_conversion
            try:
                report = validate_conversion(opts, result, opts.framework)
            except ValidationFailed as e:
                print("\n".join(e.report.lines()))
                raise
            print("\n".join(report.lines()))
            if hasattr(result, "weights"):
                result.validation = report
    return result


__all__ = ["convert_model"]
