"""The conversion pipeline: load -> extract -> front -> translate -> middle -> back -> emit."""
from __future__ import annotations

import dataclasses
import functools
import gc
import logging
import os
import time

from mo.cli.options import ConversionOptions
from mo.errors import ConversionError, ExtensionError, InputModelError, MissingPackageError, OptionError
from mo.front.cut import apply_cut, mark_probes
from mo.graph.building import is_complex
from mo.graph.graph import all_graphs
from mo.model import IRModel, IRPaths
from mo.pipeline.context import ConversionContext
from mo.pipeline.extract import extract
from mo.pipeline.progress import NO_PROGRESS, CountingStream, Progress, human_bytes
from mo.pipeline.translate import translate_graph
from mo.pipeline.validate import validate
from mo.registry import Registry
from mo.utils.origin import class_origin, is_user_class

log = logging.getLogger("mo")


def guess_framework(model, registry: Registry) -> str:
    for name, loader in sorted(registry.loaders.items()):
        if loader.accepts(model):
            return name
    what = f"'{model}'" if isinstance(model, str) else f"a {type(model).__name__} object"
    raise InputModelError(
        f"Cannot tell the framework of {what} from its name; give --framework "
        f"({', '.join(sorted(registry.loaders))}).")


# module a framework's loader imports -> (its pip package, the extra of setup.py that installs it)
FRAMEWORK_PACKAGES = {"onnx": ("onnx", "onnx"), "google": ("protobuf", "onnx"), "torch": ("torch==2.13.0", "pytorch"),
                      "tensorflow": ("tensorflow-cpu", "tf"), "keras": ("keras", "tf"), "h5py": ("h5py", "tf")}


def load(registry: Registry, framework: str, context: ConversionContext):
    """The loaded op-form graph; a framework package that is not installed is a clear error."""
    try:
        return registry.loaders[framework]().load(context)
    except ImportError as e:
        module = (e.name or "").split(".")[0]
        if module not in FRAMEWORK_PACKAGES:
            raise
        package, extra = FRAMEWORK_PACKAGES[module]
        raise MissingPackageError(
            f"Converting this model needs the Python package '{module}', which is not installed: "
            f"pip install {package} (or, in this project, pip install -e \".[{extra}]\").") from e


def _op_count(graph) -> tuple[set, int]:
    ids = {n for g in all_graphs(graph) for n, d in g._node.items() if d.get("kind") == "op"}
    return ids, len(ids)


def run_phase(graph, phase: str, framework: str, registry: Registry, report: list | None = None,
              only=None) -> None:
    """Run every transform of ``phase`` on the graph and its bodies, in registry order (``only``:
    those it accepts). With a ``report`` list, record (phase, name, milliseconds, ops added, ops
    removed) per transform."""
    transforms = [t for t in registry.transforms(phase, framework) if only is None or only(t)]
    progress = graph.context.progress
    progress.step(phase, len(transforms))
    for transform in transforms:
        started = time.perf_counter()
        before = _op_count(graph)[0] if report is not None else None
        for g in list(all_graphs(graph)):
            if not transform.graph_condition(g):
                continue
            try:
                transform.find_and_replace_pattern(g)
            except ConversionError:
                raise
            except Exception as e:
                if is_user_class(type(transform)):
                    raise ExtensionError(
                        f"Extension transform {class_origin(type(transform))} failed: {type(e).__name__}: {e}") from e
                raise
            if g.context.lint:
                lint_after(g, f"{phase} transform {transform.name()}")
        elapsed = (time.perf_counter() - started) * 1000
        if report is not None:
            after = _op_count(graph)[0]
            report.append((phase, transform.name(), elapsed, len(after - before), len(before - after)))
        progress.advance(transform.name())
        log.debug("%s %s: %.1f ms", phase, transform.name(), elapsed)


def lint_after(graph, step: str) -> None:
    """Graph.lint(), naming the step that left the graph inconsistent (tests switch it on)."""
    from mo.errors import GraphError
    try:
        graph.lint()
    except GraphError as e:
        raise GraphError(f"the graph is inconsistent after {step}: {e}") from e


def transform_order(registry: Registry, framework: str | None) -> list[str]:
    lines = []
    for phase in ("front", "middle", "back"):
        for t in registry.transforms(phase, framework):
            lines.append(f"{phase:6s} {t.name()}  ({t.__class__.__module__})")
    return lines


def model_name_for(opts: ConversionOptions, graph) -> str:
    """--model_name, else the name the loader gives the IR (``graph.graph["ir_name"]``: a
    transformers model's is ``openvino_model``, as its clients look for), else the model file's."""
    if opts.model_name:
        return opts.model_name
    if graph.graph.get("ir_name"):
        return graph.graph["ir_name"]
    if isinstance(opts.input_model, str):
        base = os.path.basename(os.path.normpath(opts.input_model))
        return os.path.splitext(base)[0] or "model"
    return graph.graph.get("model_name") or "model"


def _file_size(path) -> int:
    if not isinstance(path, str):
        return 0
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(root, f)) for root, _, files in os.walk(path) for f in files)
    return os.path.getsize(path) if os.path.isfile(path) else 0


def weights_size(graph) -> int:
    """Bytes the Consts of ``graph`` and its bodies take in the .bin (before de-duplication)."""
    from mo.utils.types import bit_width
    total = 0
    for g in all_graphs(graph):
        for node in g.nodes_by_op("Const"):
            value = node.get("value")
            if value is None:
                continue
            try:     # the stored width: bf16 held in f32 or as raw bits is 2 bytes a value, u4 half a byte
                total += (int(value.size) * bit_width(node.element_type) + 7) // 8
            except (KeyError, TypeError, ValueError):
                total += int(getattr(value, "nbytes", 0))
    return total


def cut_tensor_inference(registry: Registry, framework: str, opts: ConversionOptions):
    """For apply_cut: infers the shapes and types of the tensors --input entries name by converting,
    in a fresh graph of the model cut with the other entries, the part that computes them (its
    model inputs keep their shapes: dynamic dimensions stay dynamic). Raises the ConversionError
    of that part when it does not convert."""
    def infer(specs: list) -> list[tuple]:
        names = ", ".join(f"'{s.name}'" for s in specs)
        log.info("Inferring the shapes and types of %s from the model before the cut", names)
        shapes = list(opts.input_shape)
        kept = [dataclasses.replace(s, shape=shapes[i] if i < len(shapes) else s.shape)
                for i, s in enumerate(opts.inputs) if all(s is not p for p in specs)]
        probe_opts = dataclasses.replace(opts, inputs=kept, input_shape=[])
        context = ConversionContext(probe_opts, registry, framework)
        graph = load(registry, framework, context)
        apply_cut(graph, dataclasses.replace(probe_opts, outputs=[]))
        results = mark_probes(graph, specs)
        extract(graph, framework)
        run_phase(graph, "front", framework, registry)
        for g in all_graphs(graph):
            g.to_data_form()
        translate_graph(graph)
        return [(r.in_port(0).data.get_shape(), r.in_port(0).data.get_dtype(), is_complex(r.in_port(0).get_source()))
                for r in results]
    return infer


def collections_deferred(fn):
    """``fn`` run with Python's cyclic garbage collector rarely triggered. A conversion makes
    millions of small objects (node and edge dicts) that live until it ends and few reference
    cycles; at the default thresholds the collector ran every 700 allocations and its full
    collections walked every live object, a fifth of a long graph's conversion time. The
    thresholds are restored afterwards."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        saved = gc.get_threshold()
        gc.set_threshold(100_000, 50, 1000)
        try:
            return fn(*args, **kwargs)
        finally:
            gc.set_threshold(*saved)
    return run


@collections_deferred
def convert(opts: ConversionOptions) -> IRPaths | IRModel:
    """Run the whole conversion described by ``opts``; write the IR to ``opts.output_dir`` and
    return its paths, or, when ``output_dir`` is None, return it in memory (``IRModel``)."""
    from mo.emit.ir import emit_ir, render_ir
    from mo.version import VERSION

    started = time.perf_counter()
    # --compress_weights: its sizes before/after are printed by the command line even without INFO
    summary_wanted = log.isEnabledFor(logging.INFO) or bool(opts.compress_weights) or bool(opts.report)
    report: list | None = [] if opts.report or summary_wanted else None
    progress = Progress(interactive=False if opts.stream_output else None) if opts.progress else NO_PROGRESS

    def step(phase: str, name: str, since: float) -> float:
        now = time.perf_counter()
        if report is not None:
            report.append((phase, name, (now - since) * 1000, None, None))
        return now

    registry = Registry.build(opts.extensions)
    if opts.transformations_config:
        from mo.pipeline.subgraph import check_config_ids
        check_config_ids(registry, opts.transformations_config)
    if isinstance(opts.input_model, str) and not os.path.exists(opts.input_model):
        raise InputModelError(f"Model file '{opts.input_model}' does not exist.")
    framework = opts.framework or guess_framework(opts.input_model, registry)
    if framework not in registry.loaders:
        raise OptionError(f"Framework '{framework}' is not supported; use one of "
                          f"{', '.join(sorted(registry.loaders))}.")
    context = ConversionContext(opts, registry, framework)
    context.progress = progress
    t = step("setup", "registry", started)
    size = _file_size(opts.input_model)
    progress.step("load", detail=f"{framework} model" + (f", {human_bytes(size)}" if size else ""))
    graph = load(registry, framework, context)
    t = step("load", f"{framework} loader", t)
    progress.step("extract")
    apply_cut(graph, opts, cut_tensor_inference(registry, framework, opts))
    extract(graph, framework)
    t = step("extract", "extractors", t)
    run_phase(graph, "front", framework, registry, report)
    t = time.perf_counter()
    for g in all_graphs(graph):
        g.to_data_form()
    translate_graph(graph)
    if context.lint:
        lint_after(graph, "translation")
        graph.lint_translated()
    if report is not None and opts.report:
        for key, (count, ms) in sorted(context.translations.items()):
            report.append(("translate", f"{key} x{count}", ms, None, None))
    t = step("translate", "translate step (total)", t)
    run_phase(graph, "middle", framework, registry, report)
    run_phase(graph, "back", framework, registry, report)
    t = time.perf_counter()
    validate(graph)
    name = model_name_for(opts, graph)
    rt_info = {"MO_version": VERSION,
               "conversion_parameters": {k: v for k, v in sorted(opts.given.items())},
               **graph.graph.get("rt_info", {})}
    total = weights_size(graph)
    progress.step("emit", detail=f"weights {human_bytes(total)}")
    # in memory with float32 weights: the graph is kept for IRModel.save's fp16 compression
    keep = opts.output_dir is None and not opts.compress_to_fp16 and not opts.compress_weights
    placed: list | None = [] if keep else None
    if opts.output_dir is None:
        from mo.pipeline.weights_buffer import WeightsBuffer
        stream = WeightsBuffer(total)
        xml = render_ir(graph, name, rt_info, CountingStream(stream, progress, total), placed, opts.permuted_tensors)
        weights = stream.getbuffer()   # writable, not a copy: the OpenVINO runtime can use it in place
        written = len(weights)
    else:
        xml, bin_ = emit_ir(graph, opts.output_dir, name, rt_info, progress=progress, total=total,
                            permuted=opts.permuted_tensors)
        written = os.path.getsize(bin_)
        # files the loader says belong with the IR (a transformers model's configuration, tokenizer);
        # when one cannot be written the IR goes too (a failed conversion leaves no IR behind)
        try:
            for companion in graph.graph.get("companions", ()):
                companion.write(opts.output_dir)
        except ConversionError:
            for path in (xml, bin_):
                if os.path.exists(path):
                    os.unlink(path)
            raise
    step("emit", "IR writer", t)
    progress.finish()
    summary = None
    if summary_wanted:
        from mo.pipeline.summary import summarize
        changed = [(n, added, removed) for phase, n, _, added, removed in report
                   if phase in ("middle", "back") and (added or removed)]
        summary = summarize(graph, changed, written)
        for line in summary.lines():
            log.info(line)
        opts.compression_summary = summary.compression_line()
    if opts.report:
        print(format_report(report, time.perf_counter() - started))
        if summary is not None and summary.quantization_line():
            print(summary.quantization_line())
    opts.framework = framework
    if opts.output_dir is None:
        from mo.pipeline.save_compressed import CompressOnSave
        from mo.pipeline.summary import io_info
        inputs, outputs = io_info(graph)
        model = IRModel(name, xml, weights, inputs, outputs, summary, graph.graph.get("companions", ()))
        if keep and CompressOnSave.worthwhile(placed):
            model.compress_on_save = "compress_to_fp16" not in opts.given
            model.compressor = CompressOnSave(graph, rt_info, weights, placed, lambda g: run_phase(
                g, "back", framework, registry, only=lambda t: t.on_save))
        return model
    return IRPaths(xml, bin_)


def peak_memory_mib() -> float:
    """Peak resident memory of this process so far."""
    import resource
    import sys
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def format_report(report: list, total_s: float) -> str:
    """The --report table: time and ops added/removed per pass, then totals."""
    lines = [f"{'phase':8s} {'pass':40s} {'ms':>9s} {'+ops':>6s} {'-ops':>6s}"]
    for phase, name, ms, added, removed in report:
        if added == 0 and removed == 0 and ms < 0.05:
            continue
        plus = "" if added is None else str(added)
        minus = "" if removed is None else str(removed)
        lines.append(f"{phase:8s} {name[:40]:40s} {ms:9.1f} {plus:>6s} {minus:>6s}")
    lines.append(f"total conversion time {total_s:.2f} s, peak memory {peak_memory_mib():.0f} MiB")
    return "\n".join(lines)
