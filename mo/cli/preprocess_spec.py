"""Parsing of the preprocessing and layout options.

``--mean_values "data[123.7,116.3,103.5],mask[0]"`` or ``"[123.7,116.3,103.5]"`` (every input);
``--scale_values`` alike; ``--layout "data(nhwc->nchw)"``, ``--source_layout "nhwc"``,
``--target_layout "data(nchw)"``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from mo.errors import OptionError

ALL_INPUTS = ""


def parse_values(text, option: str) -> dict[str, list[float]]:
    """Per-input value lists; the key "" applies to every input."""
    if text is None:
        return {}
    if isinstance(text, dict):
        return {k: [float(v) for v in (vals if isinstance(vals, (list, tuple)) else [vals])]
                for k, vals in text.items()}
    if isinstance(text, (list, tuple)):
        return {ALL_INPUTS: [float(v) for v in text]}
    text = str(text).strip()
    items = re.findall(r"([^\[\],]*?)\s*[\[(]([^\])]*)[\])]", text)
    if not items or re.sub(r"([^\[\],]*?)\s*[\[(]([^\])]*)[\])]", "", text).strip(" ,"):
        raise OptionError(f"Malformed {option} '{text}': expected name[v1,v2,...] or [v1,v2,...].")
    result = {}
    for name, values in items:
        try:
            parsed = [float(v) for v in re.split(r"[,\s]+", values.strip()) if v]
        except ValueError:
            raise OptionError(f"Malformed number in {option} '{text}'.") from None
        if not parsed:
            raise OptionError(f"{option} '{text}' gives no values for '{name or 'all inputs'}'.")
        result[name.strip()] = parsed
    return result


@dataclass
class LayoutSpec:
    source: str | None = None
    target: str | None = None


def _check_layout(layout: str, option: str) -> str:
    layout = layout.strip().upper().replace("[", "").replace("]", "").replace(",", "")
    if not re.fullmatch(r"[A-Z?.]*", layout) or len(set(c for c in layout if c not in "?.")) != \
            len([c for c in layout if c not in "?."]):
        raise OptionError(f"Malformed layout '{layout}' in {option}: use letters such as NCHW, each once.")
    return layout


def parse_layouts(layout=None, source_layout=None, target_layout=None) -> dict[str, LayoutSpec]:
    """Per-input LayoutSpecs from the three layout options ("" = every input)."""
    result: dict[str, LayoutSpec] = {}

    def items(text, option):
        if text is None:
            return []
        if isinstance(text, dict):
            return list(text.items())
        text = str(text).strip()
        found = re.findall(r"([^(),]*)\(([^)]*)\)", text)
        if not found:
            return [(ALL_INPUTS, text)]
        return [(n.strip(), v) for n, v in found]

    for name, value in items(layout, "--layout"):
        src, arrow, dst = str(value).partition("->")
        spec = result.setdefault(name, LayoutSpec())
        spec.source = _check_layout(src, "--layout") if src.strip() else None
        if arrow:
            spec.target = _check_layout(dst, "--layout")
    for name, value in items(source_layout, "--source_layout"):
        result.setdefault(name, LayoutSpec()).source = _check_layout(value, "--source_layout")
    for name, value in items(target_layout, "--target_layout"):
        result.setdefault(name, LayoutSpec()).target = _check_layout(value, "--target_layout")
    for name, spec in result.items():
        if spec.target and not spec.source:
            raise OptionError(f"A target layout for '{name or 'the inputs'}' needs the source layout too: "
                              f"--layout \"{name}(nhwc->nchw)\".")
        if spec.target and sorted(spec.source) != sorted(spec.target):
            raise OptionError(f"Layouts '{spec.source}' and '{spec.target}' of '{name or 'the inputs'}' do not "
                              f"have the same dimensions.")
    return result
