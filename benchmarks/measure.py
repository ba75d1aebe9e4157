"""Measuring converters as whole child processes: wall time, CPU time and peak memory from the
kernel's rusage of each child (the benchmarks and the scale tests share these)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from typing import Iterator, NamedTuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Run(NamedTuple):
    wall: float     # seconds
    cpu: float      # user + system seconds: the steadier figure on a shared machine
    peak: int       # peak resident memory, bytes


class Summary(NamedTuple):
    best_wall: float
    median_wall: float
    best_cpu: float
    peak: int       # the highest of the runs


def run_measured(cmd: list[str], env: dict | None = None) -> Run:
    """Run ``cmd`` to its end and measure it; a failure raises with its stderr."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=production_env() if env is None else env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{err}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)


def summarize(runs: list[Run]) -> Summary:
    walls = sorted(r.wall for r in runs)
    return Summary(walls[0], walls[len(walls) // 2], min(r.cpu for r in runs), max(r.peak for r in runs))


def run_repeated(cmd: list[str], repeat: int, output: str | None = None) -> Summary:
    """Run ``cmd`` ``repeat`` times in the production environment (``output``, a folder it
    writes, is removed after each run)."""
    return run_alternately({"": (cmd, output)}, repeat)[""]


def run_alternately(commands: dict[str, tuple[list[str], str | None]], repeat: int) -> dict[str, Summary]:
    """Run each of ``commands`` (label -> (command, folder it writes or None)) ``repeat`` times,
    in turns (a, b, a, b, ...): on a shared machine the load then falls on every command alike.
    Each folder is removed after each run."""
    runs: dict[str, list[Run]] = {label: [] for label in commands}
    for _ in range(repeat):
        for label, (cmd, output) in commands.items():
            runs[label].append(run_measured(cmd, production_env()))
            if output:
                shutil.rmtree(output, ignore_errors=True)
    return {label: summarize(r) for label, r in runs.items()}


def production_env() -> dict:
    """The environment of an installed converter: without the test suite's MO_LINT (lint after
    every pass) and without PYTHONDONTWRITEBYTECODE (which some machines set: each run would
    compile every module again, as no installed package does)."""
    return {k: v for k, v in os.environ.items() if k not in ("MO_LINT", "PYTHONDONTWRITEBYTECODE")}


def mo_command(model: str, out: str, *options: str) -> list[str]:
    return [sys.executable, os.path.join(ROOT, "mo.py"), "--input_model", model, "--output_dir", out, *options]


def ovc_command(model: str, out: str, *options: str) -> list[str] | None:
    """ovc writing ``out/model.xml``; None when OpenVINO's converter is not installed."""
    ovc = shutil.which("ovc") or os.path.join(os.path.dirname(sys.executable), "ovc")
    if not os.path.exists(ovc):
        return None
    return [ovc, model, "--output_model", os.path.join(out, "model.xml"), *options]


def run_converters(model: str, out: str, options: tuple[str, ...], repeat: int,
                   only: str | None = None) -> Iterator[tuple[str, Summary]]:
    """(label, summary) of mo and then ovc (if installed; or only the one named ``only``), run
    in turns ``repeat`` times each on ``model``, writing under ``out/<label>``."""
    commands = {}
    for label, command in (("mo", mo_command), ("ovc", ovc_command)):
        target = os.path.join(out, label)
        cmd = command(model, target, *options)
        if cmd is not None and not (only and label != only):
            commands[label] = (cmd, target)
    yield from run_alternately(commands, repeat).items()
