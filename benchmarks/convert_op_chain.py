"""Conversion time of long chains of small ops, mo beside ovc: how time grows with the op count.

Builds ONNX models that are one chain of N small ops on a [1, 16] tensor (a repeating mix of
elementwise ops with their own 16-value constants, activations and Reshapes), for N = 5000,
10000 and 20000 by default, and converts each with ``python mo.py`` and with ``ovc`` as whole
processes, a few times, printing the best and median wall time and the best CPU time (user +
system, from the kernel's rusage of the child: the steadier figure on a shared machine) and the
time per 1000 ops.

    python benchmarks/convert_op_chain.py [--ops 5000 10000 20000] [--repeat 3] [--only mo]

``measure_mo(n_ops, workdir)`` is what the tests use, at a few thousand ops.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from measure import mo_command, production_env, run_converters, run_measured  # noqa: E402

WIDTH = 16
# The repeating pattern; "Reshape4" and "Reshape1" go to [4, 4] and back to [1, 16].
PATTERN = ("Add", "Relu", "Mul", "Reshape4", "Tanh", "Sub", "Reshape1", "Sigmoid", "Abs", "Neg")


def build_chain(path: str, n_ops: int) -> None:
    """Write an ONNX model that is one chain of ``n_ops`` ops."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    nodes, inits = [], [numpy_helper.from_array(np.array([4, 4], np.int64), "shape4"),
                        numpy_helper.from_array(np.array([1, WIDTH], np.int64), "shape1")]
    x = "input"
    for i in range(n_ops):
        kind = PATTERN[i % len(PATTERN)]
        out = f"t{i}"
        if kind in ("Add", "Mul", "Sub"):
            c = f"c{i}"
            shape = (4, 4) if i % len(PATTERN) > 3 and i % len(PATTERN) < 6 else (1, WIDTH)
            inits.append(numpy_helper.from_array((rng.random(shape, dtype=np.float32) * 0.5 + 0.5), c))
            nodes.append(helper.make_node(kind, [x, c], [out], name=f"n{i}"))
        elif kind.startswith("Reshape"):
            nodes.append(helper.make_node("Reshape", [x, "shape4" if kind == "Reshape4" else "shape1"], [out],
                                          name=f"n{i}"))
        else:
            nodes.append(helper.make_node(kind, [x], [out], name=f"n{i}"))
        x = out
    # the output's shape follows the last Reshape
    last_shape = [1, WIDTH]
    for i in range(n_ops - 1, -1, -1):
        kind = PATTERN[i % len(PATTERN)]
        if kind.startswith("Reshape"):
            last_shape = [4, 4] if kind == "Reshape4" else [1, WIDTH]
            break
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, WIDTH])],
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, last_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def measure_mo(n_ops: int, workdir: str, repeat: int = 1) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds) of converting a chain of ``n_ops`` ops with mo in a
    child process, ``repeat`` times."""
    model = os.path.join(workdir, f"chain_{n_ops}.onnx")
    build_chain(model, n_ops)
    runs = [run_measured(mo_command(model, os.path.join(workdir, "out")), production_env()) for _ in range(repeat)]
    return min(r.wall for r in runs), min(r.cpu for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, nargs="+", default=[5000, 10000, 20000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("mo", "ovc"), help="run one converter")
    parser.add_argument("--workdir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    out = tempfile.mkdtemp(prefix="mo_bench_", dir=args.workdir)
    print(f"{'converter':10s} {'ops':>6s} {'best wall s':>12s} {'median wall s':>14s} {'best CPU s':>11s} "
          f"{'CPU ms/1000 ops':>16s}")
    try:
        for n in args.ops:
            model = os.path.join(args.workdir, f"chain_{n}.onnx")
            build_chain(model, n)
            for label, r in run_converters(model, out, (), args.repeat, args.only):
                print(f"{label:10s} {n:6d} {r.best_wall:12.2f} {r.median_wall:14.2f} {r.best_cpu:11.2f} "
                      f"{r.best_cpu * 1e6 / n:16.0f}", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
