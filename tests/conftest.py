"""Test-suite switches and hooks: Graph.lint() after every transform and translation (MO_LINT,
inherited by the converter processes the tests start); the conformance suites' outcomes collected
and their reports written at the end of a run (on the controller: here rather than in
tests/conformance/, so that a run of the whole suite, whose controller loads only this conftest,
prints the figures and writes the reports too)."""
import os

from tests.conformance.pytorch_report import PytorchReport
from tests.conformance.report import ConformanceReport

os.environ["MO_LINT"] = "1"

_REPORTS = (ConformanceReport(), PytorchReport())
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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
