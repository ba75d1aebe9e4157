"""Tensors a transformers checkpoint stores other than the model holds them: renamed, or split in
pieces that loading joins (the experts of a mixture-of-experts layer, stored one module per
expert, ``experts.3.w1.weight``, and held as one [experts, ...] tensor, ``experts.gate_up_proj``).

transformers lists these per model (its "conversion mapping": renamings, and converters made of
operations); loading applies them to the tensors. Here the same list, read from transformers, is
applied to the stored names only: a renamed tensor is its stored one, a joined tensor is made from
its stored pieces (stacked and concatenated as transformers does) when its value is first read.
Converters with other operations (split, transpose, permute...) are reported by name when the model
needs their tensor."""
from __future__ import annotations

import logging
import re
from typing import NamedTuple

import numpy as np

log = logging.getLogger("mo")

# transformers' operations joined here: stack a list of tensors, concatenate tensors
STACK, CONCAT = "MergeModulelist", "Concatenate"


class DerivedTensor(NamedTuple):
    """A model tensor made from stored ones: ``parts`` per source pattern (in order), joined by
    ``steps`` ((operation, dim) pairs: each pattern's list stacked, then the patterns concatenated);
    ``element_type`` and ``shape`` of the result."""

    parts: tuple[tuple[str, ...], ...]
    steps: tuple[tuple[str, int], ...]
    element_type: str
    shape: tuple[int, ...]
    unsupported: str = ""     # the operation transformers applies that is not joined here


def _natural(name: str) -> list:
    """Sort key that puts experts.2 before experts.10."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def conversion_transforms(model) -> list:
    """transformers' renamings and converters of ``model`` (empty for versions without them)."""
    try:
        from transformers.conversion_mapping import get_model_conversion_mapping
    except ImportError:
        return []
    return list(get_model_conversion_mapping(model) or [])


def derived_tensors(model, stored: dict) -> dict[str, DerivedTensor]:
    """Model tensor name -> how it is made from the ``stored`` tensors (name -> info with
    ``element_type`` and ``shape``), for the stored names transformers renames or joins."""
    transforms = conversion_transforms(model)
    if not transforms:
        return {}
    renamings = [t for t in transforms if not hasattr(t, "operations")]
    converters = [t for t in transforms if hasattr(t, "operations")]
    renamed: dict[str, str] = {}
    joined: dict[str, tuple[object, dict[str, list[str]]]] = {}
    for name in stored:
        key = name
        for renaming in renamings:
            key, _ = renaming.rename_source_key(key)
        for converter in converters:
            target, pattern = converter.rename_source_key(key)
            if pattern is not None:
                joined.setdefault(target, (converter, {}))[1].setdefault(pattern, []).append(name)
                break
        else:
            if key != name:
                renamed[key] = name
    derived = {key: DerivedTensor(((name,),), (), stored[name].element_type, tuple(stored[name].shape))
               for key, name in renamed.items() if key not in stored}
    for target, (converter, by_pattern) in joined.items():
        derived[target] = _joined(converter, by_pattern, stored)
    if derived:
        log.info("Checkpoint tensors renamed or joined as transformers loads them: %d", len(derived))
    return derived


def _joined(converter, by_pattern: dict[str, list[str]], stored: dict) -> DerivedTensor:
    parts = tuple(tuple(sorted(by_pattern[p], key=_natural)) for p in converter.source_patterns if p in by_pattern)
    steps, unsupported = [], ""
    for op in converter.operations:
        kind = type(op).__name__
        if kind not in (STACK, CONCAT) or (kind == STACK) == bool(steps):
            unsupported = kind
            break
        steps.append((kind, int(op.dim)))
    types = {stored[n].element_type for group in parts for n in group}
    shape: tuple[int, ...] = ()
    if not unsupported:
        try:
            if len(types) != 1:
                raise ValueError(f"pieces of different types {sorted(types)}")
            shape = _joined_shape(parts, steps, stored)
        except ValueError as e:
            unsupported = str(e)
    return DerivedTensor(parts, tuple(steps), sorted(types)[0], shape, unsupported)


def _joined_shape(parts, steps, stored) -> tuple[int, ...]:
    """Each group stacked along the first step's dim, the groups concatenated along the second's."""
    stack_dim = steps[0][1]
    shapes = []
    for group in parts:
        sizes = {tuple(stored[n].shape) for n in group}
        if len(sizes) != 1:
            raise ValueError(f"pieces of different shapes {sorted(sizes)}")
        one = list(sizes.pop())
        if not 0 <= stack_dim <= len(one):
            raise ValueError(f"a stack along dimension {stack_dim} of {len(one)}-D pieces")
        shapes.append(one[:stack_dim] + [len(group)] + one[stack_dim:])
    if len(steps) == 1:
        if len(shapes) != 1:
            raise ValueError("several lists stacked without a concatenation")
        return tuple(shapes[0])
    dim = steps[1][1]
    if not 0 <= dim < len(shapes[0]) or len({tuple(s[:dim] + s[dim + 1:]) for s in shapes}) != 1:
        raise ValueError(f"pieces that do not concatenate along dimension {dim}")
    return tuple(shapes[0][:dim] + [sum(s[dim] for s in shapes)] + shapes[0][dim + 1:])


def join(derived: DerivedTensor, array) -> np.ndarray:
    """The value of ``derived``, ``array(name)`` giving each stored piece (a view of its file):
    each piece copied once into a new array, in the place stacking and concatenating put it."""
    if not derived.steps:
        return array(derived.parts[0][0])
    pieces = [[array(name) for name in group] for group in derived.parts]
    out = np.empty(derived.shape, pieces[0][0].dtype)
    stack_dim = derived.steps[0][1]
    concat_dim = derived.steps[1][1] if len(derived.steps) > 1 else None
    start = 0
    for group in pieces:
        stacked_size = len(group) if concat_dim == stack_dim else 0
        if concat_dim is not None and concat_dim != stack_dim:
            stacked_size = group[0].shape[concat_dim - 1 if concat_dim > stack_dim else concat_dim]
        for index, piece in enumerate(group):
            where: list = [slice(None)] * out.ndim
            where[stack_dim] = index
            if concat_dim == stack_dim:
                where[stack_dim] = start + index
            elif concat_dim is not None:
                where[concat_dim] = slice(start, start + stacked_size)
            out[tuple(where)] = piece
        start += stacked_size
    return out
