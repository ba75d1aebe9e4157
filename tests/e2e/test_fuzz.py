"""Seeded mutation fuzzing: every mutated model is either refused with a clear message (nothing
left behind) or converted into an IR the OpenVINO runtime reads and compiles; never an internal
error, a hang or a crash.

The cases come from tests/utils/mutate.py (byte flips, truncation, and structural mutations: op
types, inputs, attributes, dims, element types, names, domains, opsets; the declared shapes,
ranks and element types of model inputs; output port indices (TensorFlow); the inputs, outputs
and nodes of sub-graph bodies). CI runs a bounded number (250 cases, under a minute); for a
longer local run: ``MO_FUZZ_SCALE=20 MO_FUZZ_SEED=7 pytest tests/e2e/test_fuzz.py`` (5,000 cases,
about 5 minutes on 2 cores).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.utils import mutate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCALE = float(os.environ.get("MO_FUZZ_SCALE", "1"))
SEED = int(os.environ.get("MO_FUZZ_SEED", "0"))


def run_cases(cases: list[dict], folder: str) -> list[dict]:
    """Judge every case in worker processes (a new one after a crash); returns the results, a
    crash recorded as a bad outcome of the case it happened in."""
    results_file = os.path.join(folder, "results.jsonl")
    done: dict[str, dict] = {}
    remaining = list(cases)
    while remaining:
        cases_file = os.path.join(folder, "cases.json")
        with open(cases_file, "w") as f:
            json.dump(remaining, f)
        proc = subprocess.run([sys.executable, "-m", "tests.utils.fuzz_worker", cases_file, results_file],
                              cwd=ROOT, capture_output=True, text=True, timeout=3600)
        started = None
        with open(results_file) as f:
            for line in f:
                entry = json.loads(line)
                if "started" in entry:
                    started = entry["started"]
                else:
                    done[entry["path"]] = entry
                    started = None
        if started is not None and started not in done:
            done[started] = {"path": started, "outcome": "bad",
                             "detail": f"the converter process died (exit {proc.returncode}): {proc.stderr[-800:]}"}
        elif proc.returncode != 0 and not started:
            raise AssertionError(f"fuzz worker failed outside a case: {proc.stderr[-2000:]}")
        remaining = [c for c in remaining if c["path"] not in done]
    return [done[c["path"]] for c in cases]


def _check(cases: list[dict], tmp_path) -> None:
    results = run_cases(cases, str(tmp_path))
    what = {c["path"]: c["what"] for c in cases}
    bad = [f"{os.path.basename(r['path'])} ({what[r['path']]}): {r['detail']}" for r in results
           if r["outcome"] == "bad"]
    counts = {k: sum(r["outcome"] == k for r in results) for k in ("refused", "converted", "bad")}
    print(f"fuzz: {len(results)} cases, {counts}")
    assert not bad, f"{len(bad)} of {len(results)} mutated models were not handled cleanly:\n" + "\n".join(bad)


def test_mutated_onnx_models(tmp_path):
    cases = mutate.onnx_cases(int(150 * SCALE), SEED, str(tmp_path))
    _check([{"path": p, "what": w} for p, w in cases], tmp_path)


def test_mutated_tensorflow_graphs(tmp_path):
    cases = mutate.tf_cases(int(60 * SCALE), SEED, str(tmp_path))
    _check([{"path": p, "what": w} for p, w in cases], tmp_path)


def test_mutated_torchscript_archives(tmp_path):
    cases = mutate.torchscript_cases(int(40 * SCALE), SEED, str(tmp_path))
    _check([{"path": p, "what": w, "options": {"input": spec}} for p, w, spec in cases], tmp_path)


@pytest.mark.parametrize("make", [mutate.onnx_cases, mutate.tf_cases])
def test_the_same_seed_gives_the_same_cases(tmp_path, make):
    first = tmp_path / "a"
    second = tmp_path / "b"
    first.mkdir()
    second.mkdir()
    a = make(5, 3, str(first))
    b = make(5, 3, str(second))
    assert [w for _, w in a] == [w for _, w in b]
    if make is mutate.onnx_cases:     # (TensorFlow numbers the functions it traces within a process)
        assert all(open(p, "rb").read() == open(q, "rb").read() for (p, _), (q, _) in zip(a, b))
