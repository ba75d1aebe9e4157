"""Expected-failure lists of the conformance suites: ``case: reason`` lines (``#`` starts a
comment; a case name may hold ``*`` wildcards to cover several cases with one reason). Every case
a line covers is a strict xfail: a listed case that passes fails the run, so the lists stay true.
``MO_CONFORMANCE_IGNORE_XFAIL=1`` runs every case as a plain test (to regenerate a list)."""
from __future__ import annotations

import fnmatch
import os

import pytest

IGNORE = bool(os.environ.get("MO_CONFORMANCE_IGNORE_XFAIL"))


def load_expected_failures(path: str) -> dict[str, str]:
    """``case: reason`` lines; # starts a comment."""
    table = {}
    if not os.path.exists(path):
        return table
    with open(path) as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, _, reason = line.partition(":")
            table[name.strip()] = reason.strip() or "no reason given"
    return table


class ExpectedFailures:
    """A list's reasons by case: exact lines first, then wildcard lines, looked up by the literal
    text before their first ``*`` (a prefix of the case name ending at a ``-``)."""

    def __init__(self, table: dict[str, str]):
        self.exact = {name: reason for name, reason in table.items() if "*" not in name}
        self.patterns: dict[str, list[tuple[str, str]]] = {}
        for pattern, reason in table.items():
            if "*" in pattern:
                self.patterns.setdefault(pattern.split("*", 1)[0], []).append((pattern, reason))

    def reason(self, name: str) -> str | None:
        if name in self.exact:
            return self.exact[name]
        for end in [i + 1 for i, ch in enumerate(name) if ch == "-"] + [0]:
            for pattern, reason in self.patterns.get(name[:end], ()):
                if fnmatch.fnmatchcase(name, pattern):
                    return reason
        return None


def case_params(names, list_path: str) -> list:
    """pytest params of the cases, listed ones marked as strict xfails (unless IGNORE)."""
    listed = ExpectedFailures({} if IGNORE else load_expected_failures(list_path))
    params = []
    for name in names:
        reason = listed.reason(name)
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        params.append(pytest.param(name, marks=marks, id=name))
    return params
