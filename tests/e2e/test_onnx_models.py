"""End-to-end ONNX models (tests/utils/onnx_zoo.py: torch.nn and transformers networks exported
to ONNX with dynamic axes), converted through the CLI, run in OpenVINO and compared with ONNX
Runtime: max |diff| <= 1e-4 x max |reference|."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.utils import onnx_zoo
from tests.utils.onnx_models import run_onnxruntime
from tests.utils.runtime import core, run_ir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _convert_cli(path, out):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "mo.py"), "--input_model", path, "--output_dir", out,
                        "--compress_to_fp16=False"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return os.path.join(out, os.path.splitext(os.path.basename(path))[0] + ".xml")


@pytest.mark.parametrize("name", sorted(onnx_zoo.MODELS))
def test_model_matches_onnxruntime(name, tmp_path):
    path = str(tmp_path / f"{name}.onnx")
    inputs = onnx_zoo.MODELS[name](path)
    xml = _convert_cli(path, str(tmp_path / "ir"))
    expected = run_onnxruntime(path, inputs)
    actual = run_ir(xml, inputs)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape
        scale = max(float(np.abs(e).max()), 1e-6)
        assert float(np.abs(a.astype(np.float64) - e).max()) <= 1e-4 * scale
    if name == "convnet":   # BatchNorm folded into the convolutions, GELU fused into one op
        types = [op.get_type_name() for op in core().read_model(xml).get_ordered_ops()]
        assert "BatchNormInference" not in types and "Gelu" in types and "Erf" not in types
        assert types.count("Convolution") + types.count("GroupConvolution") == 3
