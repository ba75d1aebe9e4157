"""Rewrites onnx_expected_failures.txt from the last full conformance run (reports/onnx_conformance.json).

Every case that did not pass is listed with a reason: a reason already written in the file is
kept (so hand-written explanations survive), otherwise one is derived from the failure message.
Cases that now pass are dropped. Run after a full `pytest tests/conformance` without the list
taking effect (`MO_CONFORMANCE_IGNORE_XFAIL=1`):

    MO_CONFORMANCE_IGNORE_XFAIL=1 python -m pytest tests/conformance -n 2 -q
    python tests/conformance/update_expected_failures.py
"""
from __future__ import annotations

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from tests.conformance.onnx_cases import load_expected_failures  # noqa: E402

LIST = os.path.join(HERE, "onnx_expected_failures.txt")

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


def derive_reason(message: str) -> str:
    for pattern, reason in RULES:
        m = re.search(pattern, message)
        if m:
            group = m.group(1) if m.groups() else ""
            if "{0}" in reason and group:
                group = re.sub(r":\s*[^:]+?(?=\s+\S+:|$)", "", group).strip()
            return reason.format(group, msg=message[:160])
    return f"wrong result or conversion error: {message[:200]}"


def main() -> None:
    report_path = os.path.join(ROOT, "reports", "onnx_conformance.json")
    with open(report_path) as f:
        report = json.load(f)
    existing = load_expected_failures(LIST)
    lines = ["# ONNX backend cases expected to fail, one per line: `case: reason`.",
             "# Regenerate with tests/conformance/update_expected_failures.py after a full run;",
             "# hand-written reasons are kept. A listed case that passes fails the run (strict).", ""]
    kept = 0
    for name in sorted(report):
        row = report[name]
        if row["status"] == "pass":
            continue
        message = row["reason"].split(" | listed: ")[0]
        reason = existing.get(name) or derive_reason(f"{name} {message}")
        lines.append(f"{name}: {reason}")
        kept += 1
    with open(LIST, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{kept} expected failures written to {os.path.relpath(LIST, ROOT)}")


if __name__ == "__main__":
    main()
