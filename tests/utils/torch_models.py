"""Converting small torch.nn.Modules through each PyTorch capture path and comparing the IR's
outputs with PyTorch's own (through ``tests.utils.runtime``).

Capture paths:

* ``export``: ``convert_model(module, example_input=...)`` (torch.export);
* ``trace``: the same call with torch.export made to fail, so the loader falls back to
  torch.jit.trace;
* ``ts_file``: the module traced, saved with torch.jit.save and converted from the file, input
  shapes and types given with ``input``.
"""
from __future__ import annotations

import os
from unittest import mock

import numpy as np

from mo import convert_model
from tests.utils.runtime import assert_close, run_ir

PATHS = ("export", "trace", "ts_file")

_TYPE_NAMES = {"torch.float32": "f32", "torch.int64": "i64", "torch.int32": "i32", "torch.bool": "boolean",
               "torch.float16": "f16", "torch.uint8": "u8", "torch.float64": "f64", "torch.int8": "i8",
               "torch.int16": "i16", "torch.complex64": "complex64", "torch.complex128": "complex128"}


def _refuse_export(*args, **kwargs):
    raise RuntimeError("export disabled by the test")


def _input_option(names, inputs) -> str:
    items = []
    for name, t in zip(names, inputs):
        shape = ",".join(str(d) for d in t.shape)
        items.append(f"{name}[{shape}]{{{_TYPE_NAMES[str(t.dtype)]}}}")
    return ",".join(items)


def _forward_names(module, count: int) -> list[str]:
    import inspect
    params = list(inspect.signature(module.forward).parameters)
    return params[:count]


def convert_torch(module, inputs, out_dir: str, path: str = "export", **options) -> str:
    """Convert ``module`` with example ``inputs`` (a tuple of tensors) along ``path``; returns the
    IR's xml path."""
    import torch
    module.eval()
    options.setdefault("compress_to_fp16", False)
    os.makedirs(out_dir, exist_ok=True)
    if path == "export":
        return convert_model(input_model=module, example_input=tuple(inputs), output_dir=out_dir, **options).xml
    if path == "trace":
        with mock.patch.object(torch.export, "export", _refuse_export):
            return convert_model(input_model=module, example_input=tuple(inputs), output_dir=out_dir, **options).xml
    if path == "ts_file":
        with torch.no_grad():
            traced = torch.jit.trace(module, tuple(inputs), check_trace=False, strict=False)
        file = os.path.join(out_dir, "model.pt")
        torch.jit.save(traced, file)
        options.setdefault("input", _input_option(_forward_names(module, len(inputs)), inputs))
        return convert_model(input_model=file, output_dir=out_dir, **options).xml
    raise ValueError(path)


def tensor_array(t) -> np.ndarray:
    """A tensor as numpy: bfloat16 as ml_dtypes.bfloat16, complex32 (which numpy lacks) as its
    [..., 2] f16 pairs, the form OpenVINO carries it in."""
    import ml_dtypes
    import torch
    t = t.detach().resolve_conj().resolve_neg()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    if t.dtype == torch.complex32:
        return torch.view_as_real(t).numpy()
    return t.numpy()


def torch_outputs(module, inputs) -> list[np.ndarray]:
    import torch
    with torch.no_grad():
        out = module(*inputs)
    flat = []

    def walk(o) -> None:
        if isinstance(o, torch.Tensor):
            flat.append(tensor_array(o))
        elif isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, (list, tuple)):
            for v in o:
                walk(v)
        elif isinstance(o, (int, float, bool)):
            flat.append(np.asarray(o))
    walk(out)
    return flat


def check_module(module, inputs, out_dir, path: str = "export", rtol: float = 1e-4, atol: float = 1e-4,
                 check_dtype: bool = True, **options) -> None:
    """Convert along ``path``, run the IR on ``inputs`` and compare with PyTorch."""
    inputs = tuple(inputs)
    xml = convert_torch(module, inputs, str(out_dir), path, **options)
    expected = torch_outputs(module, inputs)
    actual = run_ir(xml, [t.numpy() for t in inputs])
    assert_close(actual, expected, rtol=rtol, atol=atol, check_dtype=check_dtype)


def check_scripted(module, inputs, out_dir, rtol: float = 1e-4, atol: float = 1e-4, check_dtype: bool = True,
                   **options) -> None:
    """Convert ``torch.jit.script(module)`` (scripted code: Python numbers, lists, dicts and
    prims that tracing never records), run the IR on ``inputs`` and compare with PyTorch."""
    import torch
    module.eval()
    inputs = tuple(inputs)
    options.setdefault("compress_to_fp16", False)
    xml = convert_model(input_model=torch.jit.script(module), example_input=inputs, output_dir=str(out_dir),
                        **options).xml
    actual = run_ir(xml, [t.numpy() for t in inputs])
    assert_close(actual, torch_outputs(module, inputs), rtol=rtol, atol=atol, check_dtype=check_dtype)
