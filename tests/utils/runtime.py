"""The one way tests run an IR and compare outputs: OpenVINO CPU runtime at f32 precision.

``python -m tests.utils.runtime MODEL.xml INPUTS.npz OUTPUTS.npz MEMORY_BYTES`` reads, compiles and
runs the IR once on the inputs (ones when INPUTS.npz does not exist), its address space limited to
MEMORY_BYTES (0: no limit), and writes the outputs (``run_ir_isolated`` starts it): a crash or an
allocation the machine cannot make then fails the child, not the test run.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys

import numpy as np

from mo.runtime.openvino_ir import core

# numpy (ml_dtypes) types the runtime exchanges as packed raw bytes: name -> (OpenVINO type, bits)
_RAW_TYPES = {"float8_e4m3fn": ("f8e4m3", 8), "float8_e5m2": ("f8e5m2", 8), "int4": ("i4", 4),
              "uint4": ("u4", 4), "bfloat16": ("bf16", 16)}


def _pack(value: np.ndarray, bits: int) -> np.ndarray:
    raw = value.reshape(-1).view(np.uint8 if bits <= 8 else np.uint16)
    if bits != 4:
        return raw
    nibbles = raw & 0x0F
    if nibbles.size % 2:
        nibbles = np.concatenate([nibbles, np.zeros(1, np.uint8)])
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8)


def _unpack(raw: np.ndarray, like: np.dtype, shape: tuple) -> np.ndarray:
    bits = _RAW_TYPES[like.name][1]
    flat = raw.reshape(-1)
    if bits == 4:
        flat = np.stack([flat & 0x0F, flat >> 4], axis=-1).reshape(-1)[: int(np.prod(shape))]
        if like.name == "int4":
            flat = np.where(flat > 7, flat.astype(np.int16) - 16, flat).astype(np.int8)
        return flat.astype(like).reshape(shape)
    return flat.view(like).reshape(shape)


_OV_TO_RAW = {v[0]: k for k, v in _RAW_TYPES.items()}


def complex_pairs(value) -> np.ndarray:
    """A complex array as OpenVINO carries it: real and imaginary parts along a last dim of 2
    (complex64 -> f32); any other array as it is."""
    value = np.asarray(value)
    return np.stack([value.real, value.imag], axis=-1) if value.dtype.kind == "c" else value


def _input_tensor(value, port):
    """numpy array, or an OpenVINO Tensor for the types numpy cannot hand over directly (the
    value is first converted to the input's float8/int4/bfloat16 type when it is not already)."""
    import ml_dtypes
    import openvino as ov
    value = complex_pairs(value)
    wanted = _OV_TO_RAW.get(port.get_element_type().get_type_name())
    if wanted is None and value.dtype.name not in _RAW_TYPES:
        return value
    if wanted is not None and value.dtype.name != wanted:
        value = value.astype(getattr(ml_dtypes, wanted))
    ov_type, bits = _RAW_TYPES[value.dtype.name]
    tensor = ov.Tensor(getattr(ov.Type, ov_type), list(value.shape))
    packed = _pack(np.ascontiguousarray(value), bits)
    np.copyto(tensor.data.reshape(-1).view(packed.dtype)[: packed.size], packed)
    return tensor


def run_ir(xml_path, inputs: list[np.ndarray] | dict[str, np.ndarray]) -> list[np.ndarray]:
    """Load the IR (an .xml path, or an ``IRModel`` in memory), compile it for CPU with f32
    inference precision and run it once. Inputs are given in model-input order (list) or by
    tensor name (dict); outputs come back in model-output order (float8/int4/bfloat16 outputs as
    raw bytes; ``compare`` reads them)."""
    model = xml_path.to_openvino() if hasattr(xml_path, "to_openvino") else core().read_model(xml_path)
    compiled = core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    if isinstance(inputs, dict):
        feed = {compiled.input(name): _input_tensor(value, compiled.input(name)) for name, value in inputs.items()}
    else:
        feed = {i: _input_tensor(value, compiled.input(i)) for i, value in enumerate(inputs)}
    request.infer(feed)
    return [output_array(request.get_output_tensor(i)) for i in range(len(compiled.outputs))]


def output_array(tensor) -> np.ndarray:
    """An output tensor's values (string tensors as str)."""
    return np.array(tensor.str_data if tensor.element_type.get_type_name() == "string" else tensor.data)


def as_text(values: np.ndarray) -> np.ndarray:
    """Strings (bytes as TensorFlow gives them, or str) as an object array of str."""
    return np.array([v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in values.reshape(-1)],
                    object).reshape(values.shape)


def compare(actual: np.ndarray, expected: np.ndarray, rtol: float = 1e-4, atol: float = 1e-4,
            check_dtype: bool = True) -> str | None:
    """None when ``actual`` matches ``expected`` (floats within tolerance, NaN where NaN;
    integers, booleans and strings exactly), else a one-line description of the difference."""
    expected = complex_pairs(expected)
    actual = np.asarray(actual)
    if expected.dtype.name in _RAW_TYPES and actual.dtype != expected.dtype and actual.dtype.itemsize <= 2:
        try:
            raw = actual.view(np.uint8 if _RAW_TYPES[expected.dtype.name][1] <= 8 else np.uint16)
            actual = _unpack(raw, expected.dtype, expected.shape)
        except ValueError:
            return f"raw {expected.dtype.name} output of {actual.size} bytes does not fit shape {list(expected.shape)}"
        actual, expected = actual.astype(np.float32), expected.astype(np.float32)
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)} != expected {list(expected.shape)}"
    if expected.dtype.kind in "OSU" and actual.dtype.kind in "OSU":
        actual, expected = as_text(actual), as_text(expected)
    elif check_dtype and actual.dtype != expected.dtype:
        return f"element type {actual.dtype} != expected {expected.dtype}"
    if expected.dtype.kind in "fc":
        a = actual.astype(np.float64)
        e = expected.astype(np.float64)
        if not np.array_equal(np.isnan(a), np.isnan(e)):
            return "NaN positions differ"
        finite = ~np.isnan(e)
        if not np.array_equal(a[finite & np.isinf(e)], e[finite & np.isinf(e)]):
            return "infinities differ"
        ok = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        if not ok.all():
            diff = np.abs(np.where(ok, 0, a - e))
            idx = np.unravel_index(np.nanargmax(diff), diff.shape)
            return (f"{int((~ok).sum())} of {ok.size} values differ; max |diff| {diff[idx]:.3g} at "
                    f"{tuple(int(i) for i in idx)}: {a[idx]!r} vs expected {e[idx]!r}")
        return None
    if not np.array_equal(actual, expected):
        bad = actual != expected
        return f"{int(np.sum(bad))} of {expected.size} values differ (exact comparison)"
    return None


def assert_close(actual_list, expected_list, rtol: float = 1e-4, atol: float = 1e-4, check_dtype: bool = True):
    """Assert every output matches; the message lists each mismatching output."""
    assert len(actual_list) == len(expected_list), f"{len(actual_list)} outputs != expected {len(expected_list)}"
    problems = []
    for i, (a, e) in enumerate(zip(actual_list, expected_list)):
        msg = compare(a, e, rtol, atol, check_dtype)
        if msg:
            problems.append(f"output {i}: {msg}")
    assert not problems, "; ".join(problems)


COMPUTE_LAYERS = ("Convolution", "Deconvolution", "FullyConnected", "MatMul")


def execution_precisions(xml_path: str, config: dict | None = None) -> dict[str, dict[str, int]]:
    """What the CPU plugin executes, from ``get_runtime_model()``: for each convolution / matrix
    product layer type, how many layers run in each precision (``runtimePrecision``: u8/i8 is
    int8 execution), with the plugin's default configuration unless ``config`` is given."""
    compiled = core().compile_model(core().read_model(xml_path), "CPU", config or {})
    counts: dict[str, dict[str, int]] = {}
    for op in compiled.get_runtime_model().get_ordered_ops():
        info = op.get_rt_info()
        layer = info["layerType"].astype(str)
        if layer in COMPUTE_LAYERS:
            precision = info["runtimePrecision"].astype(str)
            counts.setdefault(layer, {}).setdefault(precision, 0)
            counts[layer][precision] += 1
    return counts


def int8_layers(counts: dict[str, dict[str, int]]) -> tuple[int, int]:
    """(layers executed in u8/i8, all convolution / matrix product layers) of
    ``execution_precisions``' counts."""
    total = sum(n for by_precision in counts.values() for n in by_precision.values())
    low = sum(n for by_precision in counts.values() for p, n in by_precision.items() if p in ("u8", "i8"))
    return low, total


def ones_like_inputs(xml_path: str) -> list[np.ndarray]:
    """An input of ones per model input of the IR: its element type, dynamic dimensions at their
    lower bound (at least 1)."""
    from mo.utils.types import np_dtype
    inputs = []
    for port in core().read_model(xml_path).inputs:
        dims = [max(d.get_min_length(), 1) if d.is_dynamic else d.get_length() for d in port.get_partial_shape()]
        name = port.get_element_type().get_type_name()
        dtype = np_dtype(name) if name in ("f64", "f32", "f16", "i64", "i32", "i16", "i8", "u64", "u32", "u16",
                                           "u8", "boolean") else np.float32
        inputs.append(np.ones(dims, dtype))
    return inputs


def run_ir_isolated(xml_path: str, inputs: list[np.ndarray] | None = None, memory_limit: int | None = None,
                    timeout: float = 600) -> list[np.ndarray]:
    """``run_ir`` in a process of its own, for IRs that could kill the runtime or exhaust memory:
    on ``inputs`` (default: ones, ``ones_like_inputs``), its address space limited to
    ``memory_limit`` bytes when given. A crash (SIGSEGV), a failure or running out of memory fails
    the test with what happened instead of ending pytest."""
    import tempfile
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as folder:
        given, got = os.path.join(folder, "inputs.npz"), os.path.join(folder, "outputs.npz")
        if inputs is not None:
            np.savez(given, *inputs)
        proc = subprocess.run([sys.executable, "-m", "tests.utils.runtime", xml_path, given, got,
                               str(memory_limit or 0)], cwd=root, capture_output=True, text=True, timeout=timeout)
        if proc.returncode < 0:
            raise AssertionError(f"the OpenVINO runtime was killed by signal {-proc.returncode} compiling or running "
                                 f"{xml_path}")
        assert proc.returncode == 0, f"OpenVINO cannot run {xml_path}: {proc.stderr[-2000:]}"
        with np.load(got) as outs:
            return [outs[f"arr_{i}"] for i in range(len(outs.files))]


if __name__ == "__main__":
    xml, given, got, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if os.path.exists(given):
        with np.load(given) as feed:
            feed_inputs = [feed[f"arr_{i}"] for i in range(len(feed.files))]
    else:
        feed_inputs = ones_like_inputs(xml)
    np.savez(got, *run_ir(xml, feed_inputs))
