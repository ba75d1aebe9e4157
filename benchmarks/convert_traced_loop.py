"""Conversion time of a traced loop (a long graph of in-place slice writes), mo beside ovc.

Builds a module whose forward runs ``steps`` iterations of a small decoding loop: a Linear layer
on one time step of a state, the argmax of the result written into a token buffer
(``tokens[:, i] = ...``), the negative values zeroed by a masked assignment (``h[h < 0] = 0``)
and the result written back into the state (``state[:, i] = h``), then traces it with
torch.jit.trace (the loop unrolled: each step adds select/slice, copy_, index_put_ and argmax
nodes) and saves it as a TorchScript file. The file is converted with ``python mo.py`` and with
OpenVINO's ``ovc`` (which reads TorchScript files) as whole processes, in turns, a few times
each, for 128 and 512 steps by default; prints the best and median wall time, the best CPU time
(user + system, from the kernel's rusage: steadier on a shared machine) and the IR layer counts.

    python benchmarks/convert_traced_loop.py [--steps 128 512] [--repeat 5] [--only mo]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from convert_resnet50_onnx import layer_count  # noqa: E402
from measure import mo_command, ovc_command, run_alternately  # noqa: E402

WIDTH = 16


def build_loop(path: str, steps: int) -> None:
    """Trace the loop of ``steps`` steps and save it to ``path`` (TorchScript)."""
    import torch

    class TracedLoop(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.step = torch.nn.Linear(WIDTH, WIDTH)

        def forward(self, x):
            tokens = torch.zeros(x.shape[0], steps, dtype=torch.long)
            state = x.clone()
            for i in range(steps):
                h = self.step(state[:, i])
                tokens[:, i] = h.argmax(-1)
                h[h < 0] = 0.0
                state[:, i] = h
            return tokens, state

    torch.manual_seed(0)
    with torch.no_grad():
        traced = torch.jit.trace(TracedLoop().eval(), (torch.randn(1, steps, WIDTH),), check_trace=False)
    torch.jit.save(traced, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[128, 512])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=("mo", "ovc"), help="run one converter")
    parser.add_argument("--workdir", default=os.path.join(ROOT, "benchmarks", "results"))
    parser.add_argument("--build-only", nargs=2, metavar=("PATH", "STEPS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        build_loop(args.build_only[0], int(args.build_only[1]))
        print("built")
        return
    os.makedirs(args.workdir, exist_ok=True)
    out = tempfile.mkdtemp(prefix="mo_bench_", dir=args.workdir)
    print(f"{'converter':10s} {'steps':>6s} {'best wall s':>12s} {'median wall s':>14s} {'best CPU s':>11s} "
          f"{'IR layers':>10s}")
    try:
        for steps in args.steps:
            model = os.path.join(args.workdir, f"traced_loop_{steps}.pt")
            _build(model, steps)
            commands = {}
            for label, command, shape in (("mo", mo_command, f"x[1,{steps},{WIDTH}]{{f32}}"),
                                          ("ovc", ovc_command, f"[1,{steps},{WIDTH}]")):
                cmd = command(model, os.path.join(out, label), "--input", shape)
                if cmd is not None and not (args.only and label != args.only):
                    commands[label] = (cmd, None)
            for label, r in run_alternately(commands, args.repeat).items():
                xml = os.path.join(out, label, f"traced_loop_{steps}.xml" if label == "mo" else "model.xml")
                print(f"{label:10s} {steps:6d} {r.best_wall:12.2f} {r.median_wall:14.2f} {r.best_cpu:11.2f} "
                      f"{layer_count(xml):10d}", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _build(model: str, steps: int) -> None:
    """Build the model in a child process, so that the converters measured later do not start
    from a process that imported torch."""
    import subprocess
    subprocess.run([sys.executable, __file__, "--build-only", model, str(steps)], check=True, capture_output=True)


if __name__ == "__main__":
    main()
