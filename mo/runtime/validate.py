"""--validate: run the written IR in the OpenVINO runtime and the source model in its framework on
the same inputs, and compare every output.

The preprocessing the conversion embeds (--layout with a target, --reverse_input_channels,
--mean_values, --scale_values, --scale) is applied in numpy to what the source model is given,
so the two compute the same thing. Inputs are random within each input's type and shape
(floats: standard normal; integers: 0..3; booleans: random), or read from ``--validate_inputs
file.npz`` (arrays named after the inputs, or ``arr_0``, ``arr_1``... in input order). A dynamic
dimension takes the size ``--validate_shapes`` gives, else its lower bound when it has one
(``--input "x[1..8,3]"``), else 1 for the first dimension and 8 for the others.

Per output, the report gives the largest absolute difference and the relative difference (that
difference divided by the largest magnitude of the framework's output); an output passes when the
absolute difference is at most ``tolerance * max(1, largest magnitude)``. Integer and boolean
outputs must be equal. The default tolerance is 1e-4; when the IR's weights were compressed to
float16 (the default ``--compress_to_fp16``) it is 1e-2, because float16 keeps 11 significant
bits: each weight moves by up to 2^-11 (4.9e-4) of its value and those errors add up over the
layers. ``--compress_to_fp16=False`` validates at 1e-4.

With ``--compress_weights`` the difference comes from the integer weights: each weight moves by
up to half a quantization step (1/510 of its channel's range with int8, 1/30 of its group's
range with int4), and the outputs move by a few percent (int8) to a few tens of percent (int4) of
their magnitude, more with depth (measured on random weights: a 2-layer Llama's logits 0.9% /
7%, a 32-MatMul MLP stack 2.4% / 23%). The tolerance is then 1e-1 (int8) or 5e-1 (int4) of each
output's largest magnitude (also when it is below 1): wide enough that the rounding of a
data-free compression passes on random inputs, narrow enough to catch a broken decompression
(wrong scales, zero points or packing give differences beyond the outputs' own size). It is a
sanity check, not an accuracy measure: measure a compressed model's accuracy on its task.
"""
from __future__ import annotations

import re

import numpy as np

from mo.cli.input_spec import parse_input
from mo.errors import ConversionError, OptionError
from mo.pipeline.summary import TensorInfo
from mo.runtime.compare import (  # noqa: F401 (names tests and callers take from here)
    COMPRESSED_WEIGHTS_TOLERANCE,
    DEFAULT_TOLERANCE,
    OutputCheck,
    _first_line,
    compare_output,
    tolerance_for,
)
from mo.runtime.frameworks import RUNNERS
from mo.runtime.openvino_ir import compile_at, read_ir, read_ir_file, run
from mo.utils.shape import shape_str

FIRST_DIM_DEFAULT = 1
OTHER_DIM_DEFAULT = 8


class ValidationFailed(ConversionError):
    """Some output (or, with --validate_layers, some tensor) of the IR differs from the source
    framework's beyond the tolerance (the CLI exits with status 2). ``report`` is the
    ``ValidationReport``, ``result`` what was converted."""

    def __init__(self, report: "ValidationReport", result=None):
        self.report = report
        self.result = result
        failed = ", ".join(c.name for c in report.checks if not c.passed)
        messages = []
        if failed:
            messages.append(f"--validate: output{'s' if ',' in failed else ''} {failed} of the IR differ from "
                            f"{report.framework} beyond the tolerance {report.tolerance:g}.")
        if report.layers is not None and not report.layers.passed:
            messages.append(report.layers.failure_message())
        super().__init__(" ".join(messages))


class ValidationReport:
    def __init__(self, framework: str, inputs: list[tuple[str, tuple, str]], checks: list[OutputCheck],
                 tolerance: float, why: str, from_file: bool, precision: str = "f32"):
        self.framework, self.inputs, self.checks = framework, inputs, checks
        self.tolerance, self.why, self.from_file, self.precision = tolerance, why, from_file, precision
        self.layers = None        # --validate_layers: a mo.runtime.layers.LayersReport

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks) and (self.layers is None or self.layers.passed)

    def lines(self) -> list[str]:
        source = "from --validate_inputs" if self.from_file else "random"
        ins = ", ".join(f"{n}{shape_str(s)} {t}" for n, s, t in self.inputs) or "none"
        width = max([len(c.name) for c in self.checks] + [6])
        lines = [f"[ VALIDATE ] OpenVINO runtime (CPU, {self.precision}) vs {self.framework}; inputs ({source}): {ins}",
                 f"[ VALIDATE ] tolerance {self.tolerance:g}, relative to each output's largest magnitude ({self.why})",
                 f"[ VALIDATE ] {'output':{width}s}  {'max abs diff':>12s}  {'max rel diff':>12s}  result"]
        for c in self.checks:
            lines.append(f"[ VALIDATE ] {c.name:{width}s}  {c.max_abs:12.3g}  {c.max_rel:12.3g}  "
                         f"{'PASS' if c.passed else 'FAIL'}{'  ' + c.note if c.note else ''}")
        verdict = "PASS" if all(c.passed for c in self.checks) else "FAIL"
        lines.append(f"[ VALIDATE ] {verdict}: {sum(c.passed for c in self.checks)} of {len(self.checks)} "
                     f"outputs match")
        return lines + (self.layers.lines() if self.layers is not None else [])





def _wanted_shapes(opts, model_inputs) -> dict:
    """Sizes --validate_shapes gives, by input index."""
    specs = parse_input(opts.validate_shapes) if opts.validate_shapes else []
    chosen = {}
    for i, spec in enumerate(specs):
        if spec.shape is None:
            raise OptionError(f"--validate_shapes item {i + 1} gives no shape.")
        if spec.name is None:
            chosen[i] = spec.shape
            continue
        index = next((k for k, port in enumerate(model_inputs) if spec.name in port.get_names()), None)
        if index is None:
            raise OptionError(f"--validate_shapes names '{spec.name}', which is not an input of the IR.")
        chosen[index] = spec.shape
    return chosen


def _concrete_shape(port, given: tuple | None) -> tuple:
    pshape = port.get_partial_shape()
    name = port.get_any_name() if port.get_names() else f"input {port.get_index()}"
    if pshape.rank.is_dynamic:
        if given is None:
            raise OptionError(f"--validate: input '{name}' has a dynamic rank; give its shape with "
                              f"--validate_shapes \"{name}[...]\".")
        return tuple(given)
    dims = []
    for axis, dim in enumerate(pshape):
        wanted = given[axis] if given is not None and axis < len(given) and given[axis] >= 0 else None
        if given is not None and len(given) != len(pshape):
            raise OptionError(f"--validate_shapes gives {len(given)} dimensions for '{name}' of rank {len(pshape)}.")
        if dim.is_static:
            if wanted is not None and wanted != dim.get_length():
                raise OptionError(f"--validate_shapes gives {wanted} for dimension {axis} of '{name}', which the "
                                  f"IR fixes to {dim.get_length()}.")
            dims.append(dim.get_length())
        elif wanted is not None:
            dims.append(wanted)
        elif dim.get_min_length() > 0:
            dims.append(dim.get_min_length())
        else:
            default = FIRST_DIM_DEFAULT if axis == 0 else OTHER_DIM_DEFAULT
            upper = dim.get_max_length()
            dims.append(min(default, upper) if upper >= 0 else default)
    return tuple(dims)


def _random(shape: tuple, dtype: np.dtype, rng) -> np.ndarray:
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 4, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def make_inputs(opts, model) -> tuple[list[np.ndarray], bool]:
    """The arrays to run with, in IR input order, and whether they come from --validate_inputs."""
    ports = list(model.inputs)
    if opts.validate_inputs:
        try:
            stored = np.load(opts.validate_inputs, allow_pickle=False)
            arrays = {k: stored[k] for k in stored.files}
        except (OSError, ValueError) as e:
            raise OptionError(f"--validate_inputs '{opts.validate_inputs}' is not a readable .npz file: {e}") from e
        feed = []
        for i, port in enumerate(ports):
            key = next((n for n in sorted(port.get_names()) if n in arrays), None)
            if key is None:
                key = f"arr_{i}" if f"arr_{i}" in arrays else (list(arrays)[i] if i < len(arrays) else None)
            if key is None:
                raise OptionError(f"--validate_inputs has no array for input '{port.get_any_name()}' "
                                  f"(arrays: {', '.join(arrays) or 'none'}).")
            feed.append(np.asarray(arrays[key]).astype(port.get_element_type().to_dtype()))
        return feed, True
    given = _wanted_shapes(opts, ports)
    rng = np.random.default_rng(0)
    decoder = _decoder_feed(ports, given, rng)
    if decoder is not None:
        return decoder, False
    feed = [_random(_concrete_shape(port, given.get(i)), port.get_element_type().to_dtype(), rng)
            for i, port in enumerate(ports)]
    return feed, False


DECODER_PAST = re.compile(r"past_key_values\.\d+\.(key|value)$")
DECODER_PAST_LENGTH = 4


def _decoder_feed(ports, given: dict, rng) -> list[np.ndarray] | None:
    """Inputs for a decoder IR with a key/value cache (optimum's names: input_ids,
    attention_mask, position_ids, past_key_values.N.key/value or a stateful cache with
    beam_idx), consistent with each other: a mask of ones over past and new tokens, positions
    after the past, beam_idx in order, a past of DECODER_PAST_LENGTH tokens; None for other IRs."""
    names = [p.get_any_name() for p in ports]
    has_past = any(DECODER_PAST.match(n) for n in names)
    if "input_ids" not in names or not (has_past or "beam_idx" in names):
        return None
    at = names.index("input_ids")
    batch, length = _concrete_shape(ports[at], given.get(at))[:2]
    past = DECODER_PAST_LENGTH if has_past else 0
    feed = []
    for i, (port, name) in enumerate(zip(ports, names)):
        if name == "input_ids":
            x = rng.integers(0, 4, (batch, length))
        elif name == "attention_mask":
            x = np.ones((batch, past + length))
        elif name == "position_ids":
            x = np.broadcast_to(np.arange(past, past + length), (batch, length))
        elif name == "beam_idx":
            x = np.arange(batch)
        elif DECODER_PAST.match(name):
            shape = list(_concrete_shape(port, given.get(i)))
            shape[0], shape[2] = batch, past
            x = rng.standard_normal(shape)
        else:
            x = _random(_concrete_shape(port, given.get(i)), port.get_element_type().to_dtype(), rng)
        feed.append(np.ascontiguousarray(x).astype(port.get_element_type().to_dtype()))
    return feed


def _port_info(port) -> TensorInfo:
    names = sorted(port.get_names())
    name = port.get_any_name() if names else port.get_node().get_friendly_name()
    return TensorInfo(name, names, None, None)


def undo_preprocessing(opts, framework: str, names: list[str], x: np.ndarray) -> np.ndarray:
    """What the source model reads when the IR reads ``x``: the preprocessing the conversion
    embedded (extensions/front/preprocessing.py) applied in numpy, in the same order: back to
    the source layout, channels reversed, mean subtracted, divided by the scale values and by
    --scale."""
    from mo.cli.preprocess_spec import ALL_INPUTS, expand_layout

    def for_input(table):
        found = next((table[n] for n in names if n in table), None)
        return found if found is not None else table.get(ALL_INPUTS)
    spec = for_input(opts.layouts)
    means, scales = for_input(opts.mean_values), for_input(opts.scale_values)
    if not (spec or means or scales or opts.scale is not None or opts.reverse_input_channels):
        return x
    if spec and spec.target and spec.source and spec.target != spec.source:
        x = x.transpose([spec.target.index(c) for c in spec.source])
    default = "NHWC" if framework == "tf" else "NCHW"
    layout = expand_layout(spec.source, x.ndim) if spec and spec.source else (default if x.ndim == 4 else None)
    channel = layout.index("C") if layout and "C" in layout else None
    dtype = x.dtype
    x = x.astype(np.float64)
    if opts.reverse_input_channels and channel is not None and x.shape[channel] == 3:
        x = np.flip(x, channel)

    def per_channel(values):
        arr = np.asarray(values, np.float64)
        if arr.size == 1 or channel is None:
            return arr.reshape(()) if arr.size == 1 else arr
        shape = [1] * x.ndim
        shape[channel] = arr.size
        return arr.reshape(shape)
    if means is not None:
        x = x - per_channel(means)
    if scales is not None:
        x = x / per_channel(scales)
    if opts.scale is not None:
        x = x / opts.scale
    return np.ascontiguousarray(x.astype(dtype if dtype.kind == "f" else np.float32))


def validate_conversion(opts, result, framework: str) -> ValidationReport:
    """Run ``result`` (IRPaths or IRModel) and the source model, and compare their outputs (and,
    with --validate_layers, every tensor both have: ``mo/runtime/layers.py``). Raises
    ``ValidationFailed`` when one differs beyond the tolerance."""
    model = read_ir(result.xml, result.weights) if hasattr(result, "weights") else read_ir_file(result.xml)
    feed, from_file = make_inputs(opts, model)
    described = ", ".join(f"{shape_str(x.shape)} {x.dtype}" for x in feed)
    ir_inputs = [_port_info(p) for p in model.inputs]
    ir_outputs = [_port_info(p) for p in model.outputs]
    precision = opts.validate_precision
    try:
        actual = run(compile_at(model, precision), feed)
    except Exception as e:
        raise ConversionError(f"--validate: the OpenVINO runtime could not run the IR on inputs {described}: "
                              f"{_first_line(e)}. Give other sizes with --validate_shapes or inputs with "
                              f"--validate_inputs.") from e
    source_feed = [undo_preprocessing(opts, framework, info.names or [info.name], x)
                   for info, x in zip(ir_inputs, feed)]
    try:
        version, expected = RUNNERS[framework](opts, ir_inputs, ir_outputs, source_feed)
    except ConversionError:
        raise
    except Exception as e:
        raise ConversionError(f"--validate: the {framework} framework could not run the model on inputs "
                              f"{described}: {_first_line(e)}. Give other sizes with --validate_shapes or "
                              f"inputs with --validate_inputs.") from e
    tolerance, floor, why = tolerance_for(opts, model, precision)
    checks = [compare_output(info.name, a, e, tolerance, floor) for info, a, e in zip(ir_outputs, actual, expected)]
    shapes = [(info.name, x.shape, model.inputs[i].get_element_type().get_type_name())
              for i, (info, x) in enumerate(zip(ir_inputs, feed))]
    report = ValidationReport(version, shapes, checks, tolerance, why, from_file, precision)
    if opts.validate_layers:
        from mo.runtime.layers import validate_layers
        report.layers = validate_layers(opts, model, framework, ir_inputs, feed, source_feed)
    if not report.passed:
        raise ValidationFailed(report, result)
    return report
