"""The conversion pipeline: load -> extract -> front -> partial inference -> middle -> back -> emit."""
from __future__ import annotations

import logging
import os
import time
from typing import NamedTuple

from mo.cli.options import ConversionOptions
from mo.errors import ConversionError, ExtensionError, InputModelError, OptionError
from mo.front.cut import apply_cut
from mo.pipeline.extract import extract
from mo.pipeline.infer import partial_infer
from mo.registry import Registry

log = logging.getLogger("mo")


class IRPaths(NamedTuple):
    """Paths of the written IR files."""

    xml: str
    bin: str


def guess_framework(model, registry: Registry) -> str:
    for name, loader in sorted(registry.loaders.items()):
        if loader.accepts(model):
            return name
    raise InputModelError(
        f"Cannot tell the framework of '{model}' from its name; give --framework "
        f"({', '.join(sorted(registry.loaders))}).")


def all_graphs(graph):
    """``graph`` and every body graph nested in it, outermost first."""
    yield graph
    for node in graph.op_nodes():
        for body in (node.get("bodies") or {}).values():
            yield from all_graphs(body)


def run_phase(graph, phase: str, framework: str, registry: Registry) -> None:
    for transform in registry.transforms(phase, framework):
        started = time.perf_counter()
        for g in list(all_graphs(graph)):
            if not transform.graph_condition(g):
                continue
            try:
                transform.find_and_replace_pattern(g)
            except ConversionError:
                raise
            except Exception as e:
                if not transform.__class__.__module__.startswith(("extensions.", "mo.")):
                    raise ExtensionError(
                        f"Extension transform {transform.name()} ({transform.__class__.__module__}) failed: "
                        f"{type(e).__name__}: {e}") from e
                raise
        log.debug("%s %s: %.1f ms", phase, transform.name(), (time.perf_counter() - started) * 1000)


def transform_order(registry: Registry, framework: str | None) -> list[str]:
    lines = []
    for phase in ("front", "middle", "back"):
        for t in registry.transforms(phase, framework):
            lines.append(f"{phase:6s} {t.name()}  ({t.__class__.__module__})")
    return lines


def model_name_for(opts: ConversionOptions, graph) -> str:
    if opts.model_name:
        return opts.model_name
    if isinstance(opts.input_model, str):
        base = os.path.basename(os.path.normpath(opts.input_model))
        return os.path.splitext(base)[0] or "model"
    return graph.graph.get("model_name") or "model"


def convert(opts: ConversionOptions) -> IRPaths:
    """Run the whole conversion described by ``opts`` and write the IR."""
    from mo.emit.ir import emit_ir
    from mo.version import VERSION

    registry = Registry.build(opts.extensions)
    opts.registry = registry
    if isinstance(opts.input_model, str) and not os.path.exists(opts.input_model):
        raise InputModelError(f"Model file '{opts.input_model}' does not exist.")
    framework = opts.framework or guess_framework(opts.input_model, registry)
    if framework not in registry.loaders:
        raise OptionError(f"Framework '{framework}' is not supported; use one of "
                          f"{', '.join(sorted(registry.loaders))}.")
    graph = registry.loaders[framework]().load(opts)
    for g in all_graphs(graph):    # bodies too: transforms run on them and may read options
        g.graph["options"] = opts
    apply_cut(graph, opts)
    extract(graph, framework)
    run_phase(graph, "front", framework, registry)
    for g in all_graphs(graph):
        g.to_data_form()
    partial_infer(graph)
    run_phase(graph, "middle", framework, registry)
    run_phase(graph, "back", framework, registry)
    name = model_name_for(opts, graph)
    rt_info = {"MO_version": VERSION,
               "conversion_parameters": {k: v for k, v in sorted(opts.given.items())}}
    xml, bin_ = emit_ir(graph, opts.output_dir, name, rt_info)
    return IRPaths(xml, bin_)
