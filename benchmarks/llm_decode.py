"""Decoding speed of a stateful LLM IR: mo's against the IR of OpenVINO's PyTorch frontend for the
same model, through a plain infer loop (and OpenVINO GenAI's LLMPipeline with ``--genai PA,SDPA``,
timed by its own performance metrics).

The model is a Llama-shaped transformers decoder with random weights (``--hidden`` 768 by
default, grouped-query attention, vocab 32000). mo converts it with its cache (stateful, f32
weights). OpenVINO's IR is what its user gets: ``openvino.convert_model`` of a wrapper that runs
the model with its cache as inputs and outputs, then made stateful the way optimum-intel does it
(a ``beam_idx`` input gathering every past input, OpenVINO's MakeStateful transformation, each
state starting empty at the batch size of ``input_ids``), written here, not taken from optimum.

Each IR is compiled once (CPU, f32 inference precision). A run resets the state, feeds a prompt of
``--prompt`` random tokens (time to first token: that inference) and then ``--new`` tokens one at
a time greedily (decode tokens/s: the new tokens after the first over their time). Each round
takes a new prompt, the same for every IR (GenAI would reuse the cache of a prompt it has seen),
and runs the IRs in turn (in reverse order every other round), ``--repeats`` rounds per prompt
length after one to warm up, so that the load of a shared machine hits all alike; the medians
are printed (and written as JSON with ``--json``). The IRs must generate the same tokens.

    python benchmarks/llm_decode.py [--hidden 768] [--layers 8] [--prompt 32,384] [--new 32] [--repeats 5]
                                    [--genai PA,SDPA] [--json figures.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}


def build(hidden: int, layers: int, vocab: int = 32000):
    """A Llama-shaped decoder with random weights: heads of 64, a quarter as many key/value heads."""
    import torch
    import transformers
    torch.manual_seed(0)
    heads = hidden // 64
    config = transformers.LlamaConfig(hidden_size=hidden, intermediate_size=hidden * 8 // 3 // 64 * 64,
                                      num_hidden_layers=layers, num_attention_heads=heads,
                                      num_key_value_heads=max(1, heads // 4), vocab_size=vocab,
                                      max_position_embeddings=4096, bos_token_id=None, eos_token_id=None)
    return transformers.AutoModelForCausalLM.from_config(config).eval()


def mo_ir(model, folder: str) -> str:
    sys.path.insert(0, ROOT)
    from mo import convert_model
    return convert_model(model, output_dir=folder, model_name="mo", compress_to_fp16=False).xml


def openvino_ir(model, folder: str) -> str:
    """OpenVINO's PyTorch frontend on the model with its cache, made stateful."""
    import openvino as ov
    import torch
    from transformers.cache_utils import DynamicCache, DynamicLayer

    class WithCache(torch.nn.Module):
        """The cache as flat (key, value) inputs, already filled (OpenVINO's frontend cannot
        convert the empty tensor a fresh transformers cache starts from)."""

        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, position_ids, past_key_values):
            cache = DynamicCache()
            cache.layers = []
            for key, value in past_key_values:
                layer = DynamicLayer()
                layer.keys, layer.values, layer.is_initialized, layer.device = key, value, True, key.device
                cache.layers.append(layer)
            out = self.model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                             past_key_values=cache, use_cache=True)
            return (out.logits,) + tuple(t for layer in out.past_key_values.layers for t in (layer.keys, layer.values))

    config = model.config
    kv_heads, head_dim = config.num_key_value_heads, config.hidden_size // config.num_attention_heads
    batch, past, new = 2, 3, 4
    example = {"input_ids": torch.randint(1, 100, (batch, new)),
               "attention_mask": torch.ones(batch, past + new, dtype=torch.long),
               "position_ids": torch.arange(past, past + new).repeat(batch, 1),
               "past_key_values": [(torch.randn(batch, kv_heads, past, head_dim),) * 2
                                   for _ in range(config.num_hidden_layers)]}
    with torch.no_grad():
        ir = ov.convert_model(WithCache(), example_input=example)
    make_stateful(ir, kv_heads, head_dim)
    path = os.path.join(folder, "openvino.xml")
    ov.save_model(ir, path, compress_to_fp16=False)
    return path


def make_stateful(ir, kv_heads: int, head_dim: int) -> None:
    """Inputs 3.. (the past keys and values) and outputs 1.. (the present ones) become states read
    through a ``beam_idx`` Gather, each starting as zeros [batch of input_ids, heads, 0, dim]."""
    import openvino as ov
    import openvino.opset13 as ops
    from openvino._offline_transformations import apply_make_stateful_transformation
    ir.inputs[0].get_tensor().set_names({"input_ids"})
    ir.outputs[0].get_tensor().set_names({"logits"})
    pairs = {}
    for i, (past, present) in enumerate(zip(ir.inputs[3:], ir.outputs[1:])):
        name = f"{i // 2}.{'key' if i % 2 == 0 else 'value'}"
        past.get_tensor().set_names({f"past_key_values.{name}"})
        present.get_tensor().set_names({f"present.{name}"})
        past.get_node().set_partial_shape(ov.PartialShape([-1, kv_heads, -1, head_dim]))
        pairs[f"past_key_values.{name}"] = f"present.{name}"
    ir.validate_nodes_and_infer_types()
    beam = ops.parameter([-1], np.int32, name="beam_idx")
    beam.output(0).get_tensor().set_names({"beam_idx"})
    ir.add_parameters([beam])
    for past in list(ir.inputs[3:-1]):
        targets = list(past.get_target_inputs())
        reordered = ops.gather(past, beam, ops.constant(np.int64(0)))
        for target in targets:
            target.replace_source_output(reordered.output(0))
    apply_make_stateful_transformation(ir, pairs)
    batch = ops.gather(ops.shape_of(ir.input("input_ids")), ops.constant(np.array([0])), ops.constant(np.int64(0)))
    zeros = ops.broadcast(ops.constant(np.float32(0)),
                          ops.concat([batch, ops.constant(np.array([kv_heads, 0, head_dim]))], 0))
    for op in ir.get_ops():
        if op.get_type_name() == "ReadValue":
            op.set_arguments([zeros.output(0)])
    ir.validate_nodes_and_infer_types()


def generate(request, prompt: np.ndarray, new: int) -> tuple[float, float, list[int]]:
    """(time to first token s, decode tokens/s, tokens) of one greedy run."""
    request.reset_state()
    length = prompt.shape[1]
    feed = {"input_ids": prompt, "attention_mask": np.ones_like(prompt), "position_ids": np.arange(length)[None],
            "beam_idx": np.zeros(1, np.int32)}
    tokens = []
    start = time.perf_counter()
    for step in range(new):
        logits = request.infer(feed)["logits"]
        if step == 0:
            first = time.perf_counter()
        token = int(logits[0, -1].argmax())
        tokens.append(token)
        length += 1
        feed = {"input_ids": np.array([[token]]), "attention_mask": np.ones((1, length), np.int64),
                "position_ids": np.array([[length - 1]]), "beam_idx": np.zeros(1, np.int32)}
    end = time.perf_counter()
    return first - start, (new - 1) / (end - first), tokens


def genai_folder(ir_path: str, model, folder: str) -> str:
    """A folder OpenVINO GenAI loads: the IR as openvino_model.xml/.bin, the model's configs and a
    small tokenizer (the runs feed token ids; the pipeline only loads it)."""
    import shutil

    import openvino
    import openvino_tokenizers
    sys.path.insert(0, ROOT)
    from tests.utils.llm_folder import trained_tokenizer
    os.makedirs(folder)
    for ext in ("xml", "bin"):
        shutil.copy(ir_path[:-3] + ext, os.path.join(folder, f"openvino_model.{ext}"))
    model.config.save_pretrained(folder)
    model.generation_config.save_pretrained(folder)
    encoder, decoder = openvino_tokenizers.convert_tokenizer(trained_tokenizer(), with_detokenizer=True)
    openvino.save_model(encoder, os.path.join(folder, "openvino_tokenizer.xml"))
    openvino.save_model(decoder, os.path.join(folder, "openvino_detokenizer.xml"))
    return folder


def genai_generate(pipeline, prompt: np.ndarray, new: int) -> tuple[float, float, list[int]]:
    """(time to first token s, decode tokens/s, tokens) of one greedy LLMPipeline run, from its
    own performance metrics."""
    import openvino
    import openvino_genai
    config = openvino_genai.GenerationConfig()
    config.max_new_tokens = new
    config.ignore_eos = True
    config.set_eos_token_id(1 << 30)
    result = pipeline.generate(openvino.Tensor(prompt), config)
    metrics = result.perf_metrics
    return metrics.get_ttft().mean / 1000, 1000 / metrics.get_tpot().mean, list(result.tokens[0])


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hidden", type=int, default=768)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--prompt", default="32,384", help="prompt lengths, comma-separated")
    parser.add_argument("--new", type=int, default=32, help="tokens generated per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--genai", default="", help="also through LLMPipeline with these attention backends "
                        "(comma-separated: PA,SDPA)")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    import openvino as ov
    model = build(args.hidden, args.layers)
    core = ov.Core()
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        paths = {"mo": mo_ir(model, folder), "openvino": openvino_ir(model, folder)}
        runners = {}       # (way, IR) -> a function running one generation
        for name, path in paths.items():
            compiled = core.compile_model(path, "CPU", CONFIG)
            kinds = [op.get_rt_info()["layerType"].astype(str) for op in compiled.get_runtime_model().get_ops()]
            print(f"{name}: {len(kinds)} executed nodes, {kinds.count('ScaledDotProductAttention')} "
                  f"ScaledDotProductAttention, {kinds.count('RoPE')} RoPE")
            request = compiled.create_infer_request()
            runners[("infer loop", name)] = lambda prompt, new, request=request: generate(request, prompt, new)
        for backend in filter(None, args.genai.split(",")):
            import openvino_genai
            for name, path in paths.items():
                where = os.path.join(folder, f"genai_{name}")
                if not os.path.isdir(where):
                    genai_folder(path, model, where)
                pipeline = openvino_genai.LLMPipeline(where, "CPU", ATTENTION_BACKEND=backend, **CONFIG)
                runners[(f"LLMPipeline {backend}", name)] = \
                    lambda prompt, new, pipeline=pipeline: genai_generate(pipeline, prompt, new)
        del model
        rng = np.random.default_rng(0)
        for length in (int(n) for n in args.prompt.split(",")):
            runs = {key: [] for key in runners}
            for round_ in range(args.repeats + 1):      # the first round warms up
                # a new prompt each round (GenAI would reuse the cache of a prompt it has seen); the
                # order of the runs is reversed every other round (no IR always runs first)
                prompt = rng.integers(3, 32000, (1, length))
                for key, run in (reversed if round_ % 2 else iter)(list(runners.items())):
                    runs[key].append(run(prompt, args.new))
            for way in dict.fromkeys(w for w, _ in runners):
                if runs[(way, "mo")][-1][2] != runs[(way, "openvino")][-1][2]:
                    print(f"prompt {length}, {way}: the IRs generate different tokens")
                figures = {}
                for name in paths:
                    r = runs[(way, name)][1:]
                    figures[name] = {"ttft_ms": statistics.median(t[0] for t in r) * 1000,
                                     "tokens_per_s": statistics.median(t[1] for t in r)}
                    results[f"{way}/{name}/{length}"] = figures[name]
                    print(f"prompt {length:4d}  {way:16s} {name:9s} time to first token "
                          f"{figures[name]['ttft_ms']:8.1f} ms   decode {figures[name]['tokens_per_s']:6.1f} tokens/s")
                mo, ref = figures["mo"], figures["openvino"]
                print(f"prompt {length:4d}  {way:16s} mo / openvino: decode "
                      f"{mo['tokens_per_s'] / ref['tokens_per_s']:.2f}x, time to first token "
                      f"{mo['ttft_ms'] / ref['ttft_ms']:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return results


if __name__ == "__main__":
    main()
