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
from tests.utils.runtime import assert_close, execution_precisions, int8_layers, run_ir


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
    # --compress_weights leaves weights that are integers already as they are
    r = run_mo(static, "-o", str(tmp_path / "s"), "--report", "--compress_weights", "int8")
    assert r.returncode == 0 and "Quantized layers: 4 of 4 convolutions and matrix products" in r.stdout, r.stdout
    assert int8_layers(execution_precisions(str(tmp_path / "s" / "static.xml"))) == (4, 4)
    r = run_mo(dynamic, "-o", str(tmp_path / "d"), "--log_level", "INFO")
    assert "Quantized layers: 0 of 4 convolutions and matrix products" in r.stdout + r.stderr
    assert "4 integer weights only" in r.stdout + r.stderr


def weight_only_model(path: str, kind: str, k: int = 256, n: int = 128, block: int = 32) -> None:
    """MatMul(x, DequantizeLinear(weights)): i8 per output channel, or u4 / i4 in blocks of ``block``
    along the reduction axis (opset 21), with zero points."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    if kind == "i8":
        inits = [numpy_helper.from_array(rng.integers(-127, 127, (k, n)).astype(np.int8), "w"),
                 numpy_helper.from_array((rng.random(n) * 0.01).astype(np.float32), "s")]
        dq, opset = helper.make_node("DequantizeLinear", ["w", "s"], ["wf"], axis=1), 13
    else:
        low, high, middle = (0, 15, 8) if kind == "u4" else (-8, 7, 0)
        t = TensorProto.UINT4 if kind == "u4" else TensorProto.INT4
        inits = [helper.make_tensor("w", t, (k, n), rng.integers(low, high + 1, k * n).tolist()),
                 numpy_helper.from_array((rng.random((k // block, n)) * 0.01).astype(np.float32), "s"),
                 helper.make_tensor("z", t, (k // block, n), [middle] * (k // block * n))]
        dq, opset = helper.make_node("DequantizeLinear", ["w", "s", "z"], ["wf"], axis=0, block_size=block), 21
    graph = helper.make_graph([dq, helper.make_node("MatMul", ["x", "wf"], ["y"])], "weight_only",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", n])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    onnx.save(model, path)


@pytest.mark.parametrize("kind", ["i8", "u4", "i4"])
def test_weight_only_dequantization_keeps_compressed_weights(tmp_path, kind):
    """A weight-only DequantizeLinear (per channel, or blocked 4-bit) stays integer weights the CPU
    multiplies as such, like OpenVINO's converter's IR (the plugin may quantize the activations of
    such a layer on the fly: equal to that IR's results, near ONNX Runtime's)."""
    path = str(tmp_path / "model.onnx")
    weight_only_model(path, kind)
    mo_xml, ovc_xml = convert_mo(path, tmp_path), convert_ovc(path, tmp_path)
    x = np.random.default_rng(1).standard_normal((4, 256)).astype(np.float32)
    assert_close(run_ir(mo_xml, [x]), run_ir(ovc_xml, [x]), rtol=1e-6, atol=1e-6)
    assert_quantized_close(run_ir(mo_xml, [x])[0], run_onnxruntime(path, [x])[0], steps=4)
    assert execution_precisions(mo_xml) == execution_precisions(ovc_xml) == {"FullyConnected": {kind: 1}}


def test_nncf_quantized_model_runs_in_int8(tmp_path):
    """A model quantized by NNCF for ONNX (QDQ with NNCF's own placement and bias correction)."""
    import nncf
    import onnx
    path, inputs = cnn_case(tmp_path)
    quantized = nncf.quantize(onnx.load(path), nncf.Dataset([{"input": inputs[0]}] * 2))
    onnx.save(quantized, str(tmp_path / "nncf.onnx"))
    mo_xml = convert_mo(str(tmp_path / "nncf.onnx"), tmp_path)
    x = np.random.default_rng(1).standard_normal((2, 3, 32, 32)).astype(np.float32)
    assert_quantized_close(run_ir(mo_xml, [x])[0], run_onnxruntime(str(tmp_path / "nncf.onnx"), [x])[0])
    low, total = assert_runs_int8(mo_xml, convert_ovc(str(tmp_path / "nncf.onnx"), tmp_path))
    assert low == total == 4
