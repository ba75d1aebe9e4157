"""PyTorch quantized models run in int8: static quantization (FX graph mode: quantized:: ops),
quantization-aware training (fake_quantize ops; x86's 0..127 activations) and PT2E (torchao's
quantize / dequantize ops in an ExportedProgram). Each converts with mo's defaults, computes what
PyTorch computes for the quantized model (within quantization steps), and runs every convolution
and linear layer in u8/i8 on the CPU, at least as many as OpenVINO's own converter's IR (which
converts only the first of the three)."""
from __future__ import annotations

import openvino as ov
import pytest
import torch

from mo import convert_model
from tests.utils import quantized_models as qm
from tests.utils.quantized_models import assert_quantized_close, assert_runs_int8
from tests.utils.runtime import run_ir


def openvino_ir(model, example: tuple, path: str) -> str | None:
    """OpenVINO's PyTorch frontend's IR of the model, or None when it cannot convert it."""
    try:
        ov.save_model(ov.convert_model(model, example_input=example), path)
    except Exception:       # OpenVINO's message: "Model wasn't fully converted ..."
        return None
    return path


@pytest.mark.parametrize("form", ["static_fx", "qat_fx", "pt2e"])
def test_quantized_cnn_runs_in_int8(tmp_path, form):
    x = torch.randn(2, 3, 32, 32)
    module = qm.small_cnn()
    if form == "static_fx":
        model = torch.jit.trace(qm.torch_static_fx(module, (x,)), (x,))
    elif form == "qat_fx":
        model = torch.jit.trace(qm.torch_qat_fx(module, (x,)), (x,))
    else:
        model = qm.torch_pt2e(module, (x,))
    xml = str(tmp_path / "mo" / "model.xml")
    convert_model(model, example_input=(x,), output_model=xml)
    with torch.no_grad():
        expected = (model.module() if isinstance(model, torch.export.ExportedProgram) else model)(x).numpy()
    assert_quantized_close(run_ir(xml, [x.numpy()])[0], expected, steps=1)
    low, total = assert_runs_int8(xml, openvino_ir(model, (x,), str(tmp_path / "ov" / "model.xml")))
    assert low == total == 4
