"""Layer tests of torch.nn's transformer modules, whose inference fast path is recorded by tracing
as fused ATen operations (_native_multi_head_attention, _transformer_encoder_layer_fwd)."""
import pytest
import torch
import torch.nn as nn

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x, padding):
        out, weights = self.mha(x, x, x, key_padding_mask=padding)
        per_head = self.mha(x, x, x, average_attn_weights=False)[1]
        return out, weights, per_head


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.post = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), 2,
                                          enable_nested_tensor=False)
        self.pre = nn.TransformerEncoderLayer(16, 4, 24, batch_first=True, norm_first=True, activation="gelu")

    def forward(self, x, padding):
        return self.post(x, src_key_padding_mask=padding), self.pre(x)


X = torch.randn(2, 5, 16)
PADDING = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("module", [Attention(), Encoder()], ids=["attention", "encoder"])
def test_transformer(module, path, tmp_path):
    check_module(module, (X, PADDING), tmp_path, path)
