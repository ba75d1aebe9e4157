"""Layer tests of the ATen attention translators: scaled_dot_product_attention, and torch.nn's
transformer modules, whose inference fast path is recorded by tracing as fused ATen operations
(_native_multi_head_attention, _transformer_encoder_layer_fwd)."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from mo import convert_model
from mo.errors import ConversionError
from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import PATHS, check_module, convert_torch

torch.manual_seed(0)


class ScaledDotProduct(torch.nn.Module):
    def forward(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v), \
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask > 0), \
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.3), \
            F.scaled_dot_product_attention(q, k, v, is_causal=True)


@pytest.mark.parametrize("path", PATHS)
def test_attention(path, tmp_path):
    q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 8)
    mask = torch.randn(2, 1, 5, 6)
    mask[..., 0] = 1.0
    check_module(ScaledDotProduct(), (q, k, v, mask), tmp_path, path)


class GroupedQuery(torch.nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def test_attention_with_grouped_query_is_refused(tmp_path):
    q, k = torch.randn(1, 4, 5, 8), torch.randn(1, 2, 5, 8)
    with pytest.raises(ConversionError, match=r"scaled_dot_product_attention.*enable_gqa=True is not supported"):
        convert_torch(GroupedQuery(), (q, k, k), str(tmp_path))


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


class FlashForCpu(nn.Module):
    """_scaled_dot_product_flash_attention_for_cpu (what decomposed exported programs hold): its
    first output; causal, with a (float) mask and a scale."""

    def forward(self, q, k, v, bias):
        flash = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
        return flash(q, k, v)[0], flash(q, k, v, is_causal=True)[0], flash(q, k, v, attn_mask=bias, scale=0.3)[0], \
            flash(q, k, v, attn_mask=bias)[0]


@pytest.mark.parametrize("path", PATHS)
def test_flash_attention_for_cpu(path, tmp_path):
    q, k, v = (torch.randn(2, 3, 5, 4) for _ in range(3))
    bias = torch.randn(5, 5)
    bias[2] = float("-inf")   # a query row hidden from every key gives 0
    check_module(FlashForCpu(), (q, k, v, bias), tmp_path, path)


class HiddenRows(nn.Module):
    def forward(self, q, bias):
        return F.scaled_dot_product_attention(q, q, q, attn_mask=bias), \
            F.scaled_dot_product_attention(q, q, q, attn_mask=bias > -1, scale=0.2)


@pytest.mark.parametrize("path", PATHS)
def test_attention_of_hidden_rows(path, tmp_path):
    """A query row that a float (-inf) or boolean mask hides from every key is 0, as in PyTorch."""
    bias = torch.randn(2, 1, 4, 4)
    bias[0, 0, 1] = float("-inf")
    bias[1, 0, 3] = float("-inf")
    check_module(HiddenRows(), (torch.randn(2, 3, 4, 5), bias), tmp_path, path)


class Flash(nn.Module):
    """_scaled_dot_product_flash_attention has a CUDA kernel only: the module is scripted, not run."""

    def forward(self, q, k, v):
        return torch.ops.aten._scaled_dot_product_flash_attention(q, k, v, 0.0, True, False, scale=0.5)[0]


def test_flash_attention(tmp_path):
    q, k, v = (torch.randn(1, 2, 3, 4) for _ in range(3))
    xml = convert_model(input_model=torch.jit.script(Flash()), example_input=(q, k, v), output_dir=str(tmp_path),
                        compress_to_fp16=False).xml
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5)
    assert_close(run_ir(xml, [q.numpy(), k.numpy(), v.numpy()]), [expected.numpy()])
