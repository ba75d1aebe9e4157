"""ONNX backend conformance: every node case of the onnx package and the model folders it ships,
converted with mo, run on the OpenVINO CPU runtime (f32) and compared with the expected outputs
(rtol 1e-3, atol 1e-5; integers and booleans exactly). Cases in onnx_expected_failures.txt are
expected to fail (strictly: a case on the list that passes fails the run, so the list stays true).
A summary (N passed, M failed) and reports/onnx_conformance.md are written at the end."""
from __future__ import annotations

import os

import numpy as np
import pytest

from tests.conformance.expected import case_params
from tests.conformance.onnx_cases import all_case_names, get_case
from tests.utils.runtime import compare, run_ir

HERE = os.path.dirname(__file__)


def as_array(value):
    """Test data as numpy: numpy scalars and TensorProtos (used for exotic types) become arrays;
    sequences and optionals stay as they are."""
    if isinstance(value, np.generic):
        return np.asarray(value)
    if type(value).__name__ == "TensorProto":
        from onnx import numpy_helper
        return numpy_helper.to_array(value)
    return value


def check_case(name: str, workdir: str) -> None:
    """Convert one case and compare the runtime's outputs with the expected ones."""
    import onnx

    from mo import convert_model

    case = get_case(name)
    if case.model is not None:
        model_path = os.path.join(workdir, "model.onnx")
        onnx.save(case.model, model_path)
    else:
        model_path = case.model_path
    paths = convert_model(input_model=model_path, output_dir=os.path.join(workdir, "ir"), model_name="model",
                          compress_to_fp16=False)
    for inputs, expected in case.data_sets:
        inputs = [as_array(v) for v in inputs]
        expected = [as_array(v) for v in expected]
        if any(not isinstance(v, np.ndarray) for v in list(inputs) + list(expected)):
            raise AssertionError("inputs or outputs are sequences/optionals, which OpenVINO IR has no type for")
        actual = run_ir(paths.xml, list(inputs))
        assert len(actual) == len(expected), f"{len(actual)} outputs, expected {len(expected)}"
        problems = [f"output {i}: {msg}" for i, (a, e) in enumerate(zip(actual, expected))
                    if (msg := compare(a, e, case.rtol, case.atol)) is not None]
        assert not problems, "; ".join(problems)


@pytest.mark.parametrize("case_name", case_params(all_case_names(), os.path.join(HERE, "onnx_expected_failures.txt")))
def test_onnx_backend(case_name, tmp_path):
    check_case(case_name, str(tmp_path))
