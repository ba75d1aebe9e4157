"""Mixture-of-experts routing on the OpenVINO CPU plugin: which IR form of one Mixtral-shaped
expert layer runs fastest, for a prompt (many tokens) and for a decoded token (one), and the
whole-model effect of mo's translation.

``layer`` part (default): one expert block (router, top-k, SwiGLU experts, weighted sum) of
hidden 1024, intermediate 3584, 8 experts, top-2, weights f16 with a decompression Convert (as
mo writes them), built directly with OpenVINO's opsets in five forms that compute the same thing:

* ``dense``: every expert for every routed row ([K, E*O] products), each row's own gathered (mo's
  translation before routing);
* ``grouped``: rows sorted by expert, GroupedMatMul-17 with the expert offsets (mo's
  translation; the CPU plugin runs it as its GatherMatmul kernel);
* ``loop``: rows sorted by expert, a Loop over the experts: each iteration slices its rows,
  gathers its expert's weights and multiplies (one Loop for both projections);
* ``gathered``: each (token, k) row gathers its expert's weight matrices, batched MatMul (timed up
  to 32 tokens: its gathered weights take tokens x k x an expert's size, 22 GiB at 384 tokens);
* ``unrolled``: rows sorted by expert, one Slice + MatMul with constant weights per expert and a
  Concat (what a per-expert traced model or transformers' own OpenVINO exporter gives).

``model`` part (``--model``): a Mixtral-shaped checkpoint (4 layers, hidden 512, intermediate
1792, 8 experts, top-2, vocabulary 4000, random weights) converted by mo from this checkout and
by the mo of ``--before`` (a checkout of an earlier commit, e.g. made with ``git archive``), the
stateful IRs timed for a prompt and for decoding, runs interleaved.

    python benchmarks/moe_routing.py [--tokens 1 32 384] [--repeat 30]
    python benchmarks/moe_routing.py --model --before /tmp/mo-before
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HIDDEN, INTERMEDIATE, EXPERTS, TOP_K = 1024, 3584, 8, 2
FORMS = ("dense", "grouped", "loop", "gathered", "unrolled")
GATHERED_MAX = 32


def _ops():
    import openvino.opset13 as ops
    return ops


def _i64(*values):
    return _ops().constant(np.array(values, np.int64))


def _s(value):
    return _ops().constant(np.int64(value))


def _weight(rng, shape):
    """An f16 constant decompressed to f32 (mo's form of f32 weights)."""
    ops = _ops()
    value = (rng.standard_normal(shape) * 0.02).astype(np.float16)
    convert = ops.convert(ops.constant(value), "f32")
    convert.get_rt_info()["decompression"] = ""
    return convert


def _swiglu(ops, gate_up):
    gate, up = ops.split(gate_up, _s(-1), 2).outputs()
    return ops.multiply(ops.swish(gate), up)


def _routing(ops, x, router):
    """(top-k expert ids [T, k], their normalised weights [T, k])."""
    probs = ops.softmax(ops.matmul(x, router, False, True), -1)
    top = ops.topk(probs, _s(TOP_K), -1, "max", "value", "i64")
    weights = ops.divide(top.output(0), ops.reduce_sum(top.output(0), _i64(-1), True))
    return top.output(1), weights


def _sorted_rows(ops, x, ids):
    """Rows of x repeated per k and sorted by expert id, the sort permutation and the offsets."""
    flat = ops.reshape(ids, _i64(-1), False)                                     # [S]
    count = ops.gather(ops.shape_of(flat), _s(0), _s(0))
    order = ops.topk(flat, count, 0, "min", "value", "i64", stable=True).output(1)
    rows = ops.gather(x, ops.divide(order, _i64(TOP_K)), _i64(0))
    hits = ops.equal(ops.unsqueeze(flat, _i64(1)), ops.constant(np.arange(EXPERTS, dtype=np.int64)))
    offsets = ops.cumsum(ops.reduce_sum(ops.convert(hits, "i64"), _i64(0), False), _s(0))
    return rows, order, offsets


def _unsorted_sum(ops, out_sorted, order, weights, x):
    """Rows back in (token, k) order, times their routing weights, summed over k."""
    flat_w = ops.reshape(weights, _i64(-1, 1), False)
    back = ops.scatter_update(ops.broadcast(ops.constant(np.float32(0)), ops.shape_of(out_sorted)), order,
                              out_sorted, _i64(0))
    weighted = ops.multiply(back, flat_w)
    return ops.reduce_sum(ops.reshape(weighted, _i64(-1, TOP_K, HIDDEN), False), _i64(1), False)


def build_layer(form: str, seed: int = 0):
    """The expert block in ``form``: input x [T, HIDDEN] -> [T, HIDDEN]."""
    import openvino as ov
    import openvino.opset17 as ops17
    ops = _ops()
    rng = np.random.default_rng(seed)
    x = ops.parameter([-1, HIDDEN], np.float32, name="x")
    router = _weight(rng, (EXPERTS, HIDDEN))
    gate_up = (rng.standard_normal((EXPERTS, 2 * INTERMEDIATE, HIDDEN)) * 0.02).astype(np.float16)
    down = (rng.standard_normal((EXPERTS, HIDDEN, INTERMEDIATE)) * 0.02).astype(np.float16)

    def const(value):
        convert = ops.convert(ops.constant(value), "f32")
        convert.get_rt_info()["decompression"] = ""
        return convert

    ids, weights = _routing(ops, x, router)
    if form == "gathered":
        flat = ops.reshape(ids, _i64(-1), False)
        rows = ops.reshape(ops.tile(ops.unsqueeze(x, _i64(1)), _i64(1, TOP_K, 1)), _i64(-1, 1, HIDDEN), False)
        hidden = _swiglu(ops, ops.matmul(rows, ops.gather(const(gate_up), flat, _i64(0)), False, True))
        out = ops.matmul(hidden, ops.gather(const(down), flat, _i64(0)), False, True)       # [S, 1, H]
        weighted = ops.multiply(ops.reshape(out, _i64(-1, TOP_K, HIDDEN), False), ops.unsqueeze(weights, _i64(2)))
        return ov.Model([ops.reduce_sum(weighted, _i64(1), False)], [x], form)
    rows, order, offsets = _sorted_rows(ops, x, ids)
    if form == "dense":
        def every(h, w, out_dim):
            side = ops.reshape(ops.transpose(const(w), _i64(2, 0, 1)), _i64(w.shape[2], -1), False)
            products = ops.reshape(ops.matmul(h, side, False, False), _i64(-1, EXPERTS, out_dim), False)
            ranks = ops.range(_s(0), ops.gather(ops.shape_of(h), _s(0), _s(0)), _s(1), "i64")
            expert = ops.reduce_sum(ops.convert(ops.less_equal(ops.unsqueeze(offsets, _i64(0)),
                                                               ops.unsqueeze(ranks, _i64(1))), "i64"), _i64(1), False)
            own = ops.gather(products, ops.unsqueeze(ops.minimum(expert, _i64(EXPERTS - 1)), _i64(1)), _i64(1), 1)
            return ops.squeeze(own, _i64(1))
        out = every(_swiglu(ops, every(rows, gate_up, 2 * INTERMEDIATE)), down, HIDDEN)
    elif form == "grouped":
        out = ops17.grouped_matmul(_swiglu(ops, ops17.grouped_matmul(rows, const(gate_up), offsets)), const(down),
                                   offsets)
    elif form == "unrolled":
        pieces, start = [], _i64(0)
        for e in range(EXPERTS):
            end = ops.slice(offsets, _i64(e), _i64(e + 1), _i64(1))
            part = ops.slice(rows, start, end, _i64(1), _i64(0))
            hidden = _swiglu(ops, ops.matmul(part, const(gate_up[e]), False, True))
            pieces.append(ops.matmul(hidden, const(down[e]), False, True))
            start = end
        out = ops.concat(pieces, 0)
    elif form == "loop":
        out = _loop(ops, rows, offsets, const(gate_up), const(down))
    else:
        raise ValueError(form)
    return ov.Model([_unsorted_sum(ops, out, order, weights, x)], [x], form)


def _loop(ops, rows, offsets, gate_up, down):
    """A Loop over the experts: each iteration slices its expert's rows, gathers its weights,
    multiplies and writes the result rows into the accumulated output (a merged input: the CPU
    plugin's Loop concatenates only equal-sized iteration outputs)."""
    import openvino as ov
    import openvino.opset8 as ops8
    i = ops.parameter([], np.int64, name="i")
    body_rows = ops.parameter([-1, HIDDEN], np.float32, name="rows")
    body_offsets = ops.parameter([EXPERTS], np.int64, name="offsets")
    body_gate_up = ops.parameter([EXPERTS, 2 * INTERMEDIATE, HIDDEN], np.float32, name="gate_up")
    body_down = ops.parameter([EXPERTS, HIDDEN, INTERMEDIATE], np.float32, name="down")
    body_acc = ops.parameter([-1, HIDDEN], np.float32, name="acc")
    ends = ops.concat([_i64(0), body_offsets], 0)
    start = ops.gather(ends, i, _s(0))
    end = ops.gather(ends, ops.add(i, _s(1)), _s(0))
    part = ops.slice(body_rows, ops.reshape(start, _i64(1), False), ops.reshape(end, _i64(1), False), _i64(1),
                     _i64(0))
    hidden = _swiglu(ops, ops.matmul(part, ops.gather(body_gate_up, i, _s(0)), False, True))
    out = ops.matmul(hidden, ops.gather(body_down, i, _s(0)), False, True)
    acc = ops.scatter_update(body_acc, ops.range(start, end, _s(1), "i64"), out, _s(0))
    condition = ops.constant(np.array(True))
    body = ov.Model([condition, acc], [i, body_rows, body_offsets, body_gate_up, body_down, body_acc], "expert")
    loop = ops8.loop(_s(EXPERTS), ops.constant(np.array(True)))
    loop.set_function(body)
    loop.set_special_body_ports([0, 0])
    for param, value in ((body_rows, rows), (body_offsets, offsets), (body_gate_up, gate_up), (body_down, down)):
        loop.set_invariant_input(param, value.output(0))
    zeros = ops.broadcast(ops.constant(np.float32(0)), ops.shape_of(rows))
    loop.set_merged_input(body_acc, zeros.output(0), acc.output(0))
    return loop.get_iter_value(acc.output(0), -1)


def time_layers(tokens: list[int], repeat: int, config: dict) -> dict:
    """Median milliseconds per call of each form at each token count, forms interleaved."""
    import openvino as ov
    core = ov.Core()
    compiled = {f: core.compile_model(build_layer(f), "CPU", config) for f in FORMS}
    rng = np.random.default_rng(1)
    inputs = {t: rng.standard_normal((t, HIDDEN)).astype(np.float32) for t in tokens}
    reference = {t: compiled["dense"](inputs[t])[0] for t in tokens}
    runs = [(f, t) for t in tokens for f in FORMS if f != "gathered" or t <= GATHERED_MAX]
    for f, t in runs:
        got = compiled[f](inputs[t])[0]
        err = float(np.abs(got - reference[t]).max() / (np.abs(reference[t]).max() + 1e-12))
        if err > 2e-2:
            raise AssertionError(f"{f} differs from dense at {t} tokens by {err:.3g}")
    times = {run: [] for run in runs}
    requests = {f: c.create_infer_request() for f, c in compiled.items()}
    for _ in range(repeat):
        for f, t in runs:
            started = time.perf_counter()
            requests[f].infer([inputs[t]])
            times[f, t].append((time.perf_counter() - started) * 1000)
    return {k: statistics.median(v) for k, v in times.items()}


# ---- whole model: mo before / after -------------------------------------------------------------

MODEL_CONFIG = dict(hidden_size=512, intermediate_size=1792, num_hidden_layers=4, num_attention_heads=8,
                    num_key_value_heads=2, num_local_experts=8, num_experts_per_tok=2, vocab_size=4000,
                    max_position_embeddings=2048)


def make_checkpoint(folder: str) -> None:
    import torch
    import transformers
    torch.manual_seed(0)
    model = transformers.MixtralForCausalLM(transformers.MixtralConfig(**MODEL_CONFIG))
    model.save_pretrained(folder)


def convert_with(root: str, folder: str, out: str) -> str:
    """The stateful IR of the model of ``folder`` by the mo of checkout ``root`` (a separate process,
    the model object loaded with transformers: an older mo may not read MoE checkpoint folders)."""
    script = ("import sys, transformers; from mo import convert_model; "
              "model = transformers.AutoModelForCausalLM.from_pretrained(sys.argv[1]); "
              "convert_model(model, output_dir=sys.argv[2], model_name='model')")
    subprocess.run([sys.executable, "-c", script, folder, out], env=dict(os.environ, PYTHONPATH=root), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.join(out, "model.xml")


def time_models(paths: dict, prompts: list[int], decode_steps: int, repeat: int, config: dict) -> dict:
    """Median ms of a prompt and of one decoded token, per IR, runs interleaved."""
    import openvino as ov
    core = ov.Core()
    requests = {k: core.compile_model(p, "CPU", config).create_infer_request() for k, p in paths.items()}
    rng = np.random.default_rng(0)
    times: dict = {}
    for _ in range(repeat):
        for length in prompts:
            ids = rng.integers(3, MODEL_CONFIG["vocab_size"], (1, length))
            for name, request in requests.items():
                request.reset_state()
                feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "position_ids": np.arange(length)[None],
                        "beam_idx": np.zeros(1, np.int32)}
                started = time.perf_counter()
                logits = request.infer(feed)["logits"]
                times.setdefault((name, "prompt", length), []).append((time.perf_counter() - started) * 1000)
                token = logits[:, -1].argmax(-1)[:, None]
                steps = []
                for step in range(decode_steps):
                    feed = {"input_ids": token, "attention_mask": np.ones((1, length + step + 1), np.int64),
                            "position_ids": np.array([[length + step]]), "beam_idx": np.zeros(1, np.int32)}
                    started = time.perf_counter()
                    token = request.infer(feed)["logits"][:, -1].argmax(-1)[:, None]
                    steps.append((time.perf_counter() - started) * 1000)
                times.setdefault((name, "decode", length), []).append(statistics.median(steps))
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, nargs="+", default=[1, 32, 384])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--precision", default="f32", help="INFERENCE_PRECISION_HINT (f32, bf16; '' = default)")
    parser.add_argument("--model", action="store_true", help="time a whole Mixtral-shaped model converted by mo")
    parser.add_argument("--before", help="a checkout of mo to compare with (--model)")
    args = parser.parse_args()
    config = {"INFERENCE_PRECISION_HINT": args.precision} if args.precision else {}
    if not args.model:
        result = time_layers(args.tokens, args.repeat, config)
        print(f"expert layer hidden {HIDDEN}, intermediate {INTERMEDIATE}, {EXPERTS} experts, top-{TOP_K}; "
              f"median ms of {args.repeat} interleaved runs, precision {args.precision or 'default'}")
        print(f"{'form':10s}" + "".join(f"{f'{t} tok':>12s}" for t in args.tokens))
        for f in FORMS:
            print(f"{f:10s}" + "".join(f"{result[f, t]:12.2f}" if (f, t) in result else f"{'-':>12s}"
                                        for t in args.tokens))
        return 0
    with tempfile.TemporaryDirectory() as work:
        folder = os.path.join(work, "mixtral")
        make_checkpoint(folder)
        paths = {"mo": convert_with(ROOT, folder, os.path.join(work, "after"))}
        if args.before:
            paths["before"] = convert_with(args.before, folder, os.path.join(work, "before"))
        prompts = [t for t in args.tokens if t > 1] or [32]
        result = time_models(paths, prompts, 8, args.repeat, config)
    print(f"Mixtral-shaped model {MODEL_CONFIG}; median ms, {args.repeat} interleaved runs, precision "
          f"{args.precision or 'default'}")
    for name in paths:
        for length in prompts:
            print(f"{name:7s} prompt {length:4d} tokens: {result[name, 'prompt', length]:8.2f} ms   "
                  f"decode after it: {result[name, 'decode', length]:7.2f} ms/token")
    return 0


if __name__ == "__main__":
    sys.exit(main())
