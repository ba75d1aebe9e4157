"""Whole ONNX models for end-to-end tests and the IR-quality benchmark: networks from torch.nn
and transformers with random weights (realistic BatchNorm statistics), exported to ONNX with
dynamic axes by torch's exporter. Each entry writes the model and returns inputs to run it on."""
from __future__ import annotations

from typing import Callable

import numpy as np


def randomize_batchnorm(module, seed: int = 0):
    """Give every BatchNorm non-trivial statistics and affine parameters; returns the module in eval mode."""
    import torch
    g = torch.Generator().manual_seed(seed)
    for m in module.modules():
        if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
    return module.eval()


def export(module, args, path: str, input_names: list[str], dynamic_axes: dict, opset: int = 17) -> None:
    import torch
    with torch.no_grad():
        torch.onnx.export(module, args, path, input_names=input_names, dynamic_axes=dynamic_axes,
                          opset_version=opset, dynamo=False)


def convnet(path: str) -> list[np.ndarray]:
    """Conv-BN-GELU blocks with a grouped conv, a residual Add, pooling and a linear head."""
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

    torch.manual_seed(0)
    export(randomize_batchnorm(Net()), (torch.randn(1, 3, 16, 16),), path, ["x"], {"x": {0: "batch"}})
    return [np.random.default_rng(0).standard_normal((2, 3, 16, 16)).astype(np.float32)]


def lstm_text(path: str) -> list[np.ndarray]:
    """Embedding, bidirectional LSTM, linear head on the last step."""
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
    export(TextNet().eval(), (torch.randint(0, 50, (2, 6)),), path, ["ids"], {"ids": {0: "batch", 1: "seq"}})
    return [np.random.default_rng(2).integers(0, 50, (3, 9)).astype(np.int64)]


def _text_transformer(kind: str, path: str) -> list[np.ndarray]:
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
    export(FirstOutput(model), (ids, mask), path, ["input_ids", "attention_mask"],
           {"input_ids": {0: "b", 1: "s"}, "attention_mask": {0: "b", 1: "s"}})
    rng = np.random.default_rng(3)
    feed_mask = np.ones((3, 11), np.int64)
    feed_mask[0, 7:] = 0
    return [rng.integers(0, 100, (3, 11)).astype(np.int64), feed_mask]


def bert(path: str) -> list[np.ndarray]:
    """transformers BertModel (2 layers, hidden 32) with an attention mask."""
    return _text_transformer("bert", path)


def gpt2(path: str) -> list[np.ndarray]:
    """transformers GPT2Model (2 layers, hidden 32) with an attention mask."""
    return _text_transformer("gpt2", path)


MODELS: dict[str, Callable[[str], list[np.ndarray]]] = {
    "convnet": convnet, "lstm_text": lstm_text, "bert": bert, "gpt2": gpt2,
}
