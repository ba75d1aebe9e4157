"""Rewrites a suite's expected-failure list from its last full run: onnx_expected_failures.txt
from reports/onnx_conformance.json, pytorch_expected_failures.txt from reports/pytorch_conformance.json.

Every case that did not pass is listed with a reason: a reason already written in the file is
kept (so hand-written explanations survive), otherwise one is derived from the failure message.
Cases that now pass are dropped. PyTorch cases are listed compactly: the cases of an op (or of
an op and dtype, or path) that all fail for one reason are one wildcard line. Run after a full
run without the list taking effect (`MO_CONFORMANCE_IGNORE_XFAIL=1`):

    MO_CONFORMANCE_IGNORE_XFAIL=1 python -m pytest tests/conformance/test_onnx_backend.py -n 2 -q
    python tests/conformance/update_expected_failures.py onnx
    MO_CONFORMANCE_IGNORE_XFAIL=1 MO_OPINFO_FULL=1 python -m pytest tests/conformance/test_pytorch_opinfo.py -n 2 -q
    python tests/conformance/update_expected_failures.py pytorch
"""
from __future__ import annotations

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from tests.conformance.expected import ExpectedFailures, load_expected_failures  # noqa: E402

# (pattern on the failure message, reason written to the list); the first match wins.
RULES = [
    (r"_bf16", "the bfloat16 reference rounds every intermediate result to bfloat16; OpenVINO computes in f32, "
     "one bfloat16 step (0.0039) away, beyond rtol 1e-3"),
    (r"BitCast", "BitCast between float and integer types: OpenVINO has no bit reinterpretation operation"),
    (r"dynamicquantizelinear", "the CPU plugin computes x / scale as x * (1 / scale): one value on a .5 boundary "
     "rounds the other way"),
    (r"(DOUBLE|float64|f64)", "the CPU plugin computes float64 in float32: infinities and values beyond the "
     "float32 range come back as +-FLT_MAX"),
    (r"training_dropout|Dropout", "training-mode Dropout draws random masks: the expected outputs cannot be "
     "reproduced"),
    (r"sequences/optionals|sequence_type|optional_type|Sequence\w*:|SplitToSequence|ConcatFromSequence|"
     r"Optional\w*:", "uses sequence or optional values, which OpenVINO IR has no type for"),
    (r"element type (float8e4m3fnuz|float8e5m2fnuz|float4e2m1|float8e8m0|complex\d+|25|26)",
     "uses an element type OpenVINO does not have ({0})"),
    (r"(INT2|UINT2|int2|uint2|FLOAT4E2M1|float4e2m1|FNUZ|fnuz|E8M0|e8m0)",
     "uses an element type OpenVINO does not have ({0})"),
    (r"expected float8_e\dm\dfnuz|expected float4_e2m1fn", "expects an element type OpenVINO does not have"),
    (r"String\w*:|RegexFullMatch|Equal on strings|string", "string tensors: the CPU plugin has no kernels for them"),
    (r"ImageDecoder", "ImageDecoder decodes image files; OpenVINO has no such operation"),
    (r"ai\.onnx\.preview\.training", "training operator (ai.onnx.preview.training): not an inference op"),
    (r"ai\.onnx\.ml::", "ONNX-ML operator (ai.onnx.ml): OpenVINO has no equivalent"),
    (r"Random\w*:|Bernoulli|Multinomial|dropout.*mask|training_dropout", "random output: cannot be compared exactly"),
    (r"max \|diff\| [0-9.e+]+(e\+\d{2,})", "the CPU plugin computes float64 in float32: these values are beyond the "
     "float32 range"),
    (r"TfIdfVectorizer", "TfIdfVectorizer: OpenVINO has no equivalent"),
    (r"not supported \(type: node names\): (.*?) Add an", "not supported yet: {0}"),
    (r"RuntimeError: Exception from src", "the OpenVINO runtime rejects the converted model: {msg}"),
]


# the same for PyTorch OpInfo cases
PYTORCH_RULES = [
    (r"not supported \(type: node names\):\s*(\S+):", "not converted yet: {0}"),
    (r"Cannot translate node '[^']*' \(pytorch ([^)]*)\): (.*)", "{0}: {1}"),
    (r"RuntimeError: Exception from src.*?(\[[^\]]*\].*)", "the OpenVINO runtime rejects the converted model: {0}"),
    (r"element type (\S+) != expected (\S+)", "element type {0} instead of {1}"),
    (r"values differ|NaN positions differ|infinities differ", "wrong values: {msg}"),
]


def derive_reason(message: str, rules=RULES) -> str:
    for pattern, reason in rules:
        m = re.search(pattern, message)
        if m:
            group = m.group(1) if m.groups() else ""
            if "{0}" in reason and group and rules is RULES:
                group = re.sub(r":\s*[^:]+?(?=\s+\S+:|$)", "", group).strip()
            groups = [g[:200] for g in m.groups()] or [group]
            return reason.format(*groups, msg=message[:160])
    return f"wrong result or conversion error: {message[:200]}"


def _write(path: str, header: list[str], lines: list[str]) -> None:
    with open(path, "w") as f:
        f.write("\n".join(header + [""] + lines) + "\n")
    print(f"{len(lines)} lines written to {os.path.relpath(path, ROOT)}")


def update_onnx() -> None:
    path = os.path.join(HERE, "onnx_expected_failures.txt")
    with open(os.path.join(ROOT, "reports", "onnx_conformance.json")) as f:
        report = json.load(f)
    existing = load_expected_failures(path)
    lines = []
    for name in sorted(report):
        row = report[name]
        if row["status"] == "pass":
            continue
        message = row["reason"].split(" | listed: ")[0]
        lines.append(f"{name}: {existing.get(name) or derive_reason(f'{name} {message}')}")
    _write(path, ["# ONNX backend cases expected to fail, one per line: `case: reason`.",
                  "# Regenerate with tests/conformance/update_expected_failures.py after a full run;",
                  "# hand-written reasons are kept. A listed case that passes fails the run (strict)."], lines)


def update_pytorch() -> None:
    from tests.conformance.pytorch_cases import cases
    path = os.path.join(HERE, "pytorch_expected_failures.txt")
    with open(os.path.join(ROOT, "reports", "pytorch_conformance.json")) as f:
        report = json.load(f)
    existing = ExpectedFailures(load_expected_failures(path))
    full = cases(True)
    reasons = {}
    for name, row in report.items():
        if row["status"] in ("fail", "expected failure"):
            message = row["reason"].split(" | listed: ")[0]
            reasons[name] = existing.reason(name) or derive_reason(message, PYTORCH_RULES)
    lines = [f"{pattern}: {reason}" for pattern, reason in compact(reasons, full, report)]
    _write(path, ["# PyTorch OpInfo cases expected to fail, one per line: `case: reason`; a `*` after a `-`",
                  "# covers every case it matches (`<op>-<sample>-<dtype>-<path>`). Regenerate with",
                  "# tests/conformance/update_expected_failures.py pytorch after a full run; hand-written",
                  "# reasons are kept. A listed case that passes fails the run (strict)."], lines)


def compact(reasons: dict[str, str], full: dict, report: dict) -> list[tuple[str, str]]:
    """(pattern, reason) lines covering exactly the failing cases: the coarsest of ``op-*``,
    ``op-*-path``, ``op-*-dtype-*``, ``op-*-dtype-path`` whose cases (those torch captures) all
    fail for one reason, else the case itself."""
    import fnmatch
    starting: dict[str, list[str]] = {}      # op -> the cases whose names start with "op-" (other ops too)
    lines, covered = [], set()
    for name in sorted(reasons):
        if name in covered:
            continue
        case = full[name]
        if case.op not in starting:
            starting[case.op] = [n for n in full if n.startswith(f"{case.op}-")]
        for pattern in (f"{case.op}-*", f"{case.op}-*-{case.path}", f"{case.op}-*-{case.dtype}-*",
                        f"{case.op}-*-{case.dtype}-{case.path}", name):
            matched = [n for n in starting[case.op] if fnmatch.fnmatchcase(n, pattern)]
            if any(full[n].op != case.op for n in matched):
                continue
            matched = [n for n in matched if report.get(n, {}).get("status") != "not captured"]
            if all(reasons.get(n) == reasons[name] for n in matched):
                lines.append((pattern, reasons[name]))
                covered.update(matched)
                break
    return lines


if __name__ == "__main__":
    {"onnx": update_onnx, "pytorch": update_pytorch}[sys.argv[1] if len(sys.argv) > 1 else "onnx"]()
