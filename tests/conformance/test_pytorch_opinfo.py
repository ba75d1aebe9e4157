"""PyTorch conformance from PyTorch's own operator database: each sample of each OpInfo with a
forward meaning on CPU (``pytorch_cases.py``), wrapped in a module, captured with torch.jit.trace
and with torch.export, converted with mo, run on the OpenVINO CPU runtime (f32) and compared with
eager PyTorch (rtol 1e-3, atol 1e-4; integers and booleans exactly; element types must match).

Random ops (two eager runs with different seeds differ) are compared by shape, type and
statistics against 20 eager draws; ops whose values are unspecified (``empty``) by shape and type.
A sample PyTorch itself cannot capture along a path is skipped with torch's message (it is not
mo's case to pass or fail). Cases in pytorch_expected_failures.txt are strict expected failures.
``MO_OPINFO_FULL=1`` runs every case. ``MO_OPINFO_OPENVINO=1`` also runs OpenVINO's own PyTorch
frontend on each captured model (its outcome goes to the report's data, kept in
reports/pytorch_conformance.json across runs: it takes several seconds a case, so the report's
comparison is made on the CI selection). A summary per capture path is printed and
reports/pytorch_conformance.md written at the end of a full run (``pytorch_report.py``)."""
from __future__ import annotations

import logging
import os
import warnings

import numpy as np
import pytest
import torch

from mo import convert_model
from tests.conformance.expected import case_params
from tests.conformance.pytorch_cases import FULL, UNDEFINED_VALUES, Case, cases, only, part, wrap
from tests.utils.runtime import compare, complex_pairs, run_ir, run_model
from tests.utils.torch_models import torch_outputs

HERE = os.path.dirname(__file__)
RTOL, ATOL = 1e-3, 1e-4
DRAWS = 20
# structural TorchScript nodes left out of the ops a case records
_STRUCTURAL = {"prim::Constant", "prim::ListConstruct", "prim::TupleConstruct", "prim::ListUnpack",
               "prim::TupleUnpack", "prim::GetAttr", "prim::NumToTensor"}

logging.getLogger("torch").setLevel(logging.ERROR)


class CaptureFailed(Exception):
    pass


def eager(module, inputs, seed: int = 0) -> list[np.ndarray]:
    torch.manual_seed(seed)
    return torch_outputs(module, tuple(t.clone() for t in inputs))


def capture(path: str, module, inputs):
    """The traced ScriptModule or the ExportedProgram; CaptureFailed when torch cannot."""
    copies = tuple(t.clone() for t in inputs)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if path == "trace":
                return torch.jit.trace(module, copies, check_trace=False, strict=False)
            return torch.export.export(module, copies)
    except Exception as e:
        first = (str(e).strip().splitlines() or [""])[0]
        raise CaptureFailed(f"torch.{'jit.trace' if path == 'trace' else 'export.export'} cannot capture this "
                            f"sample: {type(e).__name__}: {first[:200]}") from None


def captured_ops(captured) -> list[str]:
    """The operations of the captured graph (ATen and prim)."""
    if isinstance(captured, torch.export.ExportedProgram):
        ops = {getattr(getattr(n.target, "_schema", None), "name", None) or str(n.target)
               for n in captured.graph.nodes if n.op == "call_function"}
    else:
        ops = {n.kind() for n in captured.inlined_graph.nodes()} - _STRUCTURAL
    return sorted(ops)


def run_captured(captured, inputs) -> list[np.ndarray]:
    runnable = captured.module() if isinstance(captured, torch.export.ExportedProgram) else captured
    return torch_outputs(runnable, tuple(t.clone() for t in inputs))


def compare_random(actual: np.ndarray, draws: list[np.ndarray]) -> str | None:
    """Shape, type, range and statistics of one random output against eager draws."""
    first = draws[0]
    if actual.shape != first.shape:
        return f"shape {list(actual.shape)} != expected {list(first.shape)}"
    if actual.dtype != first.dtype:
        return f"element type {actual.dtype} != expected {first.dtype}"
    if actual.size == 0 or first.dtype.kind not in "biuf":
        return None
    values = np.stack(draws).astype(np.float64).reshape(len(draws), -1)
    a = actual.astype(np.float64).reshape(-1)
    lo, hi = np.nanmin(values), np.nanmax(values)
    margin = 0.1 * (hi - lo) + 1e-6 * (1 + max(abs(lo), abs(hi)))
    if np.nanmin(a) < lo - margin or np.nanmax(a) > hi + margin:
        return f"values in [{np.nanmin(a):.4g}, {np.nanmax(a):.4g}] outside the range [{lo:.4g}, {hi:.4g}] of " \
               f"{len(draws)} eager draws"
    for stat in (np.nanmean, np.nanstd):
        per_draw = stat(values, axis=1)
        centre, spread = per_draw.mean(), per_draw.std()
        got = stat(a)
        if abs(got - centre) > 4 * spread + 1e-5 * (1 + abs(centre)):
            return (f"{stat.__name__[3:]} {got:.4g} is not within 4 sd of the eager draws' {centre:.4g} "
                    f"(sd {spread:.3g})")
    return None


class Expectation:
    """What a case's outputs are compared with: eager values, eager draws (random ops) or
    shapes and types only (unspecified values)."""

    def __init__(self, case: Case, module, inputs):
        self.values = eager(module, inputs, 1)
        self.mode = "values"
        if case.op in UNDEFINED_VALUES:
            self.mode = "shapes"
        elif any(compare(complex_pairs(a), e, 0, 0) for seed in (2, 3, 4)
                 for a, e in zip(eager(module, inputs, seed), self.values)):
            self.mode = "random"
            self.draws = [self.values] + [eager(module, inputs, 2 + k) for k in range(DRAWS - 1)]

    def problems(self, actual: list[np.ndarray]) -> list[str]:
        if len(actual) != len(self.values):
            return [f"{len(actual)} outputs, expected {len(self.values)}"]
        found = []
        for i, (a, e) in enumerate(zip(actual, self.values)):
            if self.mode == "random":
                msg = compare_random(a, [draw[i] for draw in self.draws])
            elif self.mode == "shapes":
                msg = compare(np.zeros_like(a), np.zeros_like(e))
            else:
                msg = compare(a, e, RTOL, ATOL)
            if msg:
                found.append(f"output {i}: {msg}")
        return found


def openvino_frontend(captured, inputs, expectation: Expectation) -> str:
    """What OpenVINO's own PyTorch frontend makes of the same captured model: "pass",
    "refused: ...", "fails to run: ..." or "wrong: ..."."""
    import openvino
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = openvino.convert_model(captured, example_input=tuple(t.clone() for t in inputs))
    except Exception as e:
        return f"refused: {_first_line(e)}"
    try:
        actual = run_model(model, [t.numpy() for t in inputs])
    except Exception as e:
        return f"fails to run: {_first_line(e)}"
    problems = expectation.problems(actual)
    return f"wrong: {problems[0][:160]}" if problems else "pass"


def _first_line(e: Exception) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0][:160] if lines else ''}"


def check_case(case: Case, workdir: str, record_property) -> None:
    module, inputs = wrap(case)
    expectation = Expectation(case, module, inputs)
    try:
        captured = capture(case.path, module, inputs)
    except CaptureFailed as e:
        pytest.skip(str(e))
    record_property("ops", captured_ops(captured))
    if expectation.mode == "values":
        differs = [m for a, e in zip(run_captured(captured, inputs), expectation.values)
                   if (m := compare(complex_pairs(a), e))]
        if differs:
            pytest.skip(f"the captured program itself computes other values than eager PyTorch: {differs[0]}")
    if os.environ.get("MO_OPINFO_OPENVINO") == "1":
        record_property("openvino", openvino_frontend(captured, inputs, expectation))
    xml = convert_model(input_model=captured, example_input=inputs, output_dir=workdir, compress_to_fp16=False).xml
    problems = expectation.problems(run_ir(xml, [t.numpy() for t in inputs]))
    assert not problems, "; ".join(problems)


SELECTED = only(cases(FULL, part()))


@pytest.mark.parametrize("case_name", case_params(SELECTED, os.path.join(HERE, "pytorch_expected_failures.txt")))
def test_pytorch_opinfo(case_name, tmp_path, record_property):
    check_case(SELECTED[case_name], str(tmp_path), record_property)
