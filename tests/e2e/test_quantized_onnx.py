"""ONNX models quantized by ONNX Runtime run in int8: QDQ and QOperator (static, u8/i8 activations,
per-tensor and per-channel weights) and dynamic quantization. Each converts with mo's defaults,
computes what ONNX Runtime computes for the quantized model (within quantization steps), and the
CPU plugin executes its convolutions and matrix products in u8/i8 wherever it does for OpenVINO's
own converter's IR of the same model (of its QDQ form where ovc cannot convert the QOperator one)."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.e2e.test_cli import run_mo
from tests.utils import quantized_models as qm
from tests.utils.onnx_models import run_onnxruntime
from tests.utils.quantized_models import assert_quantized_close, assert_runs_int8
from tests.utils.runtime import run_ir


def convert_mo(model: str, tmp_path) -> str:
    """mo's IR of ``model`` with the defaults."""
    xml = str(tmp_path / "mo" / "model.xml")
    r = run_mo(model, "--output_model", xml)
    assert r.returncode == 0, r.stderr
    return xml


def convert_ovc(model: str, tmp_path) -> str:
    """OpenVINO's converter's IR of ``model`` with its defaults."""
    xml = str(tmp_path / "ovc" / "model.xml")
    ovc = os.path.join(os.path.dirname(sys.executable), "ovc")
    done = subprocess.run([ovc, model, "--output_model", xml], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return xml


def quantize_both(path: str, tmp_path, feeds: list[dict], fmt: str, **options) -> tuple[str, str]:
    """(the model quantized in ``fmt``, OpenVINO's converter's IR of the same quantization): ovc
    converts no QOperator model (ORT's contrib ops), so the bar there is its IR of the QDQ form."""
    quantized = str(tmp_path / "quantized.onnx")
    qm.quantize_static(path, quantized, feeds, fmt=fmt, **options)
    if fmt == "QDQ":
        return quantized, convert_ovc(quantized, tmp_path)
    qdq = str(tmp_path / "quantized_qdq.onnx")
    qm.quantize_static(path, qdq, feeds, fmt="QDQ", **options)
    return quantized, convert_ovc(qdq, tmp_path)


def cnn_case(tmp_path) -> tuple[str, list[np.ndarray]]:
    path = str(tmp_path / "cnn.onnx")
    x = qm.export_image_model(qm.small_cnn(), path, size=32)
    return path, [x]


# u8 weights (with zero points): the CPU plugin runs convolutions in int8 only with i8 weights,
# for OpenVINO's converter's IR as for mo's: the layers stay in float (checked as no fewer than ovc)
@pytest.mark.parametrize("fmt,activation,weight,per_channel,int8", [
    ("QDQ", "QUInt8", "QInt8", True, 4),
    ("QDQ", "QInt8", "QInt8", False, 4),
    ("QDQ", "QUInt8", "QUInt8", False, None),
    ("QOperator", "QUInt8", "QInt8", True, 4),
    ("QOperator", "QInt8", "QInt8", False, 4),
])
def test_static_quantized_cnn_runs_in_int8(tmp_path, fmt, activation, weight, per_channel, int8):
    path, inputs = cnn_case(tmp_path)
    quantized, ovc_xml = quantize_both(path, tmp_path, [{"input": inputs[0]}], fmt, activation=activation,
                                       weight=weight, per_channel=per_channel)
    mo_xml = convert_mo(quantized, tmp_path)
    x = np.random.default_rng(1).standard_normal((2, 3, 32, 32)).astype(np.float32)
    assert_quantized_close(run_ir(mo_xml, [x])[0], run_onnxruntime(quantized, [x])[0])
    low, total = assert_runs_int8(mo_xml, ovc_xml)
    assert int8 is None or low == total == int8


@pytest.mark.parametrize("fmt", ["QDQ", "QOperator"])
def test_static_quantized_transformer_runs_in_int8(tmp_path, fmt):
    path = str(tmp_path / "bert.onnx")
    feed = qm.export_bert(path, hidden=64, layers=2, heads=4, seq=16, vocab=200)
    quantized, ovc_xml = quantize_both(path, tmp_path, [feed], fmt)
    mo_xml = convert_mo(quantized, tmp_path)
    inputs = [feed["input_ids"], feed["attention_mask"]]
    assert_quantized_close(run_ir(mo_xml, inputs)[0], run_onnxruntime(quantized, inputs)[0], steps=6)
    low, _ = assert_runs_int8(mo_xml, ovc_xml)
    assert low >= 12    # Q, K, V, output and two feed-forward projections in each of 2 layers


def test_dynamic_quantized_transformer_keeps_integer_weights(tmp_path):
    """quantize_dynamic's DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul chains become
    MatMuls of the float activations and the i8 weights: the CPU runs them as FullyConnected layers
    with i8 weights (OpenVINO's converter's IR computes every one in float), within the activations'
    quantization step of ONNX Runtime."""
    path = str(tmp_path / "bert.onnx")
    feed = qm.export_bert(path, hidden=64, layers=2, heads=4, seq=16, vocab=200)
    quantized = str(tmp_path / "quantized.onnx")
    qm.quantize_dynamic(path, quantized)
    mo_xml, ovc_xml = convert_mo(quantized, tmp_path), convert_ovc(quantized, tmp_path)
    inputs = [feed["input_ids"], feed["attention_mask"]]
    assert_quantized_close(run_ir(mo_xml, inputs)[0], run_onnxruntime(quantized, inputs)[0], steps=6)
    low, _ = assert_runs_int8(mo_xml, ovc_xml)
    assert low >= 12


def test_report_and_summary_count_quantized_layers(tmp_path):
    path, inputs = cnn_case(tmp_path)
    static, dynamic = str(tmp_path / "static.onnx"), str(tmp_path / "dynamic.onnx")
    qm.quantize_static(path, static, [{"input": inputs[0]}])
    qm.quantize_dynamic(path, dynamic)
    r = run_mo(static, "-o", str(tmp_path / "s"), "--report")
    assert r.returncode == 0 and "Quantized layers: 4 of 4 convolutions and matrix products" in r.stdout, r.stdout
    r = run_mo(dynamic, "-o", str(tmp_path / "d"), "--log_level", "INFO")
    assert "Quantized layers: 0 of 4 convolutions and matrix products" in r.stdout + r.stderr
    assert "4 integer weights only" in r.stdout + r.stderr
