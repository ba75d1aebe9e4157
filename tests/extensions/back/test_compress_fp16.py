"""--compress_to_fp16: f16 constants with a decompression Convert; out-of-range values stay f32."""
import numpy as np
import pytest
from defusedxml import ElementTree
from onnx import TensorProto, helper

from extensions.back.compress_fp16 import CompressWeightsToFP16
from mo import convert_model
from tests.utils.onnx_models import conv_relu_model, make_model, run_onnxruntime
from tests.utils.reference import assert_rewrite, assert_untouched
from tests.utils.runtime import assert_close, run_ir


def _layers(xml):
    return list(ElementTree.parse(xml).getroot().find("layers"))


def test_default_compresses_weights(tmp_path):
    model = conv_relu_model()
    paths = convert_model(input_model=model, output_dir=str(tmp_path))
    layers = _layers(paths.xml)
    consts = {layer.get("name"): layer.find("data").get("element_type") for layer in layers
              if layer.get("type") == "Const"}
    assert consts["w_compressed"] == "f16"           # 108 weights
    assert sorted(consts.values()) == ["f16", "f32"]  # the 4 bias values: too small to be worth it
    converts = [layer for layer in layers if layer.get("type") == "Convert"]
    assert converts and all(c.find("rt_info/attribute").get("name") == "decompression" for c in converts)
    x = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(np.float32)
    assert_close(run_ir(paths.xml, [x]), run_onnxruntime(model, [x]), rtol=1e-2, atol=1e-2)


def test_out_of_range_and_disabled(tmp_path):
    big = np.full(32, 2.0, np.float32)
    big[3] = 1e6
    tiny = np.full(32, 1e-12, np.float32)
    model = make_model([helper.make_node("Add", ["x", "big"], ["a"]), helper.make_node("Mul", ["a", "tiny"], ["y"])],
                       [("x", TensorProto.FLOAT, [32])], [("y", TensorProto.FLOAT, [32])], {"big": big, "tiny": tiny})
    paths = convert_model(input_model=model, output_dir=str(tmp_path / "a"))
    types = {layer.get("name"): layer.find("data").get("element_type")
             for layer in _layers(paths.xml) if layer.get("type") == "Const"}
    assert types == {"big": "f32", "tiny": "f32"}
    off = convert_model(input_model=conv_relu_model(), output_dir=str(tmp_path / "b"), compress_to_fp16=False)
    assert not [layer for layer in _layers(off.xml) if layer.get("type") == "Convert"]


# ------------------------------------------------------------------ reference interpreter
def _scaled_by(weights):
    def build(b):
        x = b.Parameter(shape=(2, weights.size), element_type="f32", name="x")
        return b.Multiply(x, weights)
    return build


def test_weights_become_f16_with_a_decompression_convert():
    w = np.random.default_rng(1).standard_normal(32).astype(np.float32)
    g = assert_rewrite(_scaled_by(w), CompressWeightsToFP16, expect_ops=["Convert", "Multiply"], rtol=1e-3, atol=1e-3)
    convert = g.nodes_by_op("Convert")[0]
    compressed = convert.in_port(0).get_source().node       # stored as f16 (converted while the .bin is written)
    assert compressed.element_type == "f16" and "decompression" in convert.rt_info


@pytest.mark.parametrize("weights", [
    np.arange(8, dtype=np.float32),                             # too few values to be worth it
    np.array([1e6] + [1.0] * 31, np.float32),                   # beyond the float16 range
    np.full(32, 1e-12, np.float32),                             # would flush to zero
    np.arange(32, dtype=np.float64),                            # not f32
], ids=["small", "out_of_range", "tiny", "f64"])
def test_constants_that_do_not_fit_stay(weights):
    assert_untouched(_scaled_by(weights), CompressWeightsToFP16)
