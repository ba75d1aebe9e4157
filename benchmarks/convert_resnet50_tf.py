"""Conversion time and peak memory of Keras ResNet50 from TensorFlow, mo beside ovc.

Builds ``keras.applications.ResNet50(weights=None)`` (224x224x3 input, 25.6 M random weights,
about 100 MB) in a child process and writes it as a frozen GraphDef (.pb) and as a SavedModel,
then converts each with ``python mo.py`` and with ``ovc`` (when the openvino package is
installed) as whole processes, a few times each with float32 weights kept
(--compress_to_fp16=False for both), and prints wall time and peak resident memory (from the
kernel's rusage of each child process) plus the IR layer and Transpose counts.

    python benchmarks/convert_resnet50_tf.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.convert_resnet50_onnx import build_in_child, run_measured  # noqa: E402


def build_resnet50(folder: str) -> tuple[str, str]:
    """Write the frozen .pb and the SavedModel into ``folder``; returns their paths."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    model = keras.applications.ResNet50(weights=None, input_shape=(224, 224, 3), classifier_activation=None)
    spec = tf.TensorSpec((None, 224, 224, 3), tf.float32, name="image")
    concrete = tf.function(lambda x: model(x, training=False)).get_concrete_function(spec)
    frozen = convert_variables_to_constants_v2(concrete, lower_control_flow=False)
    pb = os.path.join(folder, "resnet50.pb")
    with open(pb, "wb") as f:
        f.write(frozen.graph.as_graph_def().SerializeToString())
    saved = os.path.join(folder, "resnet50_saved_model")
    model.export(saved, verbose=False)
    return pb, saved


def ir_counts(xml: str) -> tuple[int, int]:
    """(layers, Transposes) of an IR's main graph."""
    from defusedxml import ElementTree
    layers = list(ElementTree.parse(xml).getroot().find("layers"))
    return len(layers), sum(1 for layer in layers if layer.get("type") == "Transpose")


def find_ovc() -> str | None:
    local = os.path.join(os.path.dirname(sys.executable), "ovc")
    return shutil.which("ovc") or (local if os.path.exists(local) else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", default=os.path.join(ROOT, "benchmarks", "results"))
    parser.add_argument("--build-only", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        print(" ".join(build_resnet50(args.build_only)))   # one line: build_in_child reads the last
        return
    os.makedirs(args.workdir, exist_ok=True)
    pb, saved = build_in_child(__file__, args.workdir).split()
    print(f"model: {pb} ({os.path.getsize(pb) / 2**20:.0f} MiB) and SavedModel {saved}")
    out = tempfile.mkdtemp(prefix="mo_bench_tf_")
    mo = [sys.executable, os.path.join(ROOT, "mo.py"), "--compress_to_fp16=False"]
    runs = {"mo (.pb)": (mo + ["--input_model", pb, "--output_dir", os.path.join(out, "mo_pb"), "-n", "resnet50"],
                         os.path.join(out, "mo_pb", "resnet50.xml")),
            "mo (SavedModel)": (mo + ["--saved_model_dir", saved, "--output_dir", os.path.join(out, "mo_sm"),
                                      "-n", "resnet50"], os.path.join(out, "mo_sm", "resnet50.xml"))}
    ovc = find_ovc()
    if ovc:
        for label, model, sub in (("ovc (.pb)", pb, "ovc_pb"), ("ovc (SavedModel)", saved, "ovc_sm")):
            xml = os.path.join(out, sub, "resnet50.xml")
            runs[label] = ([ovc, model, "--output_model", xml, "--compress_to_fp16=False"], xml)
    print(f"{'converter':18s} {'best wall s':>12s} {'median wall s':>14s} {'peak RSS MiB':>13s} {'IR layers':>10s} "
          f"{'Transposes':>11s}")
    for label, (cmd, xml) in runs.items():
        measured = [run_measured(cmd) for _ in range(args.repeat)]
        walls = sorted(m[0] for m in measured)
        peak = max(m[1] for m in measured)
        layers, transposes = ir_counts(xml)
        print(f"{label:18s} {walls[0]:12.2f} {walls[len(walls) // 2]:14.2f} {peak:13.0f} {layers:10d} {transposes:11d}")
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
