"""The ONNX backend test cases: the node cases built by the onnx package and the model folders it
ships (pytorch-converted, pytorch-operator, simple)."""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

DATA_KINDS = ("pytorch-converted", "pytorch-operator", "simple")


@dataclass
class Case:
    name: str
    kind: str            # "node" or one of DATA_KINDS
    model: object        # ModelProto (node cases) or None
    model_path: str | None
    data_sets: list      # [(inputs, outputs)] as lists of numpy arrays
    rtol: float
    atol: float


@lru_cache(maxsize=1)
def node_cases() -> dict[str, Case]:
    import warnings

    from onnx.backend.test.case.node import collect_testcases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = collect_testcases()
    return {c.name: Case(c.name, "node", c.model, None, c.data_sets, 1e-3, 1e-5) for c in cases}


def _read_pb(path: str):
    import onnx
    from onnx import numpy_helper
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


@lru_cache(maxsize=1)
def data_cases() -> dict[str, Case]:
    import onnx
    root = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
    cases = {}
    for kind in DATA_KINDS:
        for folder in sorted(glob.glob(os.path.join(root, kind, "*"))):
            model_path = os.path.join(folder, "model.onnx")
            if not os.path.isfile(model_path):
                continue
            data_sets = []
            for ds in sorted(glob.glob(os.path.join(folder, "test_data_set_*"))):
                inputs = [_read_pb(p) for p in sorted(glob.glob(os.path.join(ds, "input_*.pb")),
                                                      key=lambda p: int(p.rsplit("_", 1)[1][:-3]))]
                outputs = [_read_pb(p) for p in sorted(glob.glob(os.path.join(ds, "output_*.pb")),
                                                       key=lambda p: int(p.rsplit("_", 1)[1][:-3]))]
                data_sets.append((inputs, outputs))
            name = f"{kind}/{os.path.basename(folder)}"
            cases[name] = Case(name, kind, None, model_path, data_sets, 1e-3, 1e-5)
    return cases


def all_case_names() -> list[str]:
    return sorted(node_cases()) + sorted(data_cases())


def get_case(name: str) -> Case:
    return node_cases().get(name) or data_cases()[name]


def case_ops(case: Case) -> str:
    """Operator label for the per-operator report."""
    import onnx
    model = case.model if case.model is not None else onnx.load(case.model_path)
    if case.kind != "node":
        return f"({case.kind})"
    if "_expanded" in case.name:
        twin = re.sub(r"_expanded(_ver\d+)?$", "", case.name)
        if twin in node_cases() and twin != case.name:
            return f"{case_ops(node_cases()[twin])} (as its function body)"
        return "(function bodies)"
    types = []
    for n in model.graph.node:
        if n.op_type not in types:
            types.append(n.op_type)
    return "+".join(types) if len(types) <= 3 else "(several operators)"


def as_arrays(values) -> list[np.ndarray]:
    return [np.asarray(v) for v in values]
