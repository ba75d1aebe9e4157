"""Conversion time and peak memory of a ResNet-50-sized ONNX model, mo beside ovc.

Builds the model with the onnx helper API (the torchvision ResNet-50 architecture as an eval-mode
export has it: Conv with folded BatchNorm as bias, Relu, MaxPool, residual Add,
GlobalAveragePool, Flatten, Gemm; 25.5 M random weights, about 100 MB), then converts it with
``python mo.py`` and with ``ovc`` (when the openvino package is installed) as whole processes, a
few times each with float32 weights kept (--compress_to_fp16=False for both), and prints wall
time and peak resident memory (from the kernel's rusage of each child process) plus the IR layer
counts.

    python benchmarks/convert_resnet50_onnx.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_resnet50(path: str) -> int:
    """Write the model to ``path``; returns the number of weight bytes."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    nodes, inits = [], []
    counter = [0]

    def name(prefix):
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def conv(x, cin, cout, k, stride=1, relu=True):
        w, b, y = name("w"), name("b"), name("conv")
        fan_in = cin * k * k
        inits.append(numpy_helper.from_array(
            (rng.standard_normal((cout, cin, k, k)) * np.sqrt(2 / fan_in)).astype(np.float32), w))
        inits.append(numpy_helper.from_array((rng.standard_normal(cout) * 0.01).astype(np.float32), b))
        nodes.append(helper.make_node("Conv", [x, w, b], [y], name=y, kernel_shape=[k, k], strides=[stride, stride],
                                      pads=[k // 2] * 4))
        if not relu:
            return y
        r = name("relu")
        nodes.append(helper.make_node("Relu", [y], [r], name=r))
        return r

    x = conv("input", 3, 64, 7, 2)
    p = name("pool")
    nodes.append(helper.make_node("MaxPool", [x], [p], name=p, kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4))
    x, cin = p, 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            s = stride if i == 0 else 1
            h = conv(x, cin, width, 1)
            h = conv(h, width, width, 3, s)
            h = conv(h, width, width * 4, 1, relu=False)
            short = conv(x, cin, width * 4, 1, s, relu=False) if i == 0 else x
            a, r = name("add"), name("relu")
            nodes += [helper.make_node("Add", [h, short], [a], name=a), helper.make_node("Relu", [a], [r], name=r)]
            x, cin = r, width * 4
    nodes += [helper.make_node("GlobalAveragePool", [x], ["gap"], name="gap"),
              helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
              helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], name="fc", transB=1)]
    inits += [numpy_helper.from_array((rng.standard_normal((1000, 2048)) * 0.01).astype(np.float32), "fc.w"),
              numpy_helper.from_array(np.zeros(1000, np.float32), "fc.b")]
    graph = helper.make_graph(nodes, "resnet50",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 224, 224])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1000])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)
    return sum(int(np.prod(t.dims)) * 4 for t in inits)


def build_in_child(script: str, target: str) -> str:
    """Run ``script --build-only target`` in a child process and return the last line it prints.
    The model is built there so the benchmark process stays small and the converters it starts
    (whose peak memory is measured) do not inherit a large address space."""
    out = subprocess.run([sys.executable, script, "--build-only", target], check=True, capture_output=True,
                         text=True).stdout
    return out.strip().splitlines()[-1]


def run_measured(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one child process."""
    from measure import run_measured as measured
    run = measured(cmd)
    return run.wall, run.peak / 2 ** 20


def layer_count(xml: str) -> int:
    from defusedxml import ElementTree
    return sum(1 for _ in ElementTree.parse(xml).getroot().find("layers"))


def print_comparison(converters: dict[str, list[str]], out: str, xml_name: str, repeat: int) -> None:
    """Run the converter commands ``repeat`` times each, in turns, and print each one's best and
    median wall time, peak memory and the layer count of the IR it wrote to
    ``out/<label>/<xml_name>``."""
    from measure import run_alternately
    print(f"{'converter':10s} {'best wall s':>12s} {'median wall s':>14s} {'peak RSS MiB':>13s} {'IR layers':>10s}")
    results = run_alternately({label: (cmd, None) for label, cmd in converters.items()}, repeat)
    for label, r in results.items():
        xml = os.path.join(out, label, xml_name)
        print(f"{label:10s} {r.best_wall:12.2f} {r.median_wall:14.2f} {r.peak / 2 ** 20:13.0f} {layer_count(xml):10d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", default=os.path.join(ROOT, "benchmarks", "results"))
    parser.add_argument("--build-only", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        print(build_resnet50(args.build_only))
        return
    os.makedirs(args.workdir, exist_ok=True)
    model = os.path.join(args.workdir, "resnet50.onnx")
    weights = int(build_in_child(__file__, model))
    print(f"model: {model} ({os.path.getsize(model) / 2**20:.0f} MiB file, {weights / 2**20:.0f} MiB weights)")
    out = tempfile.mkdtemp(prefix="mo_bench_")
    converters = {"mo": [sys.executable, os.path.join(ROOT, "mo.py"), "--input_model", model,
                         "--output_dir", os.path.join(out, "mo"), "--compress_to_fp16=False"]}
    ovc = shutil.which("ovc") or (os.path.join(os.path.dirname(sys.executable), "ovc")
                                  if os.path.exists(os.path.join(os.path.dirname(sys.executable), "ovc")) else None)
    if ovc:
        converters["ovc"] = [ovc, model, "--output_model", os.path.join(out, "ovc", "resnet50.xml"),
                             "--compress_to_fp16=False"]
    print_comparison(converters, out, "resnet50.xml", args.repeat)
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
