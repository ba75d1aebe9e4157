"""Comparing an IR's tensors with the framework's: the tolerance a comparison uses and why
(``tolerance_for``), and one tensor's comparison (``compare_output``). ``mo/runtime/validate.py``
compares outputs with them, ``mo/runtime/layers.py`` every tensor (--validate_layers); the rules
are explained in validate.py's docstring."""
from __future__ import annotations

import numpy as np

from mo.utils.shape import shape_str

DEFAULT_TOLERANCE = 1e-4
FP16_TOLERANCE = 1e-2
COMPRESSED_WEIGHTS_TOLERANCE = {"int8": 1e-1, "int4_sym": 5e-1, "int4_asym": 5e-1}
# --validate_precision: what a tensor computed in bf16 (8 significant bits) or f16 (11) may differ by
PRECISION_TOLERANCE = {"bf16": 5e-2, "f16": 1e-2}
PRECISION_BITS = {"bf16": 8, "f16": 11}


class OutputCheck:
    """One compared tensor: its largest absolute and relative differences, and the verdict."""

    def __init__(self, name: str, max_abs: float, max_rel: float, passed: bool, note: str = ""):
        self.name, self.max_abs, self.max_rel, self.passed, self.note = name, max_abs, max_rel, passed, note


def compare_output(name: str, actual: np.ndarray, expected: np.ndarray, tolerance: float,
                   floor: float = 1.0) -> OutputCheck:
    """Compare one output: it passes when the largest absolute difference is at most ``tolerance
    * max(floor, largest magnitude)`` (integers: when equal)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape:
        if actual.size == expected.size and actual.size == 1:
            actual = actual.reshape(expected.shape)
        else:
            return OutputCheck(name, float("inf"), float("inf"), False,
                               f"shape {shape_str(actual.shape)} != {shape_str(expected.shape)}")
    if actual.size == 0:
        return OutputCheck(name, 0.0, 0.0, True)
    exact = expected.dtype.kind in "biuU" and actual.dtype.kind in "biuU"
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    if not np.array_equal(nan_a, nan_e):
        return OutputCheck(name, float("nan"), float("nan"), False, "NaN positions differ")
    finite = ~nan_e & np.isfinite(e) & np.isfinite(a)
    if not np.array_equal(a[~finite & ~nan_e], e[~finite & ~nan_e]):
        return OutputCheck(name, float("inf"), float("inf"), False, "infinities differ")
    diff = np.abs(a[finite] - e[finite])
    max_abs = float(diff.max()) if diff.size else 0.0
    scale = float(np.abs(e[finite]).max()) if diff.size else 0.0
    max_rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else float("inf"))
    passed = max_abs == 0 if exact else max_abs <= tolerance * max(floor, scale)
    return OutputCheck(name, max_abs, max_rel, passed, "compared exactly" if exact else "")


def _has_f16_weights(model) -> bool:
    return any(op.get_type_name() == "Constant" and op.get_output_element_type(0).get_type_name() == "f16"
               for op in model.get_ordered_ops())


def _first_line(e: Exception) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"


def tolerance_for(opts, model, precision: str = "f32") -> tuple[float, float, str]:
    """(tolerance, floor, why) of a comparison at the inference ``precision``: what
    ``compare_output`` takes, and the reason the report gives."""
    floor = 1.0         # absolute below 1, except with compressed weights (their tolerance is wide)
    if opts.validate_tolerance is not None:
        return float(opts.validate_tolerance), floor, "--validate_tolerance"
    if getattr(opts, "compress_weights", None):
        return (COMPRESSED_WEIGHTS_TOLERANCE[opts.compress_weights], 0.0,
                f"also below 1; weights compressed to {opts.compress_weights}: outputs move by a few percent; a "
                f"sanity check against a broken decompression, not an accuracy measure")
    if precision in PRECISION_TOLERANCE:
        return (PRECISION_TOLERANCE[precision], floor,
                f"run in {precision}, which keeps {PRECISION_BITS[precision]} significant bits; --validate_precision "
                f"f32 validates the conversion alone")
    if _has_f16_weights(model):
        return FP16_TOLERANCE, floor, ("weights compressed to fp16, which rounds each by up to 4.9e-4 of its value; "
                                       "--compress_to_fp16=False validates at 1e-4")
    return DEFAULT_TOLERANCE, floor, "float32 weights"
