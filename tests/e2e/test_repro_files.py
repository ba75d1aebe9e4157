"""The reproducers in tests/data/repro/ (mutated ONNX models an earlier mo converted into IRs
OpenVINO refused or could not hold in memory, and TensorFlow graphs that read an output port their
producer lacks): each is refused with one clear message (exit 1, nothing written, no traceback,
no internal error) or converted into an IR that OpenVINO reads, compiles and runs, in a child
process whose memory is limited."""
import os

import pytest

from tests.e2e.test_cli import ROOT, _assert_clean_failure, run_mo
from tests.utils.runtime import run_ir_isolated

FOLDER = os.path.join(ROOT, "tests", "data", "repro")
FILES = sorted(f for f in os.listdir(FOLDER) if f.endswith((".onnx", ".pb")))


def test_the_reproducers_are_kept():
    assert len([f for f in FILES if f.endswith(".onnx")]) == 16 and len([f for f in FILES if f.endswith(".pb")]) == 3


@pytest.mark.parametrize("name", FILES)
def test_a_reproducer_is_refused_clearly_or_gives_a_usable_ir(tmp_path, name):
    out = tmp_path / "out"
    r = run_mo(os.path.join(FOLDER, name), "-o", str(out))
    if r.returncode != 0:
        _assert_clean_failure(r, out)
        assert "internal error" not in r.stderr and "'" in r.stderr, r.stderr     # names what is wrong
        return
    xml = out / (os.path.splitext(name)[0] + ".xml")
    run_ir_isolated(str(xml), memory_limit=4 << 30)      # fails the test when OpenVINO cannot run it
