"""A transformers checkpoint folder (``config.json`` + ``model.safetensors``, or sharded
``model-0000N-of-0000M.safetensors`` listed by ``model.safetensors.index.json``) as a PyTorch
model to capture, with its weights read from the memory-mapped files only when written.

* The model is built from ``config.json`` by the transformers class its ``architectures`` names
  (or AutoModelForCausalLM / AutoModel for its ``model_type``), never by code from the folder:
  a config with ``auto_map`` (a model that needs ``trust_remote_code``) is refused.
* It is built with its parameters on the meta device (no memory, no initialisation of values)
  and computing in float32; its buffers are made by the model's own ``__init__`` on the CPU
  (rotary ``inv_freq``), and persistent buffers the files hold are bound from them.
* ``capture`` (the same entry point as for a torch.nn.Module object) exports it: torch.export
  traces with fake tensors, so no weight is read and nothing runs on real values.
* The parameters become Consts when the exported program is decoded (``StoredWeights.port``):
  each is a read-only numpy view of its safetensors file, in the type it is stored in. f32
  weights are f32 Consts (compressed to f16 lazily by --compress_to_fp16); bf16 and f16 weights
  stay 16-bit, raw, followed by a Convert to f32 marked ``decompression`` (the runtime decompresses
  them, as OpenVINO's own converter does for 16-bit models). The IR writer streams every view to
  the .bin chunk by chunk and releases its pages, so the peak memory is a fraction of the weights.

Every fault of the folder (a missing or damaged shard, a header beyond its file, an unknown dtype,
a tensor missing, unexpected or of the wrong shape, an index naming a file outside the folder) is
one InputModelError naming the file.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import re
from typing import Any

import numpy as np

from extensions.load.pytorch.safetensors_file import SafetensorsFile
from extensions.load.pytorch.weight_conversions import DerivedTensor, derived_tensors, join
from mo.errors import InputModelError

log = logging.getLogger("mo")

CONFIG = "config.json"
SINGLE = "model.safetensors"
INDEX = "model.safetensors.index.json"
# tokens of the example input a decoder is captured with (batch and sequence stay dynamic)
EXAMPLE_SHAPE = (2, 8)


def is_checkpoint_folder(path: Any) -> bool:
    """Whether ``path`` is a folder with a transformers ``config.json`` (and not a TensorFlow
    SavedModel that happens to have one)."""
    return isinstance(path, str) and os.path.isdir(path) and os.path.isfile(os.path.join(path, CONFIG)) and \
        not os.path.exists(os.path.join(path, "saved_model.pb"))


def _read_json(path: str, what: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except OSError as e:
        raise InputModelError(f"Cannot read {what} '{path}': {e.strerror or e}.") from e
    except (UnicodeDecodeError, ValueError) as e:
        raise InputModelError(f"{what.capitalize()} '{path}' is not valid JSON ({e}).") from e
    if not isinstance(value, dict):
        raise InputModelError(f"{what.capitalize()} '{path}' is not a JSON object.")
    return value


def _inside(folder: str, name: Any, index_path: str) -> str:
    """The path of shard ``name`` listed by the index, which must be a relative path that stays
    inside the folder (the file itself may be a link elsewhere, as in the Hugging Face cache)."""
    relative = os.path.normpath(name) if isinstance(name, str) and name else ""
    if not relative or os.path.isabs(relative) or relative.split(os.sep)[0] in ("..", "."):
        raise InputModelError(f"'{index_path}' lists the weights file {name!r}, which is not a file name inside the "
                              f"checkpoint folder: it is not read.")
    return os.path.join(folder, relative)


class StoredWeights:
    """The tensors of a checkpoint's safetensors files by name, opened and checked against
    their headers; each value is a view of its mapped file."""

    def __init__(self, folder: str):
        self.folder = folder
        self.files: dict[str, SafetensorsFile] = {}
        self.where: dict[str, SafetensorsFile] = {}   # tensor name -> its file
        self.aliases: dict[str, tuple[str, ...]] = {}  # model tensor name -> its stored names (``bind``)
        self.derived: dict[str, DerivedTensor] = {}     # tensors transformers renames or joins (``bind``)
        index_path = os.path.join(folder, INDEX)
        single = os.path.join(folder, SINGLE)
        if os.path.isfile(index_path):
            weight_map = _read_json(index_path, "the safetensors index").get("weight_map")
            if not isinstance(weight_map, dict) or not weight_map:
                raise InputModelError(f"'{index_path}' has no \"weight_map\" of tensor names to files.")
            for name, file_name in weight_map.items():
                path = _inside(folder, file_name, index_path)
                if path not in self.files:
                    if not os.path.isfile(path):
                        raise InputModelError(f"The weights file '{path}' listed by '{index_path}' is missing.")
                    self.files[path] = SafetensorsFile(path)
                shard = self.files[path]
                if name not in shard.tensors:
                    raise InputModelError(f"'{index_path}' puts tensor '{name}' in '{path}', which does not hold it.")
                self.where[name] = shard
        elif os.path.isfile(single):
            shard = self.files[single] = SafetensorsFile(single)
            self.where = dict.fromkeys(shard.tensors, shard)
        else:
            pickled = [n for n in ("pytorch_model.bin", "pytorch_model.bin.index.json") if
                       os.path.exists(os.path.join(folder, n))]
            extra = (f" It has {pickled[0]}: pickled weights are not read (loading a pickle can run code); save "
                     f"them as safetensors with model.save_pretrained(folder).") if pickled else ""
            raise InputModelError(f"The checkpoint folder '{folder}' has neither {SINGLE} nor {INDEX}.{extra}")

    def __contains__(self, name: str) -> bool:
        return name in self.where or name in self.derived

    def info(self, name: str):
        """The stored tensor's (or the derived one's) ``element_type`` and ``shape``."""
        return self.derived[name] if name in self.derived else self.where[name].tensors[name]

    def path_of(self, name: str) -> str:
        return self.where[self.derived[name].parts[0][0] if name in self.derived else name].path

    def array(self, name: str) -> tuple[np.ndarray, str]:
        """(view of the stored values, element type): raw bit patterns for bf16; a tensor joined
        from stored pieces is made (a new array) when read."""
        if name in self.derived:
            return join(self.derived[name], lambda n: self.where[n].array(n)), self.derived[name].element_type
        return self.where[name].array(name), self.info(name).element_type

    def bytes(self) -> int:
        return sum(i.end - i.begin for f in self.files.values() for i in f.tensors.values())

    def port(self, builder, tensor, name: str):
        """The Const of parameter ``name`` (a meta tensor of the traced type) from the files: in
        its stored type, 16-bit floats decompressed to the f32 the model computes in."""
        from extensions.load.pytorch.types import element_type_of_dtype
        from mo.utils.types import is_float
        stored = self.resolve(name)
        value, et = self.array(stored)
        traced = element_type_of_dtype(tensor.dtype)
        if et in ("f8e4m3", "f8e5m2") or is_float(et) != is_float(traced):
            raise InputModelError(f"Tensor '{stored}' in '{self.path_of(stored)}' is stored as {et}, the model "
                                  f"computes it as {traced}: quantized or float8 checkpoints (GPTQ, AWQ, FP8) are "
                                  f"not converted from a folder.")
        return builder.stored_const(value, et, name, traced)

    def resolve(self, name: str) -> str:
        """The stored name of a model tensor (``self.aliases``: names sharing one tensor), also
        when a capture wrapper put the model under a prefix of its own (``model.lm_head.weight``
        for ``lm_head.weight``)."""
        parts = name.split(".")
        for start in range(len(parts)):
            suffix = ".".join(parts[start:])
            for candidate in self.aliases.get(suffix, (suffix,) if start == 0 else ()):
                if candidate in self:
                    return candidate
        raise InputModelError(f"The checkpoint folder '{self.folder}' has no tensor '{name}'.")


@contextlib.contextmanager
def parameters_on_meta():
    """While building a model, every parameter registered is moved to the meta device (its
    values are never computed or held); buffers stay where the model's code makes them."""
    import torch
    register = torch.nn.Module.register_parameter

    def on_meta(module, name, param):
        if param is not None and param.device.type != "meta":
            param = torch.nn.Parameter(param.to("meta"), requires_grad=param.requires_grad)
        register(module, name, param)
    torch.nn.Module.register_parameter = on_meta
    try:
        yield
    finally:
        torch.nn.Module.register_parameter = register


def model_class(config, config_path: str):
    """The transformers class that builds the model: the one ``architectures`` names, else the
    causal-LM (then the base) auto class of its ``model_type``."""
    import transformers
    for name in getattr(config, "architectures", None) or ():
        cls = getattr(transformers, name, None) if isinstance(name, str) else None
        if isinstance(cls, type) and issubclass(cls, transformers.PreTrainedModel):
            return cls
    for auto in (transformers.AutoModelForCausalLM, transformers.AutoModel):
        try:
            return auto._model_mapping[type(config)]
        except KeyError:
            continue
    raise InputModelError(f"'{config_path}' describes a {config.model_type!r} model whose architecture "
                          f"{getattr(config, 'architectures', None)} transformers does not have.")


def build_model(folder: str):
    """The model of ``config.json`` in float32, parameters on the meta device."""
    import torch
    import transformers
    path = os.path.join(folder, CONFIG)
    raw = _read_json(path, "the model configuration")
    if raw.get("auto_map") or raw.get("trust_remote_code"):
        raise InputModelError(f"'{path}' asks for code from the checkpoint (auto_map: a model that needs "
                              f"trust_remote_code): mo never runs code from a model folder. Convert the model "
                              f"object from Python instead (convert_model(model, example_input=...)).")
    quantization = raw.get("quantization_config")
    if quantization:
        method = quantization.get("quant_method") if isinstance(quantization, dict) else None
        raise InputModelError(f"'{path}' describes a quantized checkpoint ({method or 'quantization_config'}): its "
                              f"weights are not plain tensors of the model, and quantized checkpoints are not "
                              f"converted from a folder. Convert the unquantized checkpoint (mo compresses weights "
                              f"itself).")
    if not isinstance(raw.get("model_type"), str):
        raise InputModelError(f"'{path}' has no \"model_type\": it is not a transformers model configuration.")
    try:
        config = transformers.AutoConfig.for_model(**raw)
    except (ValueError, KeyError, TypeError) as e:
        raise InputModelError(f"transformers {transformers.__version__} cannot read '{path}': {e}") from e
    cls = model_class(config, path)
    with parameters_on_meta(), warnings_silenced():
        model = cls._from_config(config, dtype=torch.float32)
    return model.eval()


@contextlib.contextmanager
def warnings_silenced():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def bind(model, weights: StoredWeights) -> None:
    """Check the files hold every parameter and persistent buffer (shapes included) and nothing
    else the model cannot take; bind the buffers they hold. Parameters stay meta tensors,
    resolved by name when decoded (``StoredWeights.port``)."""
    import torch
    weights.derived = derived_tensors(model, {n: weights.info(n) for n in weights.where})
    prefix = getattr(model, "base_model_prefix", "") or ""
    groups: dict[int, list[str]] = {}
    tensors: dict[int, Any] = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        groups.setdefault(id(p), []).append(name)
        tensors[id(p)] = p
    persistent = {n for n, _ in model.state_dict(keep_vars=True).items()}
    buffers = {n: b for n, b in model.named_buffers() if n in persistent}
    for name, b in buffers.items():
        groups.setdefault(id(b), []).append(name)
        tensors[id(b)] = b

    def stored_names(name: str) -> list[str]:
        other = name[len(prefix) + 1:] if prefix and name.startswith(prefix + ".") else f"{prefix}.{name}"
        return [name, other] if prefix else [name]

    aliases, used, missing = {}, set(), []
    for key, names in groups.items():
        candidates = tuple(c for n in names for c in stored_names(n))
        found = next((c for c in candidates if c in weights), None)
        if found is None:
            missing.append(names[0])
            continue
        info = weights.info(found)
        if getattr(info, "unsupported", ""):
            raise InputModelError(f"transformers makes tensor '{found}' from {info.parts[0][0]} and others of "
                                  f"'{weights.folder}' with an operation mo does not apply to stored tensors "
                                  f"({info.unsupported}): convert the model object from Python instead.")
        if tuple(info.shape) != tuple(tensors[key].shape):
            raise InputModelError(f"Tensor '{found}' in '{weights.path_of(found)}' has shape {list(info.shape)}, "
                                  f"the model's config.json makes it {list(tensors[key].shape)}.")
        if found in weights.derived:
            used.update(n for group in info.parts for n in group)
        else:
            used.add(found)
        for n in names:
            aliases[n] = (found,)
    if missing:
        raise InputModelError(f"The checkpoint folder '{weights.folder}' lacks {len(missing)} tensor(s) of the model, "
                              f"e.g. {', '.join(sorted(missing)[:5])}: a shard is missing or the config does not "
                              f"match the weights.")
    ignored = [re.compile(p) for p in (getattr(model, "_keys_to_ignore_on_load_unexpected", None) or ())]
    known = set(aliases) | {n for n, _ in model.named_buffers()}
    unexpected = sorted(n for n in weights.where if n not in used and n not in known
                        and not any(p.search(n) for p in ignored))
    if unexpected:
        first = unexpected[0]
        raise InputModelError(f"'{weights.where[first].path}' holds {len(unexpected)} tensor(s) the model of "
                              f"config.json does not have, e.g. {', '.join(unexpected[:5])}: the config does not "
                              f"match the weights.")
    weights.aliases = aliases
    stored_buffers = {}
    for name, b in buffers.items():
        value, et = weights.array(aliases[name][0])
        if et == "bf16":
            stored_buffers[name] = torch.from_numpy(value.copy()).view(torch.bfloat16).to(b.dtype)
        else:
            stored_buffers[name] = torch.from_numpy(value.copy()).to(b.dtype)
    if stored_buffers:
        model.load_state_dict(stored_buffers, strict=False, assign=True)


def example_input(model, specs: list = ()) -> dict:
    """``input_ids`` (and ``attention_mask`` when forward takes it) of a few tokens, or of the
    static sizes --input gives them."""
    import inspect

    import torch
    names = ["input_ids"] + (["attention_mask"] if "attention_mask" in inspect.signature(model.forward).parameters
                             else [])
    example = {}
    for name in names:
        spec = _spec_of(name, names, specs)
        shape = EXAMPLE_SHAPE
        if spec is not None and spec.shape is not None and len(spec.shape) == len(EXAMPLE_SHAPE):
            shape = tuple(d if d >= 0 else default for d, default in zip(spec.shape, EXAMPLE_SHAPE))
        example[name] = torch.ones(shape, dtype=torch.long)
    return example


def _spec_of(name: str, names: list[str], specs: list, own: bool = False):
    """The --input entry of input ``name``: by name, else by position among the unnamed ones;
    an attention mask without one has the shape of the input ids (unless ``own``)."""
    unnamed = [s for s in specs if s.name is None]
    named = {s.name: s for s in specs if s.name is not None}
    index = names.index(name)
    spec = named.get(name) or (unnamed[index] if index < len(unnamed) else None)
    if spec is None and not own and name != names[0]:
        return _spec_of(names[0], names, specs, own=True)
    return spec


def capture_specs(example: dict, specs: list) -> list:
    """--input's entries, and for the example inputs it leaves out the shape of the input ids'
    entry, or a dynamic batch and sequence."""
    from dataclasses import replace

    from mo.cli.input_spec import InputSpec
    names = list(example)
    added = []
    for name, value in example.items():
        if _spec_of(name, names, specs, own=True) is not None:
            continue
        like = _spec_of(name, names, specs)
        added.append(replace(like, name=name, value=None) if like is not None and like.shape is not None else
                     InputSpec(name, tuple(-1 for _ in value.shape)))
    return list(specs) + added


def eager_model(folder: str):
    """The model with its weights bound (what --validate runs): a decoder with a cache as the
    module itself, other models as a callable of the IR's inputs by name (names forward does not
    take are left out; no cache): every parameter and persistent buffer
    is bound with ``load_state_dict(assign=True)``, f32 ones as zero-copy views of the files,
    16-bit ones widened to f32 (the model computes in f32, as the IR does)."""
    import inspect

    import torch

    from mo.utils.types import bf16_bits_to_f32
    weights = StoredWeights(folder)
    model = build_model(folder)
    bind(model, weights)
    state = {}
    for name, (stored,) in weights.aliases.items():
        value, et = weights.array(stored)
        value = bf16_bits_to_f32(value) if et == "bf16" else value.astype(np.float32, copy=False)
        with warnings_silenced():     # read-only views: the model only reads its weights
            state[name] = torch.from_numpy(value)
    model.load_state_dict(state, strict=False, assign=True)
    from extensions.load.pytorch.transformers_decoder import cache_argument
    if cache_argument(model) is not None:    # a decoder: run with its cache by --validate's decoder path
        return model
    takes = inspect.signature(model.forward).parameters
    without_cache = {"use_cache": False} if "use_cache" in takes else {}

    def run(**named):
        return model(**{k: v for k, v in named.items() if k in takes}, **without_cache)
    return run


def load_folder(folder: str, options):
    """(Captured, StoredWeights, the model built from config.json) of a checkpoint folder."""
    from extensions.load.pytorch.transformers_decoder import capture_model
    weights = StoredWeights(folder)
    model = build_model(folder)
    bind(model, weights)
    example, specs = options.example_input, options.inputs
    if example is None:
        example = example_input(model, specs)
        specs = capture_specs(example, specs)
    log.info("Checkpoint folder %s: %s, %d tensors in %d file(s), %.1f MiB", folder, type(model).__name__,
             len(weights.where), len(weights.files), weights.bytes() / 2 ** 20)
    captured = capture_model(model, example, specs)
    if captured.kind != "exported":
        raise InputModelError(f"torch.export could not capture {type(model).__name__} of '{folder}' (the model's "
                              f"weights are not loaded to trace it eagerly); run mo with --log_level INFO to see "
                              f"why.")
    return captured._replace(name=os.path.basename(os.path.normpath(folder)) or captured.name), weights, model
