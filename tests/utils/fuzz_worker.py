"""Converts fuzz cases one after another in one process and judges each outcome.

    python -m tests.utils.fuzz_worker cases.json results.jsonl

``cases.json`` lists {"path", "options"} entries. For each case a line goes to results.jsonl
*before* it starts ({"started": path}) and one when it ends ({"path", "outcome", "detail"}), so
the caller knows which case a crash or hang happened in. Outcomes:

* ``refused``: a ConversionError with a clear message, and nothing left in the output folder;
* ``converted``: the IR exists and the OpenVINO runtime reads and compiles it (or compiling it
  runs out of memory: a valid IR whose static tensors are too large for this machine);
* ``bad``: anything else: an exception that is not a ConversionError (an internal error), a
  ConversionError that only wraps a Python error of ours (AttributeError, KeyError ... in its
  text), files left after a refusal, an IR the runtime refuses, or more than TIMEOUT seconds.
"""
from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import sys
import tempfile
import traceback

TIMEOUT = 60
MEMORY_LIMIT = 8 << 30
# A refusal naming one of these is a bug of ours reported as if it were the model's fault.
BUG_NAMES = re.compile(r"\b(AttributeError|KeyError|TypeError|IndexError|AssertionError|NameError|"
                       r"UnboundLocalError|ZeroDivisionError|RecursionError|NotImplementedError)\b")


# Compile failures that say memory ran out: the IR is valid, its static tensors too large here.
TOO_BIG = re.compile(r"bad_alloc|Failed to allocate")
# A valid IR with a tensor of unknown rank (e.g. a Squeeze without axes of dims nobody knows):
# OpenVINO's converter writes the same; the CPU plugin compiles it only when its own passes find
# the rank (README, "Known limits").
UNKNOWN_RANK = re.compile(r"CPU plug-in doesn't support \S+ operation with dynamic rank")


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def judge(path: str, options: dict, core) -> tuple[str, str]:
    from mo import convert_model
    from mo.errors import ConversionError
    out = tempfile.mkdtemp(prefix="fuzz_out_")
    try:
        signal.alarm(TIMEOUT)
        try:
            paths = convert_model(path, output_dir=out, **options)
        finally:
            signal.alarm(0)
    except Hang:
        return "bad", f"no result after {TIMEOUT} s"
    except ConversionError as e:
        text = str(e)
        if BUG_NAMES.search(text):
            return "bad", f"refused with a converter bug in the message: {text[:400]}"
        if os.listdir(out):
            return "bad", f"refused but left files: {os.listdir(out)}"
        return "refused", text[:200]
    except Exception as e:
        return "bad", f"internal error {type(e).__name__}: {e}\n{traceback.format_exc()[-1500:]}"
    else:
        try:
            model = core.read_model(paths.xml)
            core.compile_model(model, "CPU")
        except Exception as e:
            if TOO_BIG.search(str(e)):     # a valid IR whose static tensors this machine cannot hold
                return "converted", "too large to compile here"
            if UNKNOWN_RANK.search(str(e)):
                return "converted", "a tensor of unknown rank the CPU plugin does not compile"
            return "bad", f"converted, but OpenVINO refuses the IR: {str(e)[-600:]}"
        return "converted", ""
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main(cases_file: str, results_file: str) -> None:
    import logging
    import warnings

    import openvino as ov
    # a runaway allocation fails here with MemoryError (a bad outcome) instead of waking the
    # kernel's OOM killer, which may pick another process of the machine
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGALRM, _alarm)
    core = ov.Core()
    with open(cases_file) as f:
        cases = json.load(f)
    with open(results_file, "a") as results:
        for case in cases:
            results.write(json.dumps({"started": case["path"]}) + "\n")
            results.flush()
            outcome, detail = judge(case["path"], case.get("options") or {}, core)
            results.write(json.dumps({"path": case["path"], "outcome": outcome, "detail": detail}) + "\n")
            results.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
