"""transformers causal-LM decoders converted with their key/value cache.

A ``PreTrainedModel`` that can generate (``*ForCausalLM``, ``GPT2LMHeadModel``...) with
``config.use_cache`` is captured through a wrapper whose inputs are ``input_ids``,
``attention_mask``, ``position_ids`` (when forward takes them) and the past keys and values as
flat tensors (a list of (key, value) pairs, one per layer, [batch, kv_heads, past, head_dim]),
and whose outputs are ``logits`` and the present keys and values (the past with the new tokens
appended). Inside, the pairs become the cache object transformers expects (``DynamicCache``).
Batch, new-token count, past length and attention-mask length are dynamic.

The IR's inputs and outputs are named as optimum-intel names them (``input_ids``,
``attention_mask``, ``position_ids``, ``past_key_values.N.key``/``.value`` ->
``present.N.key``/``.value``, ``logits``), and the back phase makes the cache stateful by
default (``MakeStateful`` with the pairs found by name and a ``beam_idx`` input; opt out with
``stateful=False``): applications written for optimum/OpenVINO GenAI IRs run it.

``export_decoder`` gives the wrapper's ExportedProgram: saved with ``torch.export.save`` it
converts from the command line the same way (its inputs ``past_key_values_N_0``/``_1`` are
recognised by name).
"""
from __future__ import annotations

import contextlib
import logging
import re
import sys
import warnings
from typing import Any

from extensions.load.pytorch.capture import Captured, capture, example_inputs, forward_parameters, named_examples
from mo.errors import InputModelError, OptionError

log = logging.getLogger("mo")

# forward's argument for the cache: "cache" in transformers 5, "past_key_values" before
CACHE_ARGUMENTS = ("cache", "past_key_values")
DECODER_INPUTS = ("input_ids", "attention_mask", "position_ids")
# placeholder names of the flat past in the exported wrapper: past_key_values_<layer>_<0 key, 1 value>
PLACEHOLDER = re.compile(r"past_key_values_(\d+)_([01])")
KIND = ("key", "value")
# the MakeStateful arguments of a decoder: past/present pairs by name, a beam_idx input
STATEFUL_ARGUMENTS = {"param_res_pattern": {"past_key_values.*": "present.*"},
                      "beam_idx": True}
# example sizes: all different (torch.export gives equal sizes one symbol) and above 1
BATCH, NEW_TOKENS, PAST = 3, 5, 7


def cache_argument(model: Any) -> str | None:
    """forward's cache argument when ``model`` is a transformers decoder that generates with a
    cache, else None."""
    transformers = sys.modules.get("transformers")
    if transformers is None or not isinstance(model, transformers.PreTrainedModel):
        return None
    config = model.config
    if getattr(config, "is_encoder_decoder", False) or not getattr(config, "use_cache", False):
        return None
    try:
        if not model.can_generate():
            return None
    except Exception:   # a model class whose generation check itself fails is not a decoder we know
        return None
    params = forward_parameters(model)
    return next((a for a in CACHE_ARGUMENTS if a in params), None)


def _cache_pairs(cache) -> list[tuple]:
    """(key, value) tensors of each layer of a transformers cache object."""
    if cache is None:
        pairs = []
    elif hasattr(cache, "layers"):
        pairs = [(getattr(layer, "keys", None), getattr(layer, "values", None)) for layer in cache.layers]
    elif hasattr(cache, "to_legacy_cache"):
        pairs = [tuple(p[:2]) for p in cache.to_legacy_cache()]
    else:
        pairs = [tuple(p[:2]) for p in cache]
    if not pairs or any(k is None or v is None or getattr(k, "dim", lambda: 0)() != 4 for k, v in pairs):
        kinds = sorted({type(layer).__name__ for layer in getattr(cache, "layers", [])})
        raise InputModelError(
            f"The cache of this decoder is not one [batch, heads, length, head_dim] key and value per layer "
            f"({type(cache).__name__}{': ' + ', '.join(kinds) if kinds else ''}): it cannot be converted with its "
            f"cache. Set model.config.use_cache = False to convert it without one.")
    return pairs


def _new_cache(pairs):
    """The cache object the model's forward expects, holding ``pairs``: one full layer per
    model layer, also for sliding-window layers (the IR's cache then grows like a full one, and
    the attention mask lets each token see only its window): a cropped one would lose the count
    of tokens seen, which places the window."""
    from transformers import DynamicCache
    cache = DynamicCache()
    for i, (key, value) in enumerate(pairs):
        cache.update(key, value, i)
    return cache


def _wrapper(model, cache_arg: str, with_position_ids: bool, dtype):
    """The capture wrapper; the past and present are float32 whatever the model computes in
    (``dtype``): the CPU plugin cannot run a state of float16 when it computes in another type."""
    import torch

    class DecoderWithCache(torch.nn.Module):
        """input_ids, attention_mask, [position_ids,] past (key, value) pairs -> logits and the
        present keys and values by name."""

        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, position_ids=None, past_key_values=()):
            kwargs = {"position_ids": position_ids} if with_position_ids else {}
            past = [(k.to(dtype), v.to(dtype)) for k, v in past_key_values]
            out = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=True,
                             **{cache_arg: _new_cache(past)}, **kwargs)
            present = getattr(out, cache_arg, None)
            if present is None:
                present = out.past_key_values
            outputs = {"logits": out.logits}
            for i, (key, value) in enumerate(_cache_pairs(present)):
                outputs[f"present.{i}.key"], outputs[f"present.{i}.value"] = key.float(), value.float()
            return outputs

    return DecoderWithCache()


def run_decoder(model, named: dict) -> dict:
    """Run the decoder ``model`` as its converted IR computes: ``named`` holds the IR's inputs by
    name (input_ids, attention_mask, [position_ids], past_key_values.N.key/value; beam_idx is
    the identity order of a fresh run and ignored); gives logits and present.N.key/value by name,
    as numpy arrays."""
    cache_arg = cache_argument(model)
    past = {}
    for name, tensor in named.items():
        m = re.fullmatch(r"past_key_values\.(\d+)\.(key|value)", name)
        if m:
            past.setdefault(int(m.group(1)), {})[m.group(2)] = tensor
    pairs = [(past[i]["key"], past[i]["value"]) for i in sorted(past)]
    with_position_ids = "position_ids" in named and "position_ids" in forward_parameters(model)
    dtype = next(model.parameters()).dtype
    wrapper = _wrapper(model, cache_arg, with_position_ids, dtype)
    outputs = wrapper(named["input_ids"], named.get("attention_mask"), named.get("position_ids"), pairs)
    return {k: v.detach().float().numpy() for k, v in outputs.items()}


def _examples(model, example_input: Any) -> dict:
    """The user's input_ids / attention_mask / position_ids by name."""
    args, kwargs = example_inputs(example_input)
    named = dict(named_examples(model, args, kwargs))
    others = [k for k in named if k not in DECODER_INPUTS]
    if others:
        raise OptionError(f"{type(model).__name__} is converted with its key/value cache, whose inputs are "
                          f"{', '.join(DECODER_INPUTS)}: example_input gives {', '.join(others)} as well. Give "
                          f"input_ids (and attention_mask), or set model.config.use_cache = False to convert the "
                          f"model without a cache with these inputs.")
    return named


def _example_ids(given, vocab: int):
    """[BATCH, n] token ids: the user's tokens repeated (or made up), as i64."""
    import torch
    if given is not None and (not isinstance(given, torch.Tensor) or given.dim() != 2 or given.is_floating_point()):
        raise OptionError("example_input of a transformers decoder: input_ids must be a 2-d integer tensor "
                          "[batch, tokens].")
    tokens = given.reshape(-1).long() if given is not None and given.numel() else torch.arange(vocab)
    tokens = tokens.clamp(0, vocab - 1).repeat(BATCH * (NEW_TOKENS + PAST) // tokens.numel() + 1)
    return tokens[:BATCH * (NEW_TOKENS + PAST)].reshape(BATCH, NEW_TOKENS + PAST)


@contextlib.contextmanager
def _portable_grouped_mm():
    """Mixture-of-experts layers run transformers' own grouped product (the one torch.export
    captures) instead of torch's grouped_mm kernel, which has no meta-device form for float32 (a
    checkpoint folder's model runs its prompt on meta tensors)."""
    moe = sys.modules.get("transformers.integrations.moe")
    if moe is None or not hasattr(moe, "_can_use_grouped_mm"):
        yield
        return
    original = moe._can_use_grouped_mm
    moe._can_use_grouped_mm = lambda *args, **kwargs: False
    try:
        yield
    finally:
        moe._can_use_grouped_mm = original


def _prompt_cache(model, cache_arg: str, ids, cache):
    """The cache after running the prompt ``ids`` (into ``cache``, or the model's own)."""
    import torch
    kwargs = {cache_arg: cache} if cache is not None else {}
    try:
        with torch.no_grad(), _portable_grouped_mm():
            out = model(input_ids=ids, use_cache=True, **kwargs)
    except Exception as e:
        raise InputModelError(f"{type(model).__name__} could not run a prompt with a key/value cache "
                              f"({type(e).__name__}: {e}): it cannot be converted with its cache. Set "
                              f"model.config.use_cache = False to convert it without one.") from e
    cached = getattr(out, cache_arg, None)
    return cached if cached is not None else getattr(out, "past_key_values", None)


def export_decoder(model, example_input: Any = None):
    """The ExportedProgram of ``model`` (a transformers decoder) with its cache as flat inputs and
    outputs; ``example_input`` (input_ids, or a dict with it) only gives example tokens."""
    import torch
    from torch.export import Dim
    cache_arg = cache_argument(model)
    if cache_arg is None:
        raise OptionError(f"{type(model).__name__} is not a transformers decoder that generates with a cache "
                          f"(a *ForCausalLM with config.use_cache).")
    named = _examples(model, example_input)
    model.eval()
    vocab = int(getattr(model.config.get_text_config(decoder=True), "vocab_size", 0) or 2)
    ids = _example_ids(named.get("input_ids"), vocab)
    # the model's own cache first: one that is not keys and values (a recurrent state) is refused
    _cache_pairs(_prompt_cache(model, cache_arg, ids[:, :PAST], None))
    pairs = _cache_pairs(_prompt_cache(model, cache_arg, ids[:, :PAST], _new_cache([])))
    past = [(k.detach().float(), v.detach().float()) for k, v in pairs]
    mask = torch.ones(BATCH, PAST + NEW_TOKENS, dtype=torch.long)
    mask[0, :2] = 0     # a left-padded row: the mask is read, not assumed all ones
    with_position_ids = "position_ids" in forward_parameters(model)
    inputs = {"input_ids": ids[:, PAST:].contiguous(), "attention_mask": mask,
              "position_ids": torch.arange(PAST, PAST + NEW_TOKENS).expand(BATCH, -1).contiguous(),
              "past_key_values": past}
    # one batch and one past length for all (a mask made for the cache of one layer is used in all)
    batch, past_length = Dim("batch"), Dim("past_length")
    both = {0: batch, 1: Dim.AUTO}
    shapes = {"input_ids": both, "attention_mask": both, "position_ids": both,
              "past_key_values": [({0: batch, 2: past_length},) * 2 for _ in past]}
    if not with_position_ids:
        del inputs["position_ids"], shapes["position_ids"]
    device = next(model.parameters()).device
    if device.type == "meta":      # a checkpoint folder's model: no weights, so the example is meta too
        inputs = {k: [(a.to(device), b.to(device)) for a, b in v] if k == "past_key_values" else v.to(device)
                  for k, v in inputs.items()}
    wrapper = _wrapper(model, cache_arg, with_position_ids, pairs[0][0].dtype)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.export.export(wrapper, (), inputs, dynamic_shapes=shapes)
    except Exception as e:
        raise InputModelError(
            f"Cannot capture {type(model).__name__} with its cache: torch.export failed "
            f"({type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}). Set "
            f"model.config.use_cache = False to convert it without a cache.") from e


def capture_decoder(model: Any, example_input: Any):
    """A transformers decoder (with its cache) captured as an ExportedProgram, or None when
    ``model`` is not one."""
    if cache_argument(model) is None:
        return None
    program = export_decoder(model, example_input)
    log.info("Captured %s with its key/value cache (torch.export)", type(model).__name__)
    return Captured("exported", program, [], type(model).__name__)


def capture_model(model: Any, example_input: Any, input_specs: list) -> Captured:
    """The decodable form of a model object: a transformers decoder with its cache, any other
    model as ``capture`` takes it."""
    return capture_decoder(model, example_input) or capture(model, example_input, input_specs)


def name_decoder_io(graph) -> bool:
    """Inputs ``past_key_values_N_0``/``_1`` of a captured decoder (with outputs
    ``present.N.key``/``.value``) renamed ``past_key_values.N.key``/``.value``; the graph is
    marked for MakeStateful with those pairs (``graph.graph["make_stateful"]``). False (and
    nothing changed) when the graph is not a decoder with its cache. The graph is marked
    ``transformers_decoder`` for the rewrites that know what its attention masks hold."""
    renames = []
    for param in graph.nodes_by_op("Parameter"):
        match = PLACEHOLDER.fullmatch(param.name)
        if match:
            renames.append((param, f"past_key_values.{match[1]}.{KIND[int(match[2])]}"))
    outputs = {r.name.removesuffix("/sink_port_0") for r in graph.nodes_by_op("Result")}
    if not renames or any(name.replace("past_key_values", "present") not in outputs for _, name in renames):
        return False
    for param, name in renames:
        param["name"] = name
    # the inputs and outputs carry only their own names (applications take any of a tensor's names,
    # OpenVINO's get_any_name the smallest): the FX node names of the operations (cat_7,
    # linear_14) are dropped, or a rewrite that removes a node would move them onto an input or
    # output; weights keep theirs
    for node in graph.op_nodes():
        if node.op not in ("Parameter", "Const"):
            node["tensor_names"] = {}
    for param in graph.nodes_by_op("Parameter"):
        _name_tensor(param.out_port(0), param.name)
    for result in graph.nodes_by_op("Result"):
        _name_tensor(result.in_port(0).get_source(), result.name.removesuffix("/sink_port_0"))
    graph.graph["make_stateful"] = STATEFUL_ARGUMENTS
    graph.graph["transformers_decoder"] = True      # extensions/back/attention_forms.py
    log.info("Decoder with %d cache inputs: past_key_values.N.key/value -> present.N.key/value", len(renames))
    return True


def _name_tensor(port, name: str) -> None:
    port.remove_tensor_names()
    port.add_tensor_names([name])
