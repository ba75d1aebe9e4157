"""bf16 tensors of a module object: large ones kept as their raw bit patterns (no f32 copy),
behind a Convert that keeps them from readers of values, on every capture path; the IR computes
what the module does."""
import xml.etree.ElementTree as ET

import ml_dtypes
import numpy as np
import pytest
import torch

from extensions.load.pytorch.types import RAW_BF16_MIN_ELEMENTS, bf16_bits
from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import convert_torch


class EmbedLinearNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(100, 64)
        self.lin = torch.nn.Linear(64, 48)
        self.norm = torch.nn.LayerNorm(48)

    def forward(self, ids):
        return self.norm(self.lin(self.emb(ids)) * 2.0)


def test_bf16_bits_share_the_tensor_memory():
    t = torch.randn(64, 32).bfloat16()
    bits = bf16_bits(t)
    assert bits.dtype == np.uint16 and bits.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(bits, t.view(torch.int16).numpy().view(np.uint16))
    assert bf16_bits(torch.randn(RAW_BF16_MIN_ELEMENTS - 1).bfloat16()) is None
    assert bf16_bits(torch.randn(64, 32)) is None


@pytest.mark.parametrize("path", ["export", "trace"])
def test_bf16_module_weights_stay_raw_bf16(path, tmp_path):
    torch.manual_seed(0)
    module = EmbedLinearNorm().bfloat16().eval()
    ids = torch.tensor([[1, 5, 7, 99], [0, 2, 2, 3]])
    xml = convert_torch(module, (ids,), str(tmp_path), path)
    with torch.no_grad():
        expected = module(ids).float().numpy().astype(ml_dtypes.bfloat16)
    assert_close(run_ir(xml, [ids.numpy()]), [expected], rtol=2e-2, atol=2e-2)
    large = [layer.find("data") for layer in ET.parse(xml).getroot().iter("layer")
             if layer.get("type") == "Const" and np.prod([int(v) for v in
                                                          layer.find("data").get("shape").split(",") if v]) >= 1024]
    assert len(large) == 2 and all(d.get("element_type") == "bf16" for d in large)   # embedding, linear weight
