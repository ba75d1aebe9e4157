"""The PyTorch conformance cases: PyTorch's own operator database (``op_db``, the OpInfos of
``torch.testing._internal.common_methods_invocations``), each sample input wrapped in a module
and captured along each path.

A case is one sample of one OpInfo for one dtype and capture path, named
``<op>[.<variant>]-<sample index>-<dtype>-<path>`` (``nn.functional.pad.circular-3-float32-export``).
The samples of an (op, dtype) are generated with a fixed seed, so indices and values are the same
in every process. ``MO_OPINFO_FULL=1`` selects every case (up to ``FULL_SAMPLES`` samples per op
and dtype); otherwise a bounded selection runs (``CI_SAMPLES``), a subset of the full one.
``MO_OPINFO_SHARD=i/n`` runs the i-th of n parts (by op) of the selection: a long run in chunks;
``MO_OPINFO_ONLY=file`` the cases of the selection named in the file (one per line), e.g. those
that failed in the last full run.
"""
from __future__ import annotations

import functools
import itertools
import os
import warnings
import zlib
from dataclasses import dataclass

import torch

PATHS = ("trace", "export")
FULL = os.environ.get("MO_OPINFO_FULL") == "1"

# dtype name -> samples per (op, dtype): the full run and the bounded (CI) selection
FULL_SAMPLES = {"float32": 4, "int64": 2, "int32": 1, "int16": 1, "int8": 1, "uint8": 1, "bool": 2}
CI_SAMPLES = {"float32": 1, "int64": 1, "bool": 1}

# OpInfos without a forward meaning for inference on CPU: listed in the report, not run
NOT_RUN = {
    "_softmax_backward_data": "training only: a backward (gradient) operation",
    "max_pool2d_with_indices_backward": "training only: a backward (gradient) operation",
    "native_dropout_backward": "training only: a backward (gradient) operation",
    "nn.functional.max_unpool1d.grad": "a gradient-check variant (samples without duplicate indices) of max_unpool1d",
    "nn.functional.max_unpool2d.grad": "a gradient-check variant (samples without duplicate indices) of max_unpool2d",
    "nn.functional.max_unpool3d.grad": "a gradient-check variant (samples without duplicate indices) of max_unpool3d",
    "linalg.lstsq.grad_oriented": "a gradient-check variant of linalg.lstsq",
    "norm.subgradients_at_zero": "a gradient-check variant of norm",
    "linalg.norm.subgradients_at_zero": "a gradient-check variant of linalg.norm",
    "to_sparse": "sparse layouts: OpenVINO tensors are dense",
    "sparse.mm.reduce": "sparse layouts: OpenVINO tensors are dense",
    "sparse.sampled_addmm": "sparse layouts: OpenVINO tensors are dense",
    "resize_": "memory management: resizes storage in place, new elements uninitialised",
    "resize_as_": "memory management: resizes storage in place, new elements uninitialised",
    "bmm.triton_optimized": "a Triton (GPU) kernel variant",
    "broadcast_shapes": "computes a shape (Python ints) from shapes: no tensor to convert",
    "jiterator_2inputs_2outputs": "a CUDA kernel-generator (jiterator) test op",
    "jiterator_4inputs_with_extra_args": "a CUDA kernel-generator (jiterator) test op",
    "jiterator_binary": "a CUDA kernel-generator (jiterator) test op",
    "jiterator_binary_return_by_ref": "a CUDA kernel-generator (jiterator) test op",
    "jiterator_unary": "a CUDA kernel-generator (jiterator) test op",
}
# samples of these ops with ``training=True`` are training-mode (random masks): not run
TRAINING_MODE_OPS = ("nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
                     "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout.with_train")
# ops whose output values are unspecified (uninitialised memory): shapes and types are compared
UNDEFINED_VALUES = ("empty", "empty_like", "empty_permuted", "empty_strided", "new_empty", "new_empty_strided")


@dataclass(frozen=True)
class Case:
    name: str
    op: str          # the OpInfo's name and variant, "nn.functional.pad.circular"
    index: int       # sample index within (op, dtype)
    dtype: str
    path: str


def op_key(info) -> str:
    return info.name + (f".{info.variant_test_name}" if info.variant_test_name else "")


@functools.cache
def opinfos() -> dict[str, object]:
    """OpInfo by op key, in op_db's order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal import common_methods_invocations
    # the random ops' OpInfos seed the generator before each call (wrapper_set_seed), which would
    # make them look deterministic here and pin what a captured graph does not: call them as they are
    common_methods_invocations.wrapper_set_seed = _unseeded
    return {op_key(info): info for info in common_methods_invocations.op_db}


def _unseeded(op, *args, **kwargs):
    return op(*args, **kwargs)


def torch_dtype(name: str) -> torch.dtype:
    return getattr(torch, name)


def not_run_reason(info) -> str | None:
    """Why an OpInfo has no cases (no CPU kernels, no inference meaning), or None."""
    key = op_key(info)
    if key in NOT_RUN:
        return NOT_RUN[key]
    if not info.supported_dtypes("cpu"):
        return "no CPU kernels (a CUDA-only operation)"
    if not any(torch_dtype(d) in info.supported_dtypes("cpu") for d in FULL_SAMPLES):
        return "no CPU kernels for float32, integer or bool inputs"
    return None


def training_mode(key: str, sample) -> bool:
    return key in TRAINING_MODE_OPS and bool(sample.kwargs.get("training", True)) and sample.kwargs.get("p", 1) != 0


@functools.cache
def samples(key: str, dtype: str, limit: int) -> tuple:
    """The first ``limit`` samples of an op for a dtype (fixed seed: the same in every process, and
    the first samples are the same whatever the limit)."""
    info = opinfos()[key]
    if torch_dtype(dtype) not in info.supported_dtypes("cpu"):
        return ()
    state = torch.random.get_rng_state()
    torch.manual_seed(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tuple(itertools.islice(info.sample_inputs("cpu", torch_dtype(dtype), requires_grad=False), limit))
    finally:
        torch.random.set_rng_state(state)


def _selection(full: bool) -> dict[str, int]:
    return FULL_SAMPLES if full else CI_SAMPLES


def only(selection: dict[str, Case]) -> dict[str, Case]:
    """The cases of ``MO_OPINFO_ONLY``'s file, or all."""
    path = os.environ.get("MO_OPINFO_ONLY")
    if not path:
        return selection
    with open(path) as f:
        names = {line.strip() for line in f if line.strip()}
    return {name: case for name, case in selection.items() if name in names}


def part() -> tuple[int, int] | None:
    """(i, n) of ``MO_OPINFO_SHARD=i/n``, or None."""
    spec = os.environ.get("MO_OPINFO_SHARD")
    return tuple(int(v) for v in spec.split("/")) if spec else None


@functools.cache
def cases(full: bool = FULL, shard: tuple[int, int] | None = None) -> dict[str, Case]:
    """Every case of the full run or of the bounded selection, by name; with ``shard`` (i, n)
    those of the i-th of n parts by op (only their samples are generated)."""
    result = {}
    for key, info in opinfos().items():
        if shard is not None and zlib.crc32(key.encode()) % shard[1] != shard[0]:
            continue
        if not_run_reason(info):
            continue
        for dtype, limit in _selection(full).items():
            for index, sample in enumerate(samples(key, dtype, limit)):
                if training_mode(key, sample):
                    continue
                for path in PATHS:
                    name = f"{key}-{index}-{dtype}-{path}"
                    result[name] = Case(name, key, index, dtype, path)
    return result


def not_run() -> dict[str, str]:
    """Op key -> why it has no cases (whole OpInfos, and the training-mode samples of dropout)."""
    table = {key: reason for key, info in opinfos().items() if (reason := not_run_reason(info))}
    for key in TRAINING_MODE_OPS:
        table.setdefault(key, "training-mode samples (training=True: random masks) are not run; the others are")
    return table


def wrap(case: Case):
    """(module, inputs): the sample's call as a module whose inputs are the sample's tensors
    (everything else in the call is a constant of the module)."""
    from torch.utils import _pytree as pytree
    info = opinfos()[case.op]
    sample = samples(case.op, case.dtype, case.index + 1)[case.index]
    leaves, spec = pytree.tree_flatten(((sample.input, *sample.args), dict(sample.kwargs)))
    slots = [i for i, leaf in enumerate(leaves) if _is_tensor(leaf)]
    constants = [None if i in slots else leaf for i, leaf in enumerate(leaves)]
    inputs = tuple(leaves[i].detach().clone() for i in slots)
    return OpModule(info.op, spec, constants, slots), inputs


def _is_tensor(value) -> bool:
    return isinstance(value, torch.Tensor)


class OpModule(torch.nn.Module):
    """Calls ``fn`` with the sample's arguments, its tensors taken from ``forward``'s inputs."""

    def __init__(self, fn, spec, constants: list, slots: list[int]):
        super().__init__()
        self.fn, self.spec, self.constants, self.slots = fn, spec, constants, slots

    def forward(self, *tensors):
        from torch.utils import _pytree as pytree
        leaves = list(self.constants)
        for slot, tensor in zip(self.slots, tensors):
            leaves[slot] = tensor
        args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return self.fn(*args, **kwargs)
