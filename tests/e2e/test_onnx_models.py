"""End-to-end ONNX models: whole networks from torch.nn and transformers (random weights,
realistic BatchNorm statistics), exported to ONNX with dynamic axes, converted through the CLI,
run in OpenVINO and compared with ONNX Runtime (max |diff| <= 1e-4 x max |reference|)."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.utils.onnx_models import run_onnxruntime
from tests.utils.runtime import core, run_ir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _randomize_bn(module, seed=0):
    import torch
    g = torch.Generator().manual_seed(seed)
    for m in module.modules():
        if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
    return module.eval()


def _export(module, args, path, input_names, dynamic_axes, opset=17):
    import torch
    with torch.no_grad():
        torch.onnx.export(module, args, path, input_names=input_names, dynamic_axes=dynamic_axes,
                          opset_version=opset, dynamo=False)


def _convert_cli(path, out):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "mo.py"), "--input_model", path, "--output_dir", out,
                        "--compress_to_fp16=False"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return os.path.join(out, os.path.splitext(os.path.basename(path))[0] + ".xml")


def _check(path, xml, inputs):
    expected = run_onnxruntime(path, inputs)
    actual = run_ir(xml, inputs)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape
        scale = max(float(np.abs(e).max()), 1e-6)
        assert float(np.abs(a.astype(np.float64) - e).max()) <= 1e-4 * scale


def _types(xml):
    return [op.get_type_name() for op in core().read_model(xml).get_ordered_ops()]


class _ConvNet:
    """Conv-BN-GELU blocks with a residual connection, pooling and a linear head."""

    @staticmethod
    def build():
        import torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16),
                                                torch.nn.GELU())
                self.block = torch.nn.Sequential(torch.nn.Conv2d(16, 16, 3, padding=1, groups=4),
                                                 torch.nn.BatchNorm2d(16), torch.nn.GELU(),
                                                 torch.nn.Conv2d(16, 16, 1), torch.nn.BatchNorm2d(16))
                self.head = torch.nn.Linear(16, 10)

            def forward(self, x):
                x = self.stem(x)
                x = torch.nn.functional.gelu(self.block(x) + x)
                x = torch.nn.functional.max_pool2d(x, 2)
                return self.head(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(x, 1), 1))

        return _randomize_bn(Net())


def test_convnet_with_batchnorm_and_gelu_is_fused(tmp_path):
    import torch
    path = str(tmp_path / "convnet.onnx")
    _export(_ConvNet.build(), (torch.randn(1, 3, 16, 16),), path, ["x"], {"x": {0: "batch"}})
    xml = _convert_cli(path, str(tmp_path / "ir"))
    types = _types(xml)
    assert "BatchNormInference" not in types and "Gelu" in types
    assert types.count("Convolution") + types.count("GroupConvolution") == 3
    _check(path, xml, [np.random.default_rng(0).standard_normal((2, 3, 16, 16)).astype(np.float32)])


def test_lstm_text_classifier(tmp_path):
    import torch

    class TextNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(50, 16)
            self.lstm = torch.nn.LSTM(16, 24, batch_first=True, bidirectional=True)
            self.fc = torch.nn.Linear(48, 3)

        def forward(self, ids):
            out, _ = self.lstm(self.embed(ids))
            return self.fc(out[:, -1])

    torch.manual_seed(0)
    path = str(tmp_path / "text.onnx")
    _export(TextNet().eval(), (torch.randint(0, 50, (2, 6)),), path, ["ids"], {"ids": {0: "batch", 1: "seq"}})
    xml = _convert_cli(path, str(tmp_path / "ir"))
    _check(path, xml, [np.random.default_rng(2).integers(0, 50, (3, 9)).astype(np.int64)])


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
def test_transformers_text_models(kind, tmp_path):
    import torch
    import transformers
    torch.manual_seed(0)
    if kind == "bert":
        config = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                         intermediate_size=64, max_position_embeddings=64)
        model = transformers.BertModel(config).eval()
    else:
        config = transformers.GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=4, n_positions=64)
        model = transformers.GPT2Model(config).eval()
    class FirstOutput(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, use_cache=False)[0]

    ids = torch.randint(0, 100, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.int64)
    path = str(tmp_path / f"{kind}.onnx")
    _export(FirstOutput(model), (ids, mask), path, ["input_ids", "attention_mask"],
            {"input_ids": {0: "b", 1: "s"}, "attention_mask": {0: "b", 1: "s"}}, opset=17)
    xml = _convert_cli(path, str(tmp_path / "ir"))
    rng = np.random.default_rng(3)
    feed_ids = rng.integers(0, 100, (3, 11)).astype(np.int64)
    feed_mask = np.ones((3, 11), np.int64)
    feed_mask[0, 7:] = 0
    _check(path, xml, [feed_ids, feed_mask])
