"""Decoding speed of a stateful LLM IR: mo's against the IR of OpenVINO's PyTorch frontend for the
same model, through a plain infer loop (and OpenVINO GenAI's LLMPipeline with ``--genai PA,SDPA``,
timed by its own performance metrics).

The model is a Llama-shaped transformers decoder with random weights (``--hidden`` 768 by
default, grouped-query attention, vocab 32000). mo converts it with its cache (stateful, f32
weights). OpenVINO's IR is what its user gets: ``openvino.convert_model`` of a wrapper that runs
the model with its cache as inputs and outputs, then made stateful the way optimum-intel does it
(a ``beam_idx`` input gathering every past input, OpenVINO's MakeStateful transformation, each
state starting empty at the batch size of ``input_ids``; written for mo's tests in
tests/utils/openvino_llm.py, not taken from optimum). ``--ir NAME=PATH`` adds other IRs of the same
weights, e.g. optimum-intel's export of the checkpoint ``--checkpoint DIR`` saves (or loads).

Each IR is compiled ``--compiles`` times per prompt length (CPU, f32 inference precision), the
rounds spread over the compilations: where a compiled model's buffers land in memory moves its
speed by a few percent for as long as it lives, as much as the IRs differ. ``--control`` adds an
identical copy of mo's IR (``mo_copy``), which shows how far two runs of one IR differ by chance.
A run resets the state, feeds a prompt of
``--prompt`` random tokens (time to first token: that inference) and then ``--new`` tokens one at
a time greedily (decode tokens/s: the new tokens after the first over their time). Each round
takes a new prompt, the same for every IR (GenAI would reuse the cache of a prompt it has seen),
and runs the IRs in turn (in reverse order every other round), ``--repeats`` rounds per prompt
length (after one per compilation to warm up), so that the load of a shared machine hits all alike; the medians
are printed, and mo's figure over the other IR's per round (median and range: the rounds pair
runs made under the same load; ``--pair A/B`` adds other pairs, e.g. two weight-compressed IRs
given with ``--ir``), also written as JSON with ``--json``. The IRs must generate the
same tokens.

    python benchmarks/llm_decode.py [--hidden 768] [--layers 8] [--prompt 32,384] [--new 32] [--repeats 5]
                                    [--compiles 5] [--control] [--genai PA,SDPA] [--checkpoint DIR]
                                    [--ir NAME=PATH ...] [--pair A/B ...]
                                    [--kv_cache_precision f16] [--json figures.json]
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


def model_of(args):
    """The benchmark's model: built, or loaded from / saved to ``--checkpoint``."""
    import transformers
    if args.checkpoint and os.path.isfile(os.path.join(args.checkpoint, "config.json")):
        return transformers.AutoModelForCausalLM.from_pretrained(args.checkpoint).eval()
    model = build(args.hidden, args.layers)
    if args.checkpoint:
        model.save_pretrained(args.checkpoint)
    return model


def mo_ir(model, folder: str) -> str:
    sys.path.insert(0, ROOT)
    from mo import convert_model
    return convert_model(model, output_dir=folder, model_name="mo", compress_to_fp16=False).xml


def openvino_ir(model, folder: str) -> str:
    """OpenVINO's PyTorch frontend on the model with its cache, made stateful
    (tests/utils/openvino_llm.py)."""
    import openvino as ov
    sys.path.insert(0, ROOT)
    from tests.utils.openvino_llm import openvino_decoder_ir
    path = os.path.join(folder, "openvino.xml")
    ov.save_model(openvino_decoder_ir(model), path, compress_to_fp16=False)
    return path


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
    import openvino
    import openvino_tokenizers
    sys.path.insert(0, ROOT)
    from tests.utils.llm_folders import tokenizer
    os.makedirs(folder)
    copy_ir(ir_path, os.path.join(folder, "openvino_model.xml"))
    model.config.save_pretrained(folder)
    model.generation_config.save_pretrained(folder)
    encoder, decoder = openvino_tokenizers.convert_tokenizer(tokenizer(), with_detokenizer=True)
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


def copy_ir(path: str, to: str) -> str:
    """An identical copy of an IR (the control: two copies of one IR differ only by chance)."""
    import shutil
    for ext in ("xml", "bin"):
        shutil.copy(path[:-3] + ext, to[:-3] + ext)
    return to


def make_runners(core, paths: dict, backends: list, genai_folders: dict, report: bool) -> dict:
    """(way, IR name) -> a function running one generation, each IR compiled now (and an
    LLMPipeline made for each backend)."""
    runners = {}
    for name, path in paths.items():
        compiled = core.compile_model(path, "CPU", CONFIG)
        if report:
            kinds = [op.get_rt_info()["layerType"].astype(str) for op in compiled.get_runtime_model().get_ops()]
            print(f"{name}: {len(kinds)} executed nodes, {kinds.count('ScaledDotProductAttention')} "
                  f"ScaledDotProductAttention, {kinds.count('RoPE')} RoPE")
        request = compiled.create_infer_request()
        runners[("infer loop", name)] = lambda prompt, new, request=request: generate(request, prompt, new)
    for backend in backends:
        import openvino_genai
        for name in paths:
            pipeline = openvino_genai.LLMPipeline(genai_folders[name], "CPU", ATTENTION_BACKEND=backend, **CONFIG)
            runners[(f"LLMPipeline {backend}", name)] = \
                lambda prompt, new, pipeline=pipeline: genai_generate(pipeline, prompt, new)
    return runners


def report_length(length: int, paths: dict, runs: dict, results: dict, pairs: list) -> None:
    """Prints the medians of one prompt length and, for each (A, B) of ``pairs``, A's figures
    over B's per round (the rounds pair runs made under the same load); adds them to ``results``."""
    for way in dict.fromkeys(w for w, _ in runs):
        for name in paths:
            r = runs[(way, name)]
            if r[-1][2] != runs[(way, "mo")][-1][2]:
                print(f"prompt {length}, {way}: mo's IR and {name} generate different tokens")
            figures = {"ttft_ms": statistics.median(t[0] for t in r) * 1000,
                       "tokens_per_s": statistics.median(t[1] for t in r)}
            print(f"prompt {length:4d}  {way:16s} {name:9s} time to first token "
                  f"{figures['ttft_ms']:8.1f} ms   decode {figures['tokens_per_s']:6.1f} tokens/s")
            results[f"{way}/{name}/{length}"] = figures
        for first, second in pairs:
            figures = results[f"{way}/{second}/{length}"] if first == "mo" else {}
            for key, i in (("decode_ratio", 1), ("ttft_ratio", 0)):
                ratios = sorted(m[i] / o[i] for m, o in zip(runs[(way, first)], runs[(way, second)]))
                figures[key] = [statistics.median(ratios), ratios[0], ratios[-1]]
            print(f"prompt {length:4d}  {way:16s} {first} / {second}: decode {_ratio(figures['decode_ratio'])}, "
                  f"time to first token {_ratio(figures['ttft_ratio'])} (per round: median [range])")
            if first != "mo":
                results[f"{way}/{first}:{second}/{length}"] = figures


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hidden", type=int, default=768)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--prompt", default="32,384", help="prompt lengths, comma-separated")
    parser.add_argument("--new", type=int, default=32, help="tokens generated per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--genai", default="", help="also through LLMPipeline with these attention backends "
                        "(comma-separated: PA,SDPA)")
    parser.add_argument("--checkpoint", help="load the model from this folder, or save it there when it has none")
    parser.add_argument("--ir", action="append", default=[], metavar="NAME=PATH",
                        help="another IR of the same weights to compare (repeatable)")
    parser.add_argument("--kv_cache_precision", help="KV_CACHE_PRECISION for every IR (default: the plugin's "
                        "default or the IR's runtime_options)")
    parser.add_argument("--compiles", type=int, default=5, help="compile each IR afresh this many times per "
                        "prompt length, the rounds spread over them (default 5)")
    parser.add_argument("--control", action="store_true", help="also run an identical copy of mo's IR "
                        "(mo_copy): how far two copies of one IR differ by chance")
    parser.add_argument("--pair", action="append", default=[], metavar="A/B",
                        help="also print IR A's figures over IR B's per round (repeatable), e.g. two IRs of "
                        "the same compression from --ir")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    import openvino as ov
    if args.kv_cache_precision:
        CONFIG["KV_CACHE_PRECISION"] = args.kv_cache_precision
    model = model_of(args)
    core = ov.Core()
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        paths = {"mo": mo_ir(model, folder), "openvino": openvino_ir(model, folder)}
        if args.control:
            paths["mo_copy"] = copy_ir(paths["mo"], os.path.join(folder, "mo_copy.xml"))
        paths.update(item.split("=", 1) for item in args.ir)
        backends = list(filter(None, args.genai.split(",")))
        genai_folders = {name: genai_folder(path, model, os.path.join(folder, f"genai_{name}"))
                         for name, path in paths.items()} if backends else {}
        del model
        rng = np.random.default_rng(0)
        compiles = max(1, min(args.compiles, args.repeats))
        for length in (int(n) for n in args.prompt.split(",")):
            runs = {}
            for session in range(compiles):
                # each IR compiled afresh per session: where the plugin's buffers land in memory
                # changes a run's speed by a few percent for the life of a compiled model
                runners = make_runners(core, paths, backends, genai_folders, report=not results and not session)
                rounds = args.repeats // compiles + (session < args.repeats % compiles)
                for round_ in range(rounds + 1):      # the first round of a session warms up
                    # a new prompt each round (GenAI would reuse the cache of a prompt it has seen); the
                    # order of the runs is reversed every other round (no IR always runs first)
                    prompt = rng.integers(3, 32000, (1, length))
                    for key, run in (reversed if round_ % 2 else iter)(list(runners.items())):
                        result = run(prompt, args.new)
                        if round_:
                            runs.setdefault(key, []).append(result)
                del runners
            pairs = [("mo", name) for name in paths if name != "mo"] + [tuple(p.split("/", 1)) for p in args.pair]
            report_length(length, paths, runs, results, pairs)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return results


def _ratio(figures: list[float]) -> str:
    return f"{figures[0]:.2f}x [{figures[1]:.2f}-{figures[2]:.2f}]"


if __name__ == "__main__":
    main()
