"""The PyTorch OpInfo suite's report: passes per op and capture path, the reason of every failure,
the Core ATen operators, and the ops OpenVINO's own PyTorch frontend refuses that mo converts.

Each run merges its outcomes into reports/pytorch_conformance.json (not committed; chunks of a
full run add up). When that file holds every case of the selection that ran (the CI selection, or
the full run's with ``MO_OPINFO_FULL=1``), the per-op outcome of OpenVINO's frontend where it ran
(``MO_OPINFO_OPENVINO=1``) is written to pytorch_openvino_frontend.json (committed, so the report
can be rendered without running it) and reports/pytorch_conformance.md is rendered.
"""
from __future__ import annotations

import json
import os
import re
from collections import Counter, defaultdict

from tests.conformance.report import CaseResults

HERE = os.path.dirname(os.path.abspath(__file__))
OPENVINO_DATA = os.path.join(HERE, "pytorch_openvino_frontend.json")
FAILED = ("fail", "expected failure", "unexpected pass")


def path_of(name: str) -> str:
    return name.rsplit("-", 1)[1]


def tally(rows: dict[str, dict], names) -> dict[str, Counter]:
    """path -> Counter of statuses over ``names`` (those with a row)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for name in names:
        if name in rows:
            counts[path_of(name)][rows[name]["status"]] += 1
    return counts


def summary_line(title: str, c: Counter) -> str:
    failed = sum(c[s] for s in FAILED)
    return (f"{title}: {c['pass']} passed, {failed} failed ({c['expected failure']} expected failures listed, "
            f"{c['fail']} unexpected failures, {c['unexpected pass']} unexpected passes), "
            f"{c['not captured']} not captured by torch, of {sum(c.values())}")


class PytorchReport(CaseResults):
    test_name = "test_pytorch_opinfo"
    list_name = "pytorch_expected_failures.txt"

    def rows(self) -> dict[str, dict]:
        rows = {}
        for name, (status, reason) in self.results.items():
            row = {"status": status, "reason": reason}
            row.update(self.properties.get(name, {}))
            rows[name] = row
        return rows

    def summary_lines(self) -> list[str]:
        counts = tally(self.rows(), self.results)
        lines = [summary_line(f"PyTorch OpInfo cases, {path}", counts[path]) for path in sorted(counts)]
        total = sum(counts.values(), Counter())
        failed = sum(total[s] for s in FAILED)
        return lines + [f"PyTorch OpInfo cases: {total['pass']} passed, {failed} failed"]

    def write(self, folder: str) -> str | None:
        from tests.conformance.pytorch_cases import FULL, cases
        os.makedirs(folder, exist_ok=True)
        data_path = os.path.join(folder, "pytorch_conformance.json")
        rows = {}
        if os.path.exists(data_path):
            with open(data_path) as f:
                rows = json.load(f)
        for name, row in self.rows().items():
            if "openvino" not in row and "openvino" in rows.get(name, {}):
                row["openvino"] = rows[name]["openvino"]
            rows[name] = row
        if FULL:
            rows = {name: row for name, row in rows.items() if name in cases(True)}
        with open(data_path, "w") as f:
            json.dump(rows, f, indent=0, sort_keys=True)
        if not set(cases(FULL)) <= set(rows):
            return None
        if any("openvino" in row for row in rows.values()):
            write_openvino_data(rows)
        path = os.path.join(folder, "pytorch_conformance.md")
        with open(path, "w") as f:
            f.write(render(rows))
        return path


def write_openvino_data(rows: dict[str, dict]) -> None:
    """Per op and path: cases OpenVINO's frontend passes, refuses, gets wrong or cannot run, and
    the refused cases that mo passes (with the first refusal message)."""
    import openvino

    from tests.conformance.pytorch_cases import cases
    table: dict = {}
    for name, row in sorted(rows.items()):
        if "openvino" not in row:
            continue
        case = cases(True)[name]
        entry = table.setdefault(case.op, {}).setdefault(case.path, Counter())
        outcome = row["openvino"].split(":")[0]
        entry[outcome] += 1
        if outcome == "refused" and row["status"] == "pass":
            entry["refused, mo passes"] += 1
            table[case.op].setdefault("refusal", row["openvino"][len("refused: "):][:200])
    with open(OPENVINO_DATA, "w") as f:
        json.dump({"openvino": openvino.__version__.split("-")[0], "ops": table}, f, indent=1, sort_keys=True)
        f.write("\n")


def _short(reason: str) -> str:
    reason = reason.split(" | listed: ")[0]
    reason = re.sub(r"/tmp/\S+", "<tmp>", reason)
    return reason.replace("|", "/")[:260]


def _core_aten_ops() -> list[str]:
    """The ATen operators (overload packets) with an overload tagged ``torch.Tag.core``."""
    import torch
    names = []
    for name in dir(torch.ops.aten):
        packet = getattr(torch.ops.aten, name, None)
        if hasattr(packet, "overloads") and any(torch.Tag.core in getattr(packet, o).tags for o in packet.overloads()):
            names.append(name)
    return sorted(names)


def render(rows: dict[str, dict]) -> str:
    import torch

    from mo.registry import Registry
    from tests.conformance.pytorch_cases import CI_SAMPLES, FULL_SAMPLES, cases, not_run
    full, ci = cases(True), cases(False)
    by_op: dict[str, list[str]] = defaultdict(list)
    for name, case in full.items():
        by_op[case.op].append(name)
    openvino = {"ops": {}, "openvino": "?"}
    if os.path.exists(OPENVINO_DATA):
        with open(OPENVINO_DATA) as f:
            openvino = json.load(f)

    md = ["# PyTorch conformance (OpInfo)", "",
          "Generated by `pytest tests/conformance/test_pytorch_opinfo.py` (the CI selection; `MO_OPINFO_FULL=1` "
          "for the full run, `MO_OPINFO_OPENVINO=1` to run OpenVINO's frontend too; "
          "`tests/conformance/pytorch_report.py`): every OpInfo of PyTorch's operator database "
          f"(torch {torch.__version__.split('+')[0]}) with a forward meaning on CPU, up to "
          + ", ".join(f"{n} {d}" for d, n in FULL_SAMPLES.items())
          + " samples per op in the full run, each wrapped in a module, "
          "captured with torch.jit.trace and torch.export, converted with mo, run on the OpenVINO CPU runtime (f32 "
          "inference precision) and compared with eager PyTorch (rtol 1e-3, atol 1e-4, integers and booleans "
          "exactly, element types equal; random ops by shape, type, range and statistics).", "",
          "| selection | capture path | passed | failed | not captured by torch | cases |", "|---|---|---|---|---|---|"]
    for title, names in (("full", full), ("CI (" + ", ".join(f"{n} {d}" for d, n in CI_SAMPLES.items()) + ")", ci)):
        if not set(names) <= set(rows):
            continue        # a selection not run as a whole (the full run takes about an hour here)
        counts = tally(rows, names)
        for path in sorted(counts):
            c = counts[path]
            md.append(f"| {title} | {path} | {c['pass']} | {sum(c[s] for s in FAILED)} | {c['not captured']} | "
                      f"{sum(c.values())} |")

    registered = set(Registry.build().framework_op_types("pytorch"))
    seen: dict[str, Counter] = defaultdict(Counter)
    for name, row in rows.items():
        for op in row.get("ops", []):
            seen[op]["cases"] += 1
            seen[op]["pass"] += row["status"] == "pass"
    core = _core_aten_ops()
    md += ["", f"## Core ATen operators ({len(core)})", "",
           "The operators with an overload tagged `torch.Tag.core` (what `torch.export` decomposes to), whether mo "
           "has a translator for each, and the OpInfo cases whose captured graph holds it.", "",
           "| operator | mo translator | cases passed | cases holding it |", "|---|---|---|---|"]
    for op in core:
        qualified = f"aten::{op}"
        converts = "yes" if qualified in registered else \
            "training only (a gradient)" if op.endswith("_backward") else "no"
        md.append(f"| `{qualified}` | {converts} | {seen[qualified]['pass']} | {seen[qualified]['cases']} |")

    refused = {op: entry for op, entry in openvino["ops"].items()
               if any(isinstance(v, dict) and v.get("refused, mo passes") for v in entry.values())}
    md += ["", f"## Converted by mo, refused by OpenVINO's PyTorch frontend ({len(refused)} ops)", "",
           f"Cases of these ops that mo passes and `openvino.convert_model` (OpenVINO {openvino['openvino']}) refuses "
           "on the same captured model, recorded for the CI selection's cases (`MO_OPINFO_OPENVINO=1`) in "
           "`tests/conformance/pytorch_openvino_frontend.json`.", "",
           "| op | trace: refused by OpenVINO, passed by mo | export: refused by OpenVINO, passed by mo | "
           "OpenVINO's message |", "|---|---|---|---|"]
    for op in sorted(refused):
        entry = refused[op]
        cells = [str(entry.get(p, {}).get("refused, mo passes", 0)) for p in ("trace", "export")]
        md.append(f"| {op} | {cells[0]} | {cells[1]} | {_short(entry.get('refusal', ''))} |")

    md += ["", "## Passes per op", "",
           "Passed / cases per capture path (cases torch could not capture are not counted), and OpenVINO's "
           "frontend on the CI selection's cases (\"-\": not run there).", "",
           "| op | trace | export | not captured | OpenVINO frontend trace | OpenVINO frontend export |",
           "|---|---|---|---|---|---|"]
    for op in sorted(by_op):
        cells = []
        uncaptured = 0
        for path in ("trace", "export"):
            names = [n for n in by_op[op] if path_of(n) == path and n in rows]
            captured = [n for n in names if rows[n]["status"] != "not captured"]
            uncaptured += len(names) - len(captured)
            cells.append(f"{sum(rows[n]['status'] == 'pass' for n in captured)}/{len(captured)}")
        ov = openvino["ops"].get(op, {})
        ov_cells = [f"{ov[p].get('pass', 0)}/{sum(v for k, v in ov[p].items() if k != 'refused, mo passes')}"
                    if p in ov else "-" for p in ("trace", "export")]
        md.append(f"| {op} | {cells[0]} | {cells[1]} | {uncaptured} | {ov_cells[0]} | {ov_cells[1]} |")

    md += ["", "## Ops not run", "", "| op | why |", "|---|---|"]
    md += [f"| {op} | {reason} |" for op, reason in sorted(not_run().items())]

    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name in sorted(rows):
        if rows[name]["status"] in FAILED:
            groups[(full[name].op, _short(rows[name]["reason"]))].append(name[len(full[name].op) + 1:])
    md += ["", "## Cases that do not pass", "",
           "Grouped by op and reason; a case is `<sample>-<dtype>-<path>`. Every one is listed in "
           "`tests/conformance/pytorch_expected_failures.txt` with the reason it is expected to fail.", "",
           "| op | reason | cases |", "|---|---|---|"]
    for (op, reason), names in sorted(groups.items()):
        md.append(f"| {op} | {reason} | {', '.join(names)} |")

    uncaptured: dict[str, list[str]] = defaultdict(list)
    for name in sorted(rows):
        if rows[name]["status"] == "not captured":
            uncaptured[full[name].op].append(name[len(full[name].op) + 1:])
    md += ["", "## Samples torch cannot capture", "",
           "torch.jit.trace or torch.export fails on these samples (or the captured program computes other values "
           "than eager PyTorch), so there is nothing to convert.", "", "| op | cases |", "|---|---|"]
    md += [f"| {op} | {', '.join(names)} |" for op, names in sorted(uncaptured.items())]
    return "\n".join(md) + "\n"


def main() -> None:
    """Render reports/pytorch_conformance.md (and the OpenVINO frontend data of the cases that have
    it) again from reports/pytorch_conformance.json, e.g. after a full run in chunks."""
    from tests.conformance.pytorch_cases import cases
    root = os.path.dirname(os.path.dirname(HERE))
    with open(os.path.join(root, "reports", "pytorch_conformance.json")) as f:
        rows = {name: row for name, row in json.load(f).items() if name in cases(True)}
    missing = set(cases(False)) - set(rows)
    if missing:
        raise SystemExit(f"{len(missing)} cases of the CI selection have no result yet (e.g. {sorted(missing)[0]})")
    if any("openvino" in row for row in rows.values()):
        write_openvino_data(rows)
    with open(os.path.join(root, "reports", "pytorch_conformance.md"), "w") as f:
        f.write(render(rows))


if __name__ == "__main__":
    main()
