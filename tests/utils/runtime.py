"""The one way tests run an IR and compare outputs: OpenVINO CPU runtime at f32 precision."""
from __future__ import annotations

import numpy as np

_CORE = None


def core():
    global _CORE
    if _CORE is None:
        import openvino as ov
        _CORE = ov.Core()
    return _CORE


def run_ir(xml_path: str, inputs: list[np.ndarray] | dict[str, np.ndarray]) -> list[np.ndarray]:
    """Load the IR, compile it for CPU with f32 inference precision and run it once.
    Inputs are given in model-input order (list) or by tensor name (dict); outputs come back
    in model-output order."""
    model = core().read_model(xml_path)
    compiled = core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    if isinstance(inputs, dict):
        feed = {compiled.input(name): value for name, value in inputs.items()}
    else:
        feed = {i: value for i, value in enumerate(inputs)}
    request.infer(feed)
    return [np.array(request.get_output_tensor(i).data) for i in range(len(compiled.outputs))]


def compare(actual: np.ndarray, expected: np.ndarray, rtol: float = 1e-4, atol: float = 1e-4,
            check_dtype: bool = True) -> str | None:
    """None when ``actual`` matches ``expected`` (floats within tolerance, NaN where NaN;
    integers, booleans and strings exactly), else a one-line description of the difference."""
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)} != expected {list(expected.shape)}"
    if check_dtype and actual.dtype != expected.dtype:
        return f"element type {actual.dtype} != expected {expected.dtype}"
    if expected.dtype.kind in "fc":
        a = actual.astype(np.float64)
        e = expected.astype(np.float64)
        if not np.array_equal(np.isnan(a), np.isnan(e)):
            return "NaN positions differ"
        finite = ~np.isnan(e)
        if not np.array_equal(a[finite & np.isinf(e)], e[finite & np.isinf(e)]):
            return "infinities differ"
        ok = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        if not ok.all():
            diff = np.abs(np.where(ok, 0, a - e))
            idx = np.unravel_index(np.nanargmax(diff), diff.shape)
            return (f"{int((~ok).sum())} of {ok.size} values differ; max |diff| {diff[idx]:.3g} at "
                    f"{tuple(int(i) for i in idx)}: {a[idx]!r} vs expected {e[idx]!r}")
        return None
    if not np.array_equal(actual, expected):
        bad = actual != expected
        return f"{int(np.sum(bad))} of {expected.size} values differ (exact comparison)"
    return None


def assert_close(actual_list, expected_list, rtol: float = 1e-4, atol: float = 1e-4, check_dtype: bool = True):
    """Assert every output matches; the message lists each mismatching output."""
    assert len(actual_list) == len(expected_list), f"{len(actual_list)} outputs != expected {len(expected_list)}"
    problems = []
    for i, (a, e) in enumerate(zip(actual_list, expected_list)):
        msg = compare(a, e, rtol, atol, check_dtype)
        if msg:
            problems.append(f"output {i}: {msg}")
    assert not problems, "; ".join(problems)
