"""Quantized models in the OpenVINO CPU runtime: how many convolution / matrix-product layers run
in int8 and the latency, for mo's IR beside OpenVINO's converter's (ovc) IR of the same model.

    python benchmarks/quantized_models.py [--models resnet50,mobilenet_v2,bert] [--format QDQ] [--runs 60]

The models are float networks with random weights (ResNet-50-sized, MobileNetV2, BERT-base),
quantized by ONNX Runtime's static quantization (QDQ, u8 activations, per-channel i8 weights,
MinMax calibration on random inputs), converted by each tool with its defaults and compiled by the
CPU plugin with its defaults (one stream). Latency: median of --runs synchronous inferences, the
two IRs measured in alternating rounds in one process. ``--format QOperator`` quantizes to ORT's
QOperator ops (ovc cannot convert those: it gets the QDQ form of the same quantization);
``--format dynamic`` uses ``quantize_dynamic``.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def build(name: str, folder: str, fmt: str) -> tuple[str, str, dict]:
    """(path of the quantized model, the model OpenVINO's converter gets: the same one, or for the
    QOperator form, which it cannot convert, the QDQ form of the same quantization; a feed)."""
    from benchmarks.convert_resnet50_onnx import build_resnet50
    from tests.utils import quantized_models as qm
    float_path = os.path.join(folder, f"{name}.onnx")
    if name == "resnet50":
        build_resnet50(float_path)
        feed = {"input": np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)}
    elif name == "mobilenet_v2":
        feed = {"input": qm.export_image_model(qm.mobilenet_v2(), float_path)}
    elif name == "bert":
        feed = qm.export_bert(float_path)
    else:
        raise SystemExit(f"unknown model {name}")
    quantized = os.path.join(folder, f"{name}_{fmt.lower()}.onnx")
    if fmt == "dynamic":
        qm.quantize_dynamic(float_path, quantized)
    else:
        qm.quantize_static(float_path, quantized, [feed] * 2, fmt=fmt)
    if fmt != "QOperator":
        return quantized, quantized, feed
    qdq = os.path.join(folder, f"{name}_qdq.onnx")
    qm.quantize_static(float_path, qdq, [feed] * 2, fmt="QDQ")
    return quantized, qdq, feed


def convert(tool: str, model: str, out: str) -> str:
    xml = os.path.join(out, tool, "model.xml")
    if tool == "mo":
        cmd = [sys.executable, os.path.join(ROOT, "mo.py"), model, "--output_model", xml]
    else:
        cmd = [os.path.join(os.path.dirname(sys.executable), "ovc"), model, "--output_model", xml]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    print(f"  {tool}: converted in {time.perf_counter() - start:.1f} s")
    return xml


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="resnet50,mobilenet_v2,bert")
    parser.add_argument("--format", default="QDQ", choices=("QDQ", "QOperator", "dynamic"))
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from mo.runtime.openvino_ir import core
    from tests.utils.runtime import execution_precisions, int8_layers
    print(f"{'model':<14} {'tool':<4} {'int8 layers':>12} {'latency ms':>11}")
    for name in args.models.split(","):
        with tempfile.TemporaryDirectory() as folder:
            model, ovc_model, feed = build(name, folder, args.format)
            xmls = {"mo": convert("mo", model, folder), "ovc": convert("ovc", ovc_model, folder)}
            requests, times = {}, {}
            for tool, xml in xmls.items():
                compiled = core().compile_model(core().read_model(xml), "CPU", {"NUM_STREAMS": "1"})
                requests[tool] = compiled.create_infer_request()
                for _ in range(3):
                    requests[tool].infer(feed)
                times[tool] = []
            per_round = max(1, args.runs // args.rounds)
            for _ in range(args.rounds):
                for tool, request in requests.items():
                    for _ in range(per_round):
                        start = time.perf_counter()
                        request.infer(feed)
                        times[tool].append(time.perf_counter() - start)
            for tool, xml in xmls.items():
                low, total = int8_layers(execution_precisions(xml))
                print(f"{name:<14} {tool:<4} {f'{low} / {total}':>12} {np.median(times[tool]) * 1000:>11.2f}")


if __name__ == "__main__":
    main()
