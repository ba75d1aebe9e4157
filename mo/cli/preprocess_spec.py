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


ELLIPSIS = "..."
# one "name(layout)" entry of a layout option
NAMED_LAYOUT = r"([^(),]*)\(([^)]*)\)"


def _check_layout(layout: str, option: str) -> str:
    """A layout in upper-case short form: letters (each once), ``?`` for an unnamed dimension, and
    at most one ``...`` standing for any number of dimensions ("NCHW", "N...", "NC?", "...C")."""
    layout = layout.strip().upper().replace("[", "").replace("]", "").replace(",", "")
    named = layout.replace(ELLIPSIS, "", 1)
    letters = [c for c in named if c != "?"]
    if not re.fullmatch(r"[A-Z?]*", named) or len(set(letters)) != len(letters):
        raise OptionError(f"Malformed layout '{layout}' in {option}: use letters such as NCHW, each once, ? for an "
                          f"unnamed dimension and at most one ... for any number of dimensions.")
    return layout


def layout_tokens(layout: str) -> list[str]:
    """The dimensions of a layout: its letters and ``?``, with ``...`` as one entry."""
    head, sep, tail = layout.partition(ELLIPSIS)
    return list(head) + ([ELLIPSIS] if sep else []) + list(tail)


def expand_layout(layout: str, rank: int | None) -> str | None:
    """The layout with one letter or ``?`` per dimension of a tensor of ``rank`` (``...`` becomes
    as many ``?`` as needed); None when that cannot be known. A layout that cannot fit ``rank`` is
    an OptionError."""
    fixed = len(layout.replace(ELLIPSIS, "", 1))
    if ELLIPSIS not in layout:
        if rank is not None and fixed != rank:
            raise OptionError(f"Layout '{layout}' has {fixed} dimensions but the input has rank {rank}.")
        return layout
    if rank is None:
        return None
    if fixed > rank:
        raise OptionError(f"Layout '{layout}' names {fixed} dimensions but the input has rank {rank}.")
    return layout.replace(ELLIPSIS, "?" * (rank - fixed), 1)


def parse_layouts(layout=None, source_layout=None, target_layout=None) -> dict[str, LayoutSpec]:
    """Per-input LayoutSpecs from the three layout options ("" = every input)."""
    result: dict[str, LayoutSpec] = {}

    def items(text, option):
        if text is None:
            return []
        if isinstance(text, dict):
            return list(text.items())
        text = str(text).strip()
        found = re.findall(NAMED_LAYOUT, text)
        if not found:
            return [(ALL_INPUTS, text)]
        rest = re.sub(NAMED_LAYOUT, "", text).strip(" ,")
        if rest:
            raise OptionError(f"Malformed {option} '{text}': '{rest}' is not part of a name(layout) entry; give "
                              f"comma-separated entries such as \"data(nhwc->nchw),mask(nc)\" or one layout for "
                              f"every input.")
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
