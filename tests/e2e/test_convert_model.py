"""The Python API and the input/output options, checked against ONNX Runtime."""
import os

import numpy as np
import onnx
import pytest
from defusedxml import ElementTree

from mo import convert_model
from mo.errors import InputModelError, OptionError
from tests.utils.onnx_models import conv_relu_model, run_onnxruntime
from tests.utils.runtime import assert_close, core, run_ir

X = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)


@pytest.fixture
def model_path(tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(conv_relu_model(), str(path))
    return str(path)


def test_convert_model_returns_paths_and_matches(model_path, tmp_path):
    paths = convert_model(input_model=model_path, output_dir=str(tmp_path / "ir"), compress_to_fp16=False)
    assert paths.xml.endswith("model.xml") and os.path.exists(paths.bin)
    assert_close(run_ir(paths.xml, [X]), run_onnxruntime(model_path, [X]))


def test_model_proto_object_and_model_name(tmp_path):
    paths = convert_model(input_model=conv_relu_model(), output_dir=str(tmp_path), model_name="named")
    assert os.path.basename(paths.xml) == "named.xml"


def test_dynamic_batch_kept_and_input_shape_sets_it(model_path, tmp_path):
    dyn = core().read_model(convert_model(input_model=model_path, output_dir=str(tmp_path / "a")).xml)
    assert dyn.input(0).get_partial_shape().is_dynamic
    fixed = convert_model(input_model=model_path, output_dir=str(tmp_path / "b"), input_shape=[2, 3, 8, 8])
    assert list(core().read_model(fixed.xml).input(0).get_shape()) == [2, 3, 8, 8]
    batch = convert_model(input_model=model_path, output_dir=str(tmp_path / "c"), batch=4)
    assert list(core().read_model(batch.xml).input(0).get_shape()) == [4, 3, 8, 8]


def test_output_cut_keeps_only_named_outputs(model_path, tmp_path):
    paths = convert_model(input_model=model_path, output_dir=str(tmp_path), output="z", compress_to_fp16=False)
    (z,) = run_ir(paths.xml, [X])
    assert_close([z], [run_onnxruntime(model_path, [X])[1]])
    types = [layer.get("type") for layer in ElementTree.parse(paths.xml).getroot().iter("layer")]
    assert "ReLU" not in types


def test_input_cut_at_inner_tensor(model_path, tmp_path):
    paths = convert_model(input_model=model_path, output_dir=str(tmp_path), input="c[1,4,8,8]")
    c = np.random.default_rng(1).standard_normal((1, 4, 8, 8)).astype(np.float32)
    y, z = run_ir(paths.xml, [c])
    np.testing.assert_allclose(y, np.maximum(c, 0))
    np.testing.assert_allclose(z, 1 / (1 + np.exp(-c)), rtol=1e-5)


def test_external_data_is_read_and_outside_locations_refused(tmp_path):
    model = conv_relu_model()
    folder = tmp_path / "ext"
    folder.mkdir()
    onnx.save(model, str(folder / "m.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
              location="weights.data", size_threshold=0)
    paths = convert_model(input_model=str(folder / "m.onnx"), output_dir=str(tmp_path / "ir"), compress_to_fp16=False)
    assert_close(run_ir(paths.xml, [X]), run_onnxruntime(conv_relu_model(), [X]))
    os.rename(folder / "weights.data", tmp_path / "weights.data")
    with pytest.raises(InputModelError, match="weights.data"):
        convert_model(input_model=str(folder / "m.onnx"), output_dir=str(tmp_path / "ir2"))
    evil = onnx.load(str(folder / "m.onnx"), load_external_data=False)
    for t in evil.graph.initializer:
        for e in t.external_data:
            if e.key == "location":
                e.value = "../weights.data"
    onnx.save(evil, str(folder / "evil.onnx"))
    with pytest.raises(InputModelError, match="outside the model's folder"):
        convert_model(input_model=str(folder / "evil.onnx"), output_dir=str(tmp_path / "ir3"))


def test_same_input_gives_byte_identical_ir(model_path, tmp_path):
    first = [open(p, "rb").read() for p in convert_model(input_model=model_path, output_dir=str(tmp_path))]
    second = [open(p, "rb").read() for p in convert_model(input_model=model_path, output_dir=str(tmp_path))]
    assert first == second


def test_unknown_option_is_an_error(model_path):
    with pytest.raises(OptionError, match="bogus"):
        convert_model(input_model=model_path, bogus=1)


def test_output_by_node_name_and_port(model_path, tmp_path):
    paths = convert_model(input_model=model_path, output_dir=str(tmp_path), output="conv:0", compress_to_fp16=False)
    (c,) = run_ir(paths.xml, [X])
    relu, _ = run_onnxruntime(model_path, [X])
    np.testing.assert_allclose(np.maximum(c, 0), relu, rtol=1e-5, atol=1e-5)
    with pytest.raises(OptionError, match="not a tensor"):
        convert_model(input_model=model_path, output_dir=str(tmp_path / "bad"), output="nope:0")


def _const_types(xml_text: str) -> list[str]:
    root = ElementTree.fromstring(xml_text)
    return [layer.find("data").get("element_type") for layer in root.iter("layer") if layer.get("type") == "Const"]


def _bert_like():
    import torch
    import transformers
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=100, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=128)
    model = transformers.BertModel(config).eval()
    ids = torch.randint(0, 100, (2, 9))
    with torch.no_grad():
        expected = [v.numpy() for v in model(input_ids=ids).values()]
    return model, {"input_ids": ids}, expected


def test_in_memory_ir_keeps_float32_weights_and_saving_compresses(tmp_path):
    """As OpenVINO's convert_model and save_model: the IR returned in memory computes with the
    model's float32 weights (within 1e-5 of PyTorch), IRModel.save writes them as float16, the
    same files convert_model(..., output_dir=...) writes."""
    model, example, expected = _bert_like()
    ir = convert_model(model, example_input=example)
    assert "f16" not in _const_types(ir.xml)
    assert_close(run_ir(ir, [example["input_ids"].numpy()]), expected, rtol=1e-5, atol=1e-5)

    saved = ir.save(str(tmp_path / "saved" / "bert.xml"))
    with open(saved.xml) as f:
        assert "f16" in _const_types(f.read())
    written = convert_model(model, example_input=example, output_dir=str(tmp_path / "written"), model_name="bert")
    with open(saved.bin, "rb") as a, open(written.bin, "rb") as b:
        assert a.read() == b.read()
    assert_close(run_ir(saved.xml, [example["input_ids"].numpy()]), expected, rtol=1e-2, atol=1e-2)

    kept = ir.save(str(tmp_path / "kept" / "bert.xml"), compress_to_fp16=False)
    assert os.path.getsize(kept.bin) == len(ir.weights) > 1.9 * os.path.getsize(saved.bin)
    assert "f16" not in _const_types(ir.xml)      # saving left the in-memory IR as it was


def test_compress_to_fp16_given_to_the_conversion_decides_what_save_writes(tmp_path):
    model, example, _ = _bert_like()
    f32 = convert_model(model, example_input=example, compress_to_fp16=False)
    with open(f32.save(str(tmp_path / "a.xml")).xml) as f:
        assert "f16" not in _const_types(f.read())
    with open(f32.save(str(tmp_path / "b.xml"), compress_to_fp16=True).xml) as f:
        assert "f16" in _const_types(f.read())
    f16 = convert_model(model, example_input=example, compress_to_fp16=True)
    assert "f16" in _const_types(f16.xml)
