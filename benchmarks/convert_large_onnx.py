"""Peak memory and time of converting a large ONNX model with external data, mo beside ovc.

Builds a synthetic MLP stack shaped like a transformer's feed-forward half (per layer: a
decomposed LayerNorm, MatMul hidden->4*hidden, Add bias, erf Gelu, MatMul 4*hidden->hidden, Add
bias, residual Add) with its weights in one external data file, written chunk by chunk so the
builder never holds more than a few MiB of them. Then converts it with ``python mo.py`` and with
``ovc`` as whole processes, with the default options (fp16 compression on) and with
``--compress_to_fp16=False``, and prints wall time and peak resident memory (from the kernel's
rusage of each child) and the ratio of peak memory to the weights.

    python benchmarks/convert_large_onnx.py [--size-mb 3072] [--repeat 2] [--only mo]
        [--mo-args "--compress_weights int8"]

``--mo-args`` passes more options to mo (then only mo runs: ovc has no such options).

``measure_mo(size_mb)`` is what the tests use, at a few tens of MiB.
"""
from __future__ import annotations

import argparse
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from measure import ROOT, Run, mo_command, production_env, run_converters, run_measured  # noqa: E402

MIB = 2 ** 20
ALIGN = 4096
CHUNK = 8 * MIB


def layer_shape(size_bytes: int) -> tuple[int, int]:
    """(hidden size, layer count) for about ``size_bytes`` of float32 weights: 8*hidden^2 values
    per layer, hidden 2048 for large models, smaller (a multiple of 64) for small ones."""
    hidden = min(2048, max(64, int(math.sqrt(size_bytes / (32 * 4))) // 64 * 64))
    layers = max(1, round(size_bytes / (32 * hidden * hidden)))
    return hidden, layers


class _DataFile:
    """The external data file: tensors appended at 4 KiB-aligned offsets, each written in
    chunks of random values generated as they are written."""

    def __init__(self, path: str, seed: int = 0):
        self.path = path
        self.stream = open(path, "wb")
        self.offset = 0
        self.rng = np.random.default_rng(seed)

    def add(self, name: str, shape: tuple[int, ...], scale: float, base: float = 0.0):
        from onnx import TensorProto
        pad = -self.offset % ALIGN
        if pad:
            self.stream.write(b"\0" * pad)
            self.offset += pad
        count = int(np.prod(shape))
        left = count
        while left:
            n = min(left, CHUNK // 4)
            chunk = self.rng.standard_normal(n, dtype=np.float32)
            chunk *= scale
            chunk += base
            self.stream.write(chunk.tobytes())
            left -= n
        tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=list(shape))
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in (("location", os.path.basename(self.path)), ("offset", str(self.offset)),
                           ("length", str(count * 4))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value
        self.offset += count * 4
        return tensor

    def close(self) -> None:
        self.stream.close()


def build_model(path: str, size_mb: float) -> int:
    """Write ``path`` and ``path + '.data'``; returns the number of weight bytes."""
    from onnx import TensorProto, helper

    hidden, layers = layer_shape(int(size_mb * MIB))
    data = _DataFile(path + ".data")
    nodes, inits = [], []

    def const(name, value):
        inits.append(helper.make_tensor(name, TensorProto.FLOAT, [], [value]))
        return name

    eps, two, half, one, sqrt2 = (const("eps", 1e-5), const("two", 2.0), const("half", 0.5), const("one", 1.0),
                                  const("sqrt2", math.sqrt(2.0)))
    x = "input"
    for i in range(layers):
        p = f"l{i}."

        def op(kind, inputs, **attrs):
            out = f"{p}{kind.lower()}{len(nodes)}"
            nodes.append(helper.make_node(kind, inputs, [out], name=out, **attrs))
            return out

        inits.append(data.add(p + "ln.gamma", (hidden,), 0.1, 1.0))
        inits.append(data.add(p + "ln.beta", (hidden,), 0.1))
        inits.append(data.add(p + "fc1.w", (hidden, 4 * hidden), 1 / math.sqrt(hidden)))
        inits.append(data.add(p + "fc1.b", (4 * hidden,), 0.01))
        inits.append(data.add(p + "fc2.w", (4 * hidden, hidden), 1 / math.sqrt(4 * hidden)))
        inits.append(data.add(p + "fc2.b", (hidden,), 0.01))
        mean = op("ReduceMean", [x], axes=[-1])
        centered = op("Sub", [x, mean])
        var = op("ReduceMean", [op("Pow", [centered, two])], axes=[-1])
        normed = op("Div", [centered, op("Sqrt", [op("Add", [var, eps])])])
        h = op("Add", [op("Mul", [normed, p + "ln.gamma"]), p + "ln.beta"])
        h = op("Add", [op("MatMul", [h, p + "fc1.w"]), p + "fc1.b"])
        h = op("Mul", [op("Mul", [h, op("Add", [op("Erf", [op("Div", [h, sqrt2])]), one])]), half])
        h = op("Add", [op("MatMul", [h, p + "fc2.w"]), p + "fc2.b"])
        x = op("Add", [x, h])
    nodes.append(helper.make_node("Identity", [x], ["output"], name="output"))
    data.close()
    graph = helper.make_graph(
        nodes, "mlp_stack", [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", "seq", hidden])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", "seq", hidden])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return weight_bytes(size_mb)


def weight_bytes(size_mb: float) -> int:
    """Bytes of the weights of the model ``build_model`` writes for ``size_mb``."""
    hidden, layers = layer_shape(int(size_mb * MIB))
    return layers * (8 * hidden * hidden + 7 * hidden) * 4


def build_in_child(path: str, size_mb: float) -> int:
    """Build the model in a child process (this one stays small, so the converters it starts do
    not inherit a large address space); returns the weight bytes."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--build-only", path, "--size-mb", str(size_mb)],
                         check=True, capture_output=True, text=True).stdout
    return int(out.strip().splitlines()[-1])


def fp16_options(fp16: bool) -> tuple[str, ...]:
    return () if fp16 else ("--compress_to_fp16=False",)


def measure_mo(size_mb: float, workdir: str, fp16: bool = True, extra: tuple[str, ...] = ()) -> tuple[int, Run]:
    """Build a model of ``size_mb`` MiB of weights in ``workdir`` and convert it with mo in a
    child process, with the options ``extra`` too; returns (weight bytes, the measured run)."""
    model = os.path.join(workdir, "model.onnx")
    weights = build_in_child(model, size_mb)
    run = run_measured(mo_command(model, os.path.join(workdir, "out"), *fp16_options(fp16), *extra),
                       production_env())
    return weights, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=3072, help="weights in MiB (default 3072)")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", choices=("mo", "ovc"), help="run one converter")
    parser.add_argument("--fp16", choices=("on", "off", "both"), default="both")
    parser.add_argument("--rebuild", action="store_true", help="build the model even if the workdir has it")
    parser.add_argument("--workdir", default=os.path.join(ROOT, "benchmarks", "results"))
    parser.add_argument("--build-only", metavar="PATH", help=argparse.SUPPRESS)
    parser.add_argument("--mo-args", default="", help="more options for mo, e.g. \"--compress_weights int8\" "
                        "(then only mo runs)")
    args = parser.parse_args()
    if args.build_only:
        print(build_model(args.build_only, args.size_mb))
        return
    os.makedirs(args.workdir, exist_ok=True)
    model = os.path.join(args.workdir, f"mlp_{int(args.size_mb)}mb.onnx")
    started = time.perf_counter()
    if args.rebuild or not os.path.exists(model):   # the build is deterministic: an earlier one is reused
        build_in_child(model, args.size_mb)
    weights = weight_bytes(args.size_mb)
    hidden, layers = layer_shape(int(args.size_mb * MIB))
    print(f"model: {model} + .data ({weights / MIB:.0f} MiB weights, {layers} layers of hidden size {hidden}; "
          f"ready in {time.perf_counter() - started:.1f} s)")
    out = tempfile.mkdtemp(prefix="mo_bench_", dir=args.workdir)
    modes = {"on": [True], "off": [False], "both": [True, False]}[args.fp16]
    extra = tuple(shlex.split(args.mo_args))
    if extra:
        print(f"mo options: {' '.join(extra)}")
    print(f"{'converter':10s} {'fp16':5s} {'best wall s':>12s} {'median wall s':>14s} {'best CPU s':>11s} "
          f"{'peak RSS MiB':>13s} {'peak/weights':>13s}")
    try:
        for fp16 in modes:
            for label, r in run_converters(model, out, fp16_options(fp16) + extra, args.repeat,
                                           "mo" if extra else args.only):
                print(f"{label:10s} {'on' if fp16 else 'off':5s} {r.best_wall:12.2f} {r.median_wall:14.2f} "
                      f"{r.best_cpu:11.2f} {r.peak / MIB:13.0f} {r.peak / weights:13.2f}", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
