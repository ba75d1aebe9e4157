"""--compress_to_fp16: f16 constants with a decompression Convert; out-of-range values stay f32."""
import numpy as np
from defusedxml import ElementTree
from onnx import TensorProto, helper

from mo import convert_model
from tests.utils.onnx_models import conv_relu_model, make_model, run_onnxruntime
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
