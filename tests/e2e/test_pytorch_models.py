"""End to end: small transformers models (random weights) through the TorchScript-file CLI path and
the nn.Module Python API path, compared with PyTorch: max |diff| <= 1e-4 * max |PyTorch output|."""
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
import transformers

from mo import convert_model
from tests.utils.runtime import run_ir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _bert():
    config = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=37, max_position_embeddings=64)
    mask = torch.tensor([[1] * 7, [1] * 5 + [0] * 2])
    return transformers.BertModel(config), dict(input_ids=torch.randint(0, 100, (2, 7)), attention_mask=mask)


def _gpt2():
    config = transformers.GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=4, n_positions=64, use_cache=False)
    return transformers.GPT2Model(config), dict(input_ids=torch.randint(0, 100, (2, 7)))


def _vit():
    config = transformers.ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2,
                                    num_attention_heads=4, intermediate_size=37)
    return transformers.ViTModel(config), dict(pixel_values=torch.randn(2, 3, 32, 32))


def _with_statistics(model):
    """BatchNorm layers with realistic running statistics instead of 0 / 1."""
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    return model


def _resnet():
    config = transformers.ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1],
                                       layer_type="bottleneck")
    return _with_statistics(transformers.ResNetModel(config)), dict(pixel_values=torch.randn(2, 3, 32, 32))


def _convnext():
    config = transformers.ConvNextConfig(hidden_sizes=[16, 32], depths=[1, 1], num_stages=2)
    return transformers.ConvNextModel(config), dict(pixel_values=torch.randn(2, 3, 32, 32))


def _mobilenet():
    config = transformers.MobileNetV2Config(image_size=32, depth_multiplier=0.35)
    return _with_statistics(transformers.MobileNetV2Model(config)), dict(pixel_values=torch.randn(2, 3, 32, 32))


MODELS = {"bert": _bert, "gpt2": _gpt2, "vit": _vit, "resnet": _resnet, "convnext": _convnext,
          "mobilenet_v2": _mobilenet}


def _build(name):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, inputs = MODELS[name]()
    model.eval()
    with torch.no_grad():
        expected = [v.numpy() for v in model(**inputs).values() if isinstance(v, torch.Tensor)]
    return model, inputs, expected


def _input_option(inputs) -> str:
    types = {torch.int64: "i64", torch.float32: "f32"}
    return ",".join(f"{k}[{','.join(map(str, v.shape))}]{{{types[v.dtype]}}}" for k, v in inputs.items())


def _assert_matches(xml, inputs, expected):
    actual = run_ir(xml, [v.numpy() for v in inputs.values()])
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape
        ratio = float(np.max(np.abs(a - e)) / np.max(np.abs(e)))
        assert ratio <= 1e-4, f"max |diff| is {ratio:.3g} of max |output|"


@pytest.mark.parametrize("name", list(MODELS))
def test_module_api(name, tmp_path):
    model, inputs, expected = _build(name)
    xml = convert_model(input_model=model, example_input=inputs, output_dir=str(tmp_path),
                        compress_to_fp16=False).xml
    # a transformers model's folder as optimum-intel's clients load it: openvino_model.xml and config.json
    assert os.path.basename(xml) == "openvino_model.xml"
    assert json.load(open(tmp_path / "config.json"))["model_type"] == model.config.model_type
    _assert_matches(xml, inputs, expected)


@pytest.mark.parametrize("name", list(MODELS))
def test_torchscript_file_cli(name, tmp_path):
    model, inputs, expected = _build(name)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(model, example_kwarg_inputs=inputs, strict=False)
    path = str(tmp_path / f"{name}.pt")
    torch.jit.save(traced, path)
    result = subprocess.run([sys.executable, os.path.join(ROOT, "mo.py"), "--input_model", path, "--output_dir",
                             str(tmp_path), "--input", _input_option(inputs), "--compress_to_fp16=False"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    _assert_matches(str(tmp_path / f"{name}.xml"), inputs, expected)


@pytest.mark.parametrize("capture", ["torchscript", "exported_program"])
def test_hybrid_vit_with_static_shapes_compiles_and_matches(capture, tmp_path):
    """timm's vit_small_r26_s32_224 in small (a ResNetV2 under a ViT), converted from a file with
    static shapes: its GroupNorm-then-residual-add blocks used to make the CPU plugin's
    compile_model die with SIGSEGV (extensions/back/group_norm.py); run in a process of its own."""
    from tests.utils.hybrid_vit import hybrid_vit
    from tests.utils.runtime import assert_close, run_ir_isolated
    model = hybrid_vit()
    x = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        expected = model(x).numpy()
    if capture == "torchscript":
        path, args = str(tmp_path / "vit.pt"), ["--input", "x[1,3,64,64]{f32}"]
        with torch.no_grad():
            torch.jit.save(torch.jit.trace(model, x), path)
    else:
        path, args = str(tmp_path / "vit.pt2"), []
        torch.export.save(torch.export.export(model, (x,)), path)
    result = subprocess.run([sys.executable, os.path.join(ROOT, "mo.py"), path, "--output_dir", str(tmp_path),
                             "--compress_to_fp16=False", *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    (actual,) = run_ir_isolated(str(tmp_path / "vit.xml"), [x.numpy()])
    assert_close([actual], [expected], rtol=1e-4, atol=1e-4 * float(np.abs(expected).max()))
