"""Peak memory and time of converting a Llama-shaped transformers checkpoint folder larger than
it is wise to hold twice, mo beside OpenVINO's converter.

Writes a synthetic ``LlamaForCausalLM`` checkpoint folder (config.json and safetensors shards of
at most 1 GiB with their index; hidden size 2048, intermediate 5632, 32 heads of 64 with 4
key/value heads, vocabulary 32000 at full size: TinyLlama's shape with as many layers as the
size asks) with random weights in bf16 (or f32), tensor by tensor and chunk by chunk, so the
builder never holds more than a few MiB of them. Then converts it as whole processes:

* mo: ``python mo.py --input_model <folder> --output_dir ...`` (the extra options of
  ``--mo-args`` appended, e.g. ``--mo-args "--compress_weights int8"``);
* OpenVINO: ovc has no folder input, so a Python child does what an ovc user does:
  ``AutoModelForCausalLM.from_pretrained(folder, dtype=...)``, ``openvino.convert_model(model,
  example_input=...)`` and ``openvino.save_model``;

each with the default options (fp16 compression on) and with ``--compress_to_fp16=False``, and
prints wall time, peak resident memory (the kernel's rusage of each child) and its ratio to the
weights. Both capture the model without its key/value cache (logits of the whole sequence).

    python benchmarks/convert_large_llama.py [--size-mb 3072] [--dtype bf16] [--only mo] [--keep]

``measure_mo(size_mb, workdir)`` is what the tests use, at a few hundred MiB.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from convert_large_onnx import fp16_options  # noqa: E402
from measure import ROOT, Run, mo_command, production_env, run_measured  # noqa: E402

MIB = 2 ** 20
GIB = 2 ** 30
CHUNK_VALUES = 2 * MIB
SHARD_BYTES = GIB
ITEMSIZE = {"bf16": 2, "f16": 2, "f32": 4}


def llama_config(size_bytes: int, dtype: str) -> dict:
    """A LlamaForCausalLM config.json with about ``size_bytes`` of weights in ``dtype``: TinyLlama's
    layer shape (hidden 2048) from 1 GiB on, narrower below."""
    hidden, vocab = (2048, 32000) if size_bytes >= GIB else (1024, 32000) if size_bytes >= 192 * MIB else (256, 4000)
    heads = hidden // 64
    kv_heads = max(1, heads // 8)
    intermediate = round(hidden * 2.75 / 64) * 64
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": hidden,
              "intermediate_size": intermediate, "num_attention_heads": heads, "num_key_value_heads": kv_heads,
              "num_hidden_layers": 1, "vocab_size": vocab, "max_position_embeddings": 2048, "rms_norm_eps": 1e-5,
              "hidden_act": "silu", "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2,
              "torch_dtype": {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}[dtype]}
    fixed, per_layer = _param_counts(config)
    config["num_hidden_layers"] = max(1, round((size_bytes / ITEMSIZE[dtype] - fixed) / per_layer))
    return config


def _param_counts(config: dict) -> tuple[int, int]:
    """(parameters outside the layers, parameters per layer) of a Llama config."""
    h, i, v = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    kv = h // config["num_attention_heads"] * config["num_key_value_heads"]
    return 2 * v * h + h, 2 * h * h + 2 * h * kv + 3 * h * i + 2 * h


def tensor_shapes(config: dict) -> list[tuple[str, tuple[int, ...], float, float]]:
    """(name, shape, scale, base) of every weight, in the order transformers lists them."""
    h, i, v = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    kv = h // config["num_attention_heads"] * config["num_key_value_heads"]
    s = 0.02
    shapes = [("model.embed_tokens.weight", (v, h), s, 0.0)]
    for n in range(config["num_hidden_layers"]):
        p = f"model.layers.{n}."
        shapes += [(p + "self_attn.q_proj.weight", (h, h), s, 0.0), (p + "self_attn.k_proj.weight", (kv, h), s, 0.0),
                   (p + "self_attn.v_proj.weight", (kv, h), s, 0.0), (p + "self_attn.o_proj.weight", (h, h), s, 0.0),
                   (p + "mlp.gate_proj.weight", (i, h), s, 0.0), (p + "mlp.up_proj.weight", (i, h), s, 0.0),
                   (p + "mlp.down_proj.weight", (h, i), s, 0.0), (p + "input_layernorm.weight", (h,), 0.1, 1.0),
                   (p + "post_attention_layernorm.weight", (h,), 0.1, 1.0)]
    return shapes + [("model.norm.weight", (h,), 0.1, 1.0), ("lm_head.weight", (v, h), s, 0.0)]


def _chunks(rng, count: int, scale: float, base: float, dtype: str):
    """The bytes of ``count`` random normal values in ``dtype``, a few MiB at a time."""
    left = count
    while left:
        n = min(left, CHUNK_VALUES)
        values = rng.standard_normal(n, dtype=np.float32)
        values *= scale
        values += base
        if dtype == "bf16":
            yield (values.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        else:
            yield values.astype(np.float16 if dtype == "f16" else np.float32).tobytes()
        left -= n


def build_folder(folder: str, size_mb: float, dtype: str = "bf16", seed: int = 0) -> int:
    """Write the checkpoint folder; returns the bytes of its weights."""
    from extensions.load.pytorch.safetensors_file import write_safetensors
    os.makedirs(folder, exist_ok=True)
    config = llama_config(int(size_mb * MIB), dtype)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    rng = np.random.default_rng(seed)
    shards, current, size = [], [], 0
    for entry in tensor_shapes(config):
        nbytes = int(np.prod(entry[1])) * ITEMSIZE[dtype]
        if current and size + nbytes > SHARD_BYTES:
            shards.append(current)
            current, size = [], 0
        current.append(entry)
        size += nbytes
    shards.append(current)
    weight_map, total = {}, 0
    for k, shard in enumerate(shards):
        file = f"model-{k + 1:05d}-of-{len(shards):05d}.safetensors"
        write_safetensors(os.path.join(folder, file),
                          [(name, dtype, shape, _chunks(rng, int(np.prod(shape)), scale, base, dtype))
                           for name, shape, scale, base in shard], {"format": "pt"})
        for name, shape, _, _ in shard:
            weight_map[name] = file
            total += int(np.prod(shape)) * ITEMSIZE[dtype]
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=1)
    return total


def weight_bytes(folder: str) -> int:
    with open(os.path.join(folder, "model.safetensors.index.json")) as f:
        return json.load(f)["metadata"]["total_size"]


def build_in_child(folder: str, size_mb: float, dtype: str) -> int:
    """Build the folder in a child process (this one stays small, so the converters it starts
    do not inherit a large address space); returns the weight bytes."""
    subprocess.run([sys.executable, os.path.abspath(__file__), "--build-only", folder, "--size-mb", str(size_mb),
                    "--dtype", dtype], check=True, capture_output=True, text=True)
    return weight_bytes(folder)


def ovc_child(folder: str, out: str, fp16: bool) -> None:
    """What an OpenVINO user does with a checkpoint folder (run as the measured child)."""
    import openvino as ov
    import torch
    import transformers
    with open(os.path.join(folder, "config.json")) as f:
        dtype = getattr(torch, json.load(f)["torch_dtype"])
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=dtype, use_cache=False).eval()
    ids = torch.ones((2, 8), dtype=torch.long)
    ov_model = ov.convert_model(model, example_input={"input_ids": ids, "attention_mask": torch.ones_like(ids)})
    os.makedirs(out, exist_ok=True)
    ov.save_model(ov_model, os.path.join(out, "model.xml"), compress_to_fp16=fp16)


def ovc_command(folder: str, out: str, fp16: bool) -> list[str]:
    return [sys.executable, os.path.abspath(__file__), "--ovc-child", folder, "--output-dir", out,
            "--fp16", "on" if fp16 else "off"]


def measure_mo(size_mb: float, workdir: str, fp16: bool = True, dtype: str = "bf16",
               extra: tuple[str, ...] = ()) -> tuple[int, Run]:
    """Build a folder of ``size_mb`` MiB of weights in ``workdir`` and convert it with mo in a
    child process; returns (weight bytes, the measured run)."""
    folder = os.path.join(workdir, "ckpt")
    weights = build_in_child(folder, size_mb, dtype)
    run = run_measured(mo_command(folder, os.path.join(workdir, "out"), *fp16_options(fp16), *extra),
                       production_env())
    return weights, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=3072, help="weights in MiB (default 3072)")
    parser.add_argument("--dtype", choices=("bf16", "f16", "f32"), default="bf16", help="stored type of the weights")
    parser.add_argument("--only", choices=("mo", "ovc"), help="run one converter")
    parser.add_argument("--fp16", choices=("on", "off", "both"), default="both")
    parser.add_argument("--mo-args", default="", help="extra mo options, measured as one more mo run")
    parser.add_argument("--workdir", default=os.path.join(ROOT, "benchmarks", "results"))
    parser.add_argument("--keep", action="store_true", help="keep the checkpoint folder for the next run")
    parser.add_argument("--build-only", metavar="FOLDER", help=argparse.SUPPRESS)
    parser.add_argument("--ovc-child", metavar="FOLDER", help=argparse.SUPPRESS)
    parser.add_argument("--output-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        build_folder(args.build_only, args.size_mb, args.dtype)
        return
    if args.ovc_child:
        ovc_child(args.ovc_child, args.output_dir, args.fp16 == "on")
        return
    os.makedirs(args.workdir, exist_ok=True)
    folder = os.path.join(args.workdir, f"llama_{int(args.size_mb)}mb_{args.dtype}")
    started = time.perf_counter()
    if not os.path.exists(os.path.join(folder, "model.safetensors.index.json")):
        build_in_child(folder, args.size_mb, args.dtype)
    weights = weight_bytes(folder)
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    print(f"checkpoint: {folder} ({weights / MIB:.0f} MiB of {args.dtype} weights, {config['num_hidden_layers']} "
          f"layers of hidden size {config['hidden_size']}; ready in {time.perf_counter() - started:.1f} s)")
    out = tempfile.mkdtemp(prefix="mo_bench_", dir=args.workdir)
    runs = []
    for fp16 in {"on": [True], "off": [False], "both": [True, False]}[args.fp16]:
        label = "fp16 on" if fp16 else "fp16 off"
        runs.append(("mo", label, mo_command(folder, os.path.join(out, "mo"), *fp16_options(fp16))))
        runs.append(("ovc", label, ovc_command(folder, os.path.join(out, "ovc"), fp16)))
    if args.mo_args:
        runs.append(("mo", args.mo_args, mo_command(folder, os.path.join(out, "mo"), *shlex.split(args.mo_args))))
    print(f"{'converter':10s} {'options':28s} {'wall s':>8s} {'CPU s':>8s} {'peak RSS MiB':>13s} "
          f"{'peak/weights':>13s}")
    try:
        for label, options, cmd in runs:
            if args.only and label != args.only:
                continue
            r = run_measured(cmd, production_env())
            shutil.rmtree(os.path.join(out, label), ignore_errors=True)
            print(f"{label:10s} {options:28s} {r.wall:8.1f} {r.cpu:8.1f} {r.peak / MIB:13.0f} "
                  f"{r.peak / weights:13.2f}", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
