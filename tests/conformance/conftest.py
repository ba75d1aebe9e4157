"""Collects the outcome of every conformance case and writes the suites' reports (controller only)."""
from __future__ import annotations

import os

from tests.conformance.pytorch_report import PytorchReport
from tests.conformance.report import ConformanceReport

_REPORTS = (ConformanceReport(), PytorchReport())
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_runtest_logreport(report):
    for suite in _REPORTS:
        suite.record(report)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if hasattr(config, "workerinput"):
        return
    for suite in _REPORTS:
        if not suite.results:
            continue
        for line in suite.summary_lines():
            terminalreporter.write_line(line)
        path = suite.write(os.path.join(ROOT, "reports"))
        if path:
            terminalreporter.write_line(f"conformance report: {os.path.relpath(path, ROOT)}")
