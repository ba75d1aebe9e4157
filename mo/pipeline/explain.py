"""``mo --explain KEY``: where the registry handles a framework op or an op, with file and line.

KEY is a framework op (``onnx:Resize``, ``tf:FusedBatchNormV3``, ``pytorch:aten::layer_norm``) or
an op of the graph (``Interpolate``). The answer comes from the registry the conversion would
build (with the --extensions folders given), so user extensions show where they take over.
"""
from __future__ import annotations

import inspect
import os

from mo.errors import OptionError
from mo.front.translator import COMPLEX_KEY
from mo.registry import Registry
from mo.utils.origin import source_of

FRAMEWORKS = ("onnx", "tf", "pytorch")


def _where(obj) -> str:
    """file:line of ``obj``, relative to the current folder when it lies inside it."""
    where = source_of(obj)
    cwd = os.getcwd() + os.sep
    return where[len(cwd):] if where.startswith(cwd) else where


def _rewrites(registry: Registry, framework: str | None, names: set[str]) -> list[str]:
    lines = []
    for phase in ("front", "middle", "back"):
        for t in registry.transforms(phase, framework):
            hit = sorted(t.matched_ops() & names)
            if hit:
                lines.append(f"  rewrite     {phase:6s} {t.name()} ({_where(type(t))}) matches {', '.join(hit)}")
    return lines


def explain(key: str, registry: Registry) -> str:
    """The report ``mo --explain key`` prints."""
    framework, sep, op_type = key.partition(":")
    if sep and framework in FRAMEWORKS and op_type:
        extractor = registry.extractor(framework, op_type)
        translator = registry.translator(framework, op_type)
        if extractor is None and translator is None:
            raise OptionError(f"No extractor or translator is registered for {framework} op type '{op_type}'; "
                              f"it is not supported (add one with --extensions).")
        lines = [f"{framework} {op_type}"]
        if extractor is not None:
            lines.append(f"  extractor   {extractor.__name__} ({_where(extractor)})")
        rewrites = _rewrites(registry, framework, {f"{framework}:{op_type}"})
        if translator is not None:
            lines.append(f"  translator  {inspect.unwrap(translator).__name__} ({_where(translator)})")
        else:
            ops = [op for op in extractor.becomes(op_type) if op in registry.ops]
            lines += [f"  becomes     {op} ({_where(registry.ops[op])})" for op in ops]
            if ops:
                lines.append(f"  translator  none: the extractor makes the node {' or '.join(ops)}")
            elif rewrites:
                lines.append("  translator  none: the node stays a framework op that the rewrite below replaces")
            else:
                lines.append(f"  translator  none: {extractor.__name__}.extract sets the op the node becomes")
        complex_fn = registry.translator(framework + COMPLEX_KEY, op_type)
        if complex_fn is not None:
            lines.append(f"  complex     {inspect.unwrap(complex_fn).__name__} ({_where(complex_fn)}), when an input "
                         f"is complex")
        return "\n".join(lines + rewrites)
    if key in registry.ops:
        cls = registry.ops[key]
        kind = f"IR type {cls.type}, {cls.version}" if cls.type else "internal op (replaced before the IR is written)"
        lines = [f"op {key}: {kind}", f"  class       {cls.__name__} ({_where(cls)})"]
        lines += _rewrites(registry, None, {key})
        return "\n".join(lines)
    raise OptionError(f"'{key}' is neither a framework op (onnx:Type, tf:Type, pytorch:aten::name) nor an op "
                      f"of the registry.")


def list_ops(registry: Registry, framework: str | None = None, markdown: bool = False) -> str:
    """``mo --list_ops``: the op names a pattern or a ReplaceOp can match (``node.op``), with
    the IR type and version each is written as (or "internal": replaced before the IR is
    written), and the framework op names of the front phase (``onnx:Resize``), which
    translators turn into ops."""
    rows = []
    for name, cls in sorted(registry.ops.items()):
        ir = f"{cls.type}-{cls.version.removeprefix('opset')}" if cls.type else "internal"
        rows.append((name, ir, cls.__module__))
    lines = []
    if markdown:
        lines += ["| op (`node.op`) | IR type-opset | defined in |", "|---|---|---|"]
        lines += [f"| `{n}` | {ir} | `{m}` |" for n, ir, m in rows]
    else:
        width = max(len(n) for n, _, _ in rows)
        lines += [f"{'op':{width}s}  {'IR':22s}  defined in"]
        lines += [f"{n:{width}s}  {ir:22s}  {m}" for n, ir, m in rows]
    for fw in [framework] if framework else FRAMEWORKS:
        keys = registry.framework_op_types(fw)
        if not keys:
            continue
        title = f"{fw} operations (front phase, before translation: node.op is '{fw}:<type>' for translated ones)"
        lines += ["", f"## {title}" if markdown else title, ""]
        lines.append(", ".join(f"`{k}`" if markdown else k for k in keys))
    return "\n".join(lines)


def handled_by(registry: Registry, framework: str, op_type: str) -> tuple[str, str]:
    """The extractor and the translator of a framework op type as ``--explain`` names them
    ('Name (file:line)'), or 'none'."""
    extractor = registry.extractor(framework, op_type)
    translator = registry.translator(framework, op_type)
    return (f"{extractor.__name__} ({_where(extractor)})" if extractor is not None else "none",
            f"{inspect.unwrap(translator).__name__} ({_where(translator)})" if translator is not None else "none")
