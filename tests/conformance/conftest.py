"""Collects the outcome of every conformance case and writes the report (controller only)."""
from __future__ import annotations

import os

from tests.conformance.report import ConformanceReport

_REPORT = ConformanceReport()


def pytest_runtest_logreport(report):
    _REPORT.record(report)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if hasattr(config, "workerinput") or not _REPORT.results:
        return
    for line in _REPORT.summary_lines():
        terminalreporter.write_line(line)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = _REPORT.write(os.path.join(root, "reports"))
    if path:
        terminalreporter.write_line(f"conformance report: {os.path.relpath(path, root)}")
