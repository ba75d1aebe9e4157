"""Conversion time and peak memory of a Keras ResNet50 SavedModel, mo (which reads SavedModels
without TensorFlow) beside ovc.

Builds ``keras.applications.ResNet50(weights=None)`` (random weights, about 100 MB) in a child
process and writes it with ``Model.export`` (the signature ``serving_default``), then converts it
with ``python mo.py --saved_model_dir`` and with ``ovc`` (when the openvino package is installed)
as whole processes, ``--repeat`` times each with float32 weights kept, and prints wall time, peak
resident memory (rusage of each child), the IR's layer count and the peak's ratio to the size of
the weights (mo's float32 .bin; the checkpoint of ``Model.export`` holds every variable twice),
and whether mo's run imported TensorFlow (its log says when it falls back).

    python benchmarks/convert_saved_model.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.convert_resnet50_onnx import build_in_child, layer_count, run_measured  # noqa: E402
from benchmarks.convert_resnet50_tf import find_ovc  # noqa: E402


def build_saved_model(folder: str) -> str:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras
    model = keras.applications.ResNet50(weights=None, input_shape=(224, 224, 3), classifier_activation=None)
    path = os.path.join(folder, "resnet50_saved_model")
    model.export(path, verbose=False)
    return path


def checkpoint_mib(path: str) -> float:
    folder = os.path.join(path, "variables")
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)) / 2 ** 20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", default=os.path.join(ROOT, "benchmarks", "results"))
    parser.add_argument("--build-only", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        print(build_saved_model(args.build_only))   # one line: build_in_child reads the last
        return
    os.makedirs(args.workdir, exist_ok=True)
    saved = build_in_child(__file__, args.workdir)
    print(f"model: SavedModel {saved}, checkpoint {checkpoint_mib(saved):.0f} MiB")
    out = tempfile.mkdtemp(prefix="mo_bench_sm_")
    probe = ("import runpy, sys; sys.argv = sys.argv[1:]; "
             "exec('try:\\n runpy.run_path(sys.argv[0], run_name=\"__main__\")\\nexcept SystemExit: pass'); "
             "print('tensorflow imported:', 'tensorflow' in sys.modules)")
    mo_args = ["--saved_model_dir", saved, "--output_dir", os.path.join(out, "mo"), "-n", "resnet50",
               "--compress_to_fp16=False"]
    runs = {"mo": ([sys.executable, os.path.join(ROOT, "mo.py"), *mo_args], os.path.join(out, "mo", "resnet50.xml"))}
    ovc = find_ovc()
    if ovc:
        xml = os.path.join(out, "ovc", "resnet50.xml")
        runs["ovc"] = ([ovc, saved, "--output_model", xml, "--compress_to_fp16=False"], xml)
    print(f"{'converter':10s} {'best wall s':>12s} {'median wall s':>14s} {'peak RSS MiB':>13s} "
          f"{'peak/weights':>13s} {'IR layers':>10s}")
    weights = None
    for label, (cmd, xml) in runs.items():
        measured = [run_measured(cmd) for _ in range(args.repeat)]
        weights = weights or os.path.getsize(xml[:-4] + ".bin") / 2 ** 20
        walls = sorted(m[0] for m in measured)
        peak = max(m[1] for m in measured)
        print(f"{label:10s} {walls[0]:12.2f} {walls[len(walls) // 2]:14.2f} {peak:13.0f} {peak / weights:13.2f} "
              f"{layer_count(xml):10d}")
    print(f"weights: {weights:.0f} MiB")
    import subprocess
    check = subprocess.run([sys.executable, "-c", probe, os.path.join(ROOT, "mo.py"), *mo_args],
                           capture_output=True, text=True)
    print(f"mo: {check.stdout.strip().splitlines()[-1] if check.stdout.strip() else check.stderr[-300:]}")
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
