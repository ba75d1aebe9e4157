"""Getting a PyTorch model into a form with a graph: a TorchScript module or an ExportedProgram.

* a file: TorchScript (``torch.jit.save``) or ExportedProgram (``torch.export.save``) archive;
* a ``torch.export.ExportedProgram`` or a ``torch.jit.ScriptModule`` object: used as it is;
* a transformers causal-LM decoder: captured with its key/value cache as flat inputs and outputs
  (``transformers_decoder.py``; example_input is optional);
* a ``torch.nn.Module``: captured with ``torch.export`` on ``example_input``, and traced with
  ``torch.jit.trace`` (on copies of the example: an in-place op on an input must not change it)
  when export fails. The inputs' shapes are the example's (static) unless ``--input`` gives
  dynamic dimensions (-1, ?, a..b, None or a ``torch.export.Dim`` in the Python list form):
  those are exported as dynamic (``Dim.AUTO``, or the Dim object given), from an example
  widened to size 2 where it has size 0 or 1 (torch.export makes such a dim static otherwise).

torch is imported only here and in the decoders, when a PyTorch model is converted.
"""
from __future__ import annotations

import contextlib
import inspect
import logging
import os
import sys
import warnings
import zipfile
import zlib
from typing import Any, NamedTuple

from extensions.load.pytorch.debug_info import debug_info_problem
from mo.errors import InputModelError, OptionError

log = logging.getLogger("mo")


class Captured(NamedTuple):
    """A model in a decodable form: ``kind`` is "torchscript", "exported" or "fx"; ``examples`` are
    (name, example tensor) pairs of the inputs a module was traced with."""

    kind: str
    model: Any
    examples: list
    name: str


def is_torch_model(obj: Any) -> bool:
    """Whether ``obj`` is a torch.nn.Module, ScriptModule or ExportedProgram (without importing
    torch when the caller has not)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    from extensions.load.pytorch.fx_module import FxModule
    return isinstance(obj, (torch.nn.Module, torch.jit.ScriptFunction, torch.export.ExportedProgram, FxModule))


def archive_kind(path: str) -> str | None:
    """'torchscript' or 'exported' from the names inside a zip archive, None if not a zip."""
    # (zipfile raises RuntimeError for an entry marked encrypted)
    errors = (zipfile.BadZipFile, zlib.error, OSError, UnicodeDecodeError, ValueError, EOFError, NotImplementedError,
              RuntimeError)
    try:
        if not zipfile.is_zipfile(path):
            return None
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            torchscript = any(n.endswith(("constants.pkl", "/code/__torch__.py")) or "/code/__torch__/" in n
                              for n in names)
            damaged = debug_info_problem(archive) if torchscript else None
    except errors as e:
        raise InputModelError(f"'{path}' is a damaged zip archive and cannot be read as a PyTorch model "
                              f"({e}).") from e
    if damaged:
        raise InputModelError(f"'{path}' is a damaged TorchScript archive: its debug information is invalid "
                              f"({damaged}). Save the model again with torch.jit.save.")
    if torchscript:
        return "torchscript"
    if any("serialized_exported_program" in n or n.endswith("archive_format") or "/models/" in n for n in names):
        return "exported"
    return None


@contextlib.contextmanager
def tensors_only_unpickling(path: str):
    """While loading an ExportedProgram archive, every pickle torch reads (weights, constants,
    sample inputs) is read with ``weights_only=True``: tensors and plain containers, never code.
    torch.export.load would otherwise retry a payload it cannot read that way with a full
    unpickler, which runs whatever the file asks for; here that payload is refused."""
    import torch
    real_load = torch.load

    def load(*args, **kwargs):
        kwargs["weights_only"] = True
        try:
            return real_load(*args, **kwargs)
        except Exception as e:
            raise InputModelError(
                f"'{path}' holds pickled Python objects that only an unsafe load could read (a payload "
                f"that is not tensor data, e.g. in its sample inputs or constants): it is not converted, "
                f"because loading it could run code from the file. Save the program again with tensor "
                f"inputs only, or convert the ExportedProgram object from Python. ({type(e).__name__})") from e
    torch.load = load
    try:
        yield
    finally:
        torch.load = real_load


def load_file(path: str, example_input: Any = None) -> Captured:
    """The model in a TorchScript or ExportedProgram archive; ``example_input`` gives the shapes
    and types of a TorchScript model's inputs."""
    import torch
    name = os.path.splitext(os.path.basename(path))[0] or "model"
    kind = archive_kind(path)
    if kind is None:
        raise InputModelError(
            f"'{path}' is not a TorchScript or ExportedProgram archive. Save the model with torch.jit.save "
            f"(a traced or scripted module) or torch.export.save; a whole module pickled with torch.save "
            f"cannot be converted from a file: pass the module object to convert_model instead.")
    try:
        if kind == "exported":
            with tensors_only_unpickling(path):
                return Captured("exported", torch.export.load(path), [], name)
        module = torch.jit.load(path, map_location="cpu")
    except InputModelError:
        raise
    except Exception as e:
        # Whatever torch raises while reading the archive (its C++ reader surfaces damaged
        # records as IndexError, RuntimeError, ...) is the file's fault, not a bug of ours.
        raise InputModelError(
            f"Cannot read the PyTorch model '{path}': torch {torch.__version__} could not load it "
            f"({str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__}). The file is damaged "
            f"or was written by an incompatible torch version; save it again with torch.jit.save "
            f"or torch.export.save.") from e
    args, kwargs = example_inputs(example_input)
    return Captured("torchscript", module, named_examples(module, args, kwargs), name)


def example_inputs(example_input: Any) -> tuple[tuple, dict]:
    """(positional, keyword) example inputs from a tensor, a tuple/list or a dict; numpy arrays
    (``--example_input file.npz``) become tensors."""
    if example_input is None:
        return (), {}
    import numpy as np
    import torch

    def tensor(value):
        return torch.from_numpy(np.ascontiguousarray(value)) if isinstance(value, np.ndarray) else value
    if isinstance(example_input, dict):
        return (), {k: tensor(v) for k, v in example_input.items()}
    if isinstance(example_input, (list, tuple)):
        return tuple(tensor(v) for v in example_input), {}
    return (tensor(example_input),), {}


def capture(model: Any, example_input: Any, input_specs: list) -> Captured:
    """The decodable form of a model object."""
    import torch
    name = type(model).__name__
    from extensions.load.pytorch.fx_module import FxModule
    if isinstance(model, FxModule):
        return Captured("fx", model, [], model.name)
    if isinstance(model, torch.export.ExportedProgram):
        return Captured("exported", model, [], "model")
    if isinstance(model, (torch.jit.ScriptModule, torch.jit.ScriptFunction)):
        args, kwargs = example_inputs(example_input)
        return Captured("torchscript", model, named_examples(model, args, kwargs), name.replace("Recursive", ""))
    if example_input is None:
        raise OptionError(f"Converting a {name} object needs example_input (a tensor, a tuple of tensors or a "
                          f"dict of keyword tensors) to capture its graph.")
    args, kwargs = example_inputs(example_input)
    model.eval()
    dims = _dynamic_dims(model, args, kwargs, input_specs)
    dynamic_shapes = _dynamic_shapes(model, args, kwargs, dims)
    # torch.export makes a dim of size 0 or 1 in the example static whatever it is asked: a
    # dim asked dynamic is exported from an example widened to 2 along it, then as given
    attempts = [_widened(model, args, kwargs, dims), (args, kwargs)] if dims else [(args, kwargs)]
    for export_args, export_kwargs in attempts:
        if export_args is None:
            continue
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                program = torch.export.export(model, export_args, export_kwargs, dynamic_shapes=dynamic_shapes)
            log.info("Captured %s with torch.export", name)
            return Captured("exported", program, [], name)
        except Exception as e:
            log.info("torch.export of %s failed (%s: %s)", name, type(e).__name__,
                     str(e).splitlines()[0] if str(e) else "")
    log.info("Capturing %s with torch.jit.trace", name)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # tracing runs the model: an in-place op on an input must not change the example,
            # whose shapes become the inputs' shapes
            copies, kw_copies = _copies(args), _copies(kwargs)
            if kwargs:
                traced = torch.jit.trace(model, example_kwarg_inputs=_as_kwargs(model, copies, kw_copies),
                                         strict=False, check_trace=False)
            else:
                traced = torch.jit.trace(model, copies, strict=False, check_trace=False)
    except Exception as e:
        raise InputModelError(f"Cannot capture the graph of {name}: torch.export and torch.jit.trace both "
                              f"failed; torch.jit.trace said: {type(e).__name__}: {e}") from e
    log.info("Captured %s with torch.jit.trace", name)
    return Captured("torchscript", traced, named_examples(model, args, kwargs), name)


def _copies(value):
    """Tensors (in tuples, lists and dicts) cloned, everything else as it is."""
    if isinstance(value, dict):
        return {k: _copies(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_copies(v) for v in value)
    return value.clone() if hasattr(value, "clone") and hasattr(value, "dtype") else value


def forward_parameters(model) -> list[str]:
    try:
        params = inspect.signature(model.forward).parameters
    except (TypeError, ValueError, AttributeError):   # a scripted module with overloaded forward
        return []
    return [p for p, v in params.items() if v.kind in (v.POSITIONAL_ONLY, v.POSITIONAL_OR_KEYWORD, v.KEYWORD_ONLY)]


def _as_kwargs(model, args: tuple, kwargs: dict) -> dict:
    names = forward_parameters(model)
    if len(args) > len(names):
        raise OptionError(f"example_input gives {len(args)} positional inputs but forward takes {len(names)}.")
    return {**dict(zip(names, args)), **kwargs}


def named_examples(model, args: tuple, kwargs: dict) -> list:
    names = forward_parameters(model)
    pairs = [(names[i] if i < len(names) else f"input_{i}", a) for i, a in enumerate(args)]
    return pairs + list(kwargs.items())


def _dynamic_dims(model, args: tuple, kwargs: dict, input_specs: list) -> dict[str, dict]:
    """{input name: {dim: torch.export.Dim or Dim.AUTO}} of the dims --input gives as dynamic
    (-1, ?, a..b, or a Dim object in the Python list form)."""
    if not any(spec.shape and any(d < 0 for d in spec.shape) for spec in input_specs):
        return {}
    from torch.export import Dim
    named = dict(named_examples(model, args, kwargs))
    order = list(named)
    dims: dict[str, dict] = {}
    for i, spec in enumerate(input_specs):
        key = spec.name if spec.name in named else (order[i] if spec.name is None and i < len(order) else None)
        if key is None or not spec.shape:
            continue
        objects = spec.extra.get("dims") or {}
        dims[key] = {d: objects.get(d, Dim.AUTO) for d, size in enumerate(spec.shape) if size < 0}
    return dims


def _widened(model, args: tuple, kwargs: dict, dims: dict[str, dict]):
    """The example inputs with each dim asked dynamic that has size 0 or 1 made 2 (the values
    repeated, zeros for an empty dim); None when no dim needs it."""
    import torch
    names = forward_parameters(model)[:len(args)]
    changed = False

    def widen(name, value):
        nonlocal changed
        if not isinstance(value, torch.Tensor):
            return value
        for d in dims.get(name, {}):
            if d < value.dim() and value.shape[d] in (0, 1):
                changed = True
                value = value.repeat_interleave(2, d) if value.shape[d] == 1 else \
                    torch.zeros(*value.shape[:d], 2, *value.shape[d + 1:], dtype=value.dtype)
        return value

    wide_args = tuple(widen(n, a) for n, a in zip(names + [None] * len(args), args))
    wide_kwargs = {k: widen(k, v) for k, v in kwargs.items()}
    return (wide_args, wide_kwargs) if changed else (None, None)


def _dynamic_shapes(model, args: tuple, kwargs: dict, dims: dict[str, dict]):
    """dynamic_shapes for torch.export from the dynamic dims of the inputs."""
    if not dims:
        return None
    positional = forward_parameters(model)[:len(args)]
    result_args = tuple(dims.get(n) for n in positional)
    result_kwargs = {k: dims.get(k) for k in kwargs}
    if kwargs and not args:
        return result_kwargs
    if not kwargs:
        return result_args
    return {**dict(zip(positional, result_args)), **result_kwargs}
