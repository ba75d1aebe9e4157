"""IR quality beside OpenVINO's converter for the PyTorch and TensorFlow end-to-end suites:
layer count and CPU latency of the IR of each model of tests/e2e/test_pytorch_models.py
(transformers models) and of tests/e2e/test_tf_models.py (keras.applications CNNs).

    python benchmarks/ir_quality_frameworks.py [--suite pytorch|tf|all] [--runs 50]

PyTorch: mo converts the nn.Module through its API (torch.export, trace fallback) and OpenVINO
through openvino.convert_model on the same module and example input. TensorFlow: both convert the
same frozen .pb. Float32 weights on both sides; latency as in ir_quality.py.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from ir_quality import measure  # noqa: E402


def pytorch_models(workdir: str):
    import openvino as ov
    import torch

    from mo import convert_model
    from tests.e2e import test_pytorch_models as suite
    for name in sorted(suite.MODELS):
        torch.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model, inputs = suite.MODELS[name]()
        model.eval()
        feed = [v.numpy() for v in inputs.values()]
        mo_xml = convert_model(input_model=model, example_input=inputs, output_dir=os.path.join(workdir, name, "mo"),
                               compress_to_fp16=False).xml
        ov_xml = os.path.join(workdir, name, "ov", "model.xml")
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ov.save_model(ov.convert_model(model, example_input=inputs), ov_xml, compress_to_fp16=False)
        except Exception as e:   # OpenVINO's converter does not take every model
            print(f"   openvino.convert_model failed on {name}: {str(e).strip().splitlines()[-1][:100]}")
            ov_xml = None
        yield name, mo_xml, ov_xml, feed


def tf_models(workdir: str):
    import subprocess

    import tensorflow as tf

    from tests.e2e import test_tf_models as suite
    from tests.utils.tf_models import freeze, write_pb
    for name in sorted(suite.CNNS):
        make, size, _ = suite.CNNS[name]
        model = make(weights=None, input_shape=(size, size, 3), classifier_activation=None)
        suite.randomise_batch_norms(model)
        spec = tf.TensorSpec((None, size, size, 3), tf.float32, name="image")
        pb = write_pb(freeze(tf.function(lambda x: model(x, training=False)), [spec]),
                      os.path.join(workdir, f"{name}.pb"))
        mo_dir, ov_xml = os.path.join(workdir, name, "mo"), os.path.join(workdir, name, "ov", "model.xml")
        subprocess.run([sys.executable, os.path.join(ROOT, "mo.py"), "--input_model", pb, "--output_dir", mo_dir,
                        "--compress_to_fp16=False", "--model_name", "model"], check=True, capture_output=True)
        subprocess.run([os.path.join(os.path.dirname(sys.executable), "ovc"), pb, "--output_model", ov_xml,
                        "--compress_to_fp16=False"], check=True, capture_output=True)
        feed = [np.random.default_rng(1).uniform(-1, 1, (1, size, size, 3)).astype(np.float32)]
        yield name, os.path.join(mo_dir, "model.xml"), ov_xml, feed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=["pytorch", "tf", "all"], default="all")
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="mo_quality_fw_")
    suites = {"pytorch": pytorch_models, "tf": tf_models}
    chosen = suites if args.suite == "all" else {args.suite: suites[args.suite]}
    print(f"{'suite':8s} {'model':15s} {'mo layers':>10s} {'ov layers':>10s} {'mo ms':>8s} {'ov ms':>8s}")
    try:
        for suite, models in chosen.items():
            for name, mo_xml, ov_xml, feed in models(workdir):
                mo_layers, mo_ms = measure(mo_xml, feed, args.runs)
                if ov_xml is None:
                    print(f"{suite:8s} {name:15s} {mo_layers:10d} {'fails':>10s} {mo_ms:8.3f} {'-':>8s}", flush=True)
                    continue
                ov_layers, ov_ms = measure(ov_xml, feed, args.runs)
                print(f"{suite:8s} {name:15s} {mo_layers:10d} {ov_layers:10d} {mo_ms:8.3f} {ov_ms:8.3f}", flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
