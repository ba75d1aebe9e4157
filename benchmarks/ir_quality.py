"""IR quality beside ovc: layer count of the IR and its inference latency in the OpenVINO CPU
runtime, for the end-to-end ONNX models (tests/utils/onnx_zoo.py) and the ResNet-50-sized model
of convert_resnet50_onnx.py.

    python benchmarks/ir_quality.py [--runs 50]

Both converters keep float32 weights. Latency: median of --runs synchronous inferences after a
warm-up, one inference stream, so the two IRs are measured the same way.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def convert_mo(model: str, out: str) -> str:
    subprocess.run([sys.executable, os.path.join(ROOT, "mo.py"), "--input_model", model, "--output_dir", out,
                    "--compress_to_fp16=False", "--model_name", "model"], check=True, capture_output=True)
    return os.path.join(out, "model.xml")


def convert_ovc(model: str, out: str) -> str:
    ovc = os.path.join(os.path.dirname(sys.executable), "ovc")
    xml = os.path.join(out, "model.xml")
    subprocess.run([ovc, model, "--output_model", xml, "--compress_to_fp16=False"], check=True,
                   capture_output=True)
    return xml


def measure(xml: str, inputs: list[np.ndarray], runs: int) -> tuple[int, float]:
    """(layer count, median latency in ms)."""
    import openvino as ov
    core = ov.Core()
    model = core.read_model(xml)
    layers = len(model.get_ordered_ops())
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "NUM_STREAMS": "1"})
    request = compiled.create_infer_request()
    feed = {i: v for i, v in enumerate(inputs)}
    for _ in range(5):
        request.infer(feed)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        request.infer(feed)
        times.append((time.perf_counter() - start) * 1000)
    return layers, float(np.median(times))


def models(workdir: str):
    from tests.utils import onnx_zoo
    for name, build in sorted(onnx_zoo.MODELS.items()):
        path = os.path.join(workdir, f"{name}.onnx")
        yield name, path, build(path)
    resnet = os.path.join(workdir, "resnet50.onnx")
    subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "convert_resnet50_onnx.py"), "--build-only",
                    resnet], check=True, capture_output=True)
    yield "resnet50", resnet, [np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="mo_quality_")
    print(f"{'model':12s} {'mo layers':>10s} {'ovc layers':>11s} {'mo ms':>8s} {'ovc ms':>8s}")
    try:
        for name, path, inputs in models(workdir):
            mo_layers, mo_ms = measure(convert_mo(path, os.path.join(workdir, name, "mo")), inputs, args.runs)
            ovc_layers, ovc_ms = measure(convert_ovc(path, os.path.join(workdir, name, "ovc")), inputs, args.runs)
            print(f"{name:12s} {mo_layers:10d} {ovc_layers:11d} {mo_ms:8.3f} {ovc_ms:8.3f}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
