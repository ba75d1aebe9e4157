"""--validate_layers: the first tensor where the IR and the source framework disagree.

After ``--validate`` has compared the outputs, the source model runs with every intermediate
tensor that has a counterpart in the IR exposed, and the IR with the same tensors as extra
outputs (``model.add_outputs``), on the same inputs. A counterpart is the IR tensor that carries
the framework tensor's name (names travel with their tensor through translation and rewrites),
or, in a channels-last model, the tensor the layout step kept in another dimension order
(``ConversionOptions.permuted_tensors``; it is transposed back before comparing). Tensors renamed,
fused away or folded into weights have none and are not compared; the report says how many were.

The framework side comes through the registry from the loader of the model's framework:
``Loader.source_layers(options, ir_inputs, feed)`` returns a ``SourceLayers`` (the tensors its
nodes make, in topological order, and their values by name; the ONNX, TensorFlow and PyTorch
ones live in ``extensions/load/<fw>/layer_outputs.py``). What is here knows no framework.

Tensors are compared in the source model's topological order, in chunks of about
``CHUNK_BYTES`` of values: each chunk runs both models once with its tensors as outputs and is
compared and dropped before the next, so memory stays bounded whatever the model's size. A tensor
passes as an output of --validate does (largest absolute difference at most tolerance x max(1,
its largest magnitude)); the first one beyond it has no failing tensor before it: the IR starts to
differ there, in the IR ops that compute it from the tensors before it.

With ``--validate_precision bf16`` (or f16) every tensor is compared at f32 too: a tensor beyond the
tolerance at f32 is a conversion error; one beyond the precision's wider tolerance at that
precision only is an effect of the precision.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field

import numpy as np

from mo.errors import ConversionError
from mo.runtime.compare import OutputCheck, _first_line, compare_output, tolerance_for
from mo.runtime.openvino_ir import compile_at
from mo.utils.shape import shape_str

CHUNK_BYTES = 256 << 20       # values of the IR's tensors one run exposes
UNKNOWN_DIM = 64              # a dimension the IR leaves dynamic, when estimating a chunk's size
MAX_IR_OPS = 12               # IR ops the report lists for the first differing tensor
TYPE_NAMES = {"float32": "f32", "float16": "f16", "float64": "f64", "bfloat16": "bf16", "int64": "i64",
              "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "uint16": "u16", "uint32": "u32",
              "uint64": "u64", "bool": "boolean"}


@dataclass
class SourceTensor:
    """A tensor a node of the source model makes: its name (as the IR's tensor names carry it),
    the framework op type (as the registry knows it: ``Conv``, ``Conv2D``, ``aten::conv2d``) and
    the node (its name, or where it is when it has none)."""

    name: str
    op: str
    node: str


class SourceLayers:
    """The source model ready to run on the validation inputs: ``framework`` names the runtime
    ("ONNX Runtime 1.23.0"), ``tensors`` are the tensors its nodes compute (constants left out),
    in topological order, and ``values(names)`` runs the model and returns those tensors."""

    framework: str = ""
    tensors: list[SourceTensor]

    def values(self, names: list[str]) -> list[np.ndarray]:
        raise NotImplementedError

    def close(self) -> None:
        """Release what running the model holds (a session)."""


@dataclass
class Counterpart:
    """The IR tensor that holds a framework tensor: output ``port`` of the layer named ``layer``;
    the framework's tensor is ``transpose(it, perm)`` when ``perm`` is set."""

    layer: str
    port: int
    perm: tuple | None = None


@dataclass
class LayerRow:
    """One compared tensor: its checks by inference precision."""

    index: int
    tensor: SourceTensor
    counterpart: Counterpart
    ir_op: str
    ir_shape: tuple = ()
    ir_type: str = ""
    fw_shape: tuple = ()
    fw_type: str = ""
    checks: dict[str, OutputCheck] = field(default_factory=dict)


@dataclass
class FirstDifference:
    """The first tensor beyond the tolerance at one precision, with where it comes from."""

    precision: str
    row: LayerRow
    ir_ops: list[str]
    extractor: str
    translator: str
    at_f32: OutputCheck | None = None     # its check at f32, when the precision is another one


class LayersReport:
    """What --validate_layers found: every compared tensor in order (``rows``), how many of the
    framework's tensors had a counterpart, and the first difference at each precision."""

    def __init__(self, framework: str, fw: str, precisions: list[str], tolerances: dict, total: int,
                 rows: list[LayerRow], chunks: int, first: dict[str, FirstDifference], csv_path: str | None):
        self.framework, self.fw, self.precisions, self.tolerances = framework, fw, precisions, tolerances
        self.total, self.rows, self.chunks, self.first, self.csv_path = total, rows, chunks, first, csv_path
        self.show_all = False

    @property
    def passed(self) -> bool:
        return not self.first

    def failure_message(self) -> str:
        first = self.first.get("f32") or next(iter(self.first.values()))
        t = first.row.tensor
        return (f"--validate_layers: the first tensor beyond the tolerance is '{t.name}' ({self.fw} {t.op} node "
                f"'{t.node}') at {first.precision}.")

    def lines(self) -> list[str]:
        p = "[ VALIDATE ] "
        missing = self.total - len(self.rows)
        runs = ", ".join(self.precisions)
        lines = [f"{p}layers: OpenVINO runtime (CPU, {runs}) vs {self.framework}: {len(self.rows)} of {self.total} "
                 f"{self.fw} tensors compared ({missing} without a counterpart in the IR: renamed, fused away or "
                 f"folded), in topological order, {self.chunks} run{'s' if self.chunks != 1 else ''}"]
        if not self.rows:
            return lines + [f"{p}no tensor of the model has a counterpart in the IR: nothing to compare"]
        if self.show_all:
            lines += self._table(p)
        for precision in self.precisions:
            first = self.first.get(precision)
            tolerance = self.tolerances[precision][0]
            if first is None:
                worst = max(self.rows, key=lambda r: r.checks[precision].max_rel, default=None)
                where = (f"; largest relative difference {worst.checks[precision].max_rel:.3g} at '{worst.tensor.name}'"
                         if worst is not None else "")
                lines.append(f"{p}PASS at {precision}: every compared tensor within the tolerance {tolerance:g}{where}")
                continue
            lines += self._first_lines(p, first, tolerance)
        if self.csv_path:
            lines.append(f"{p}every compared tensor written to {self.csv_path}")
        return lines

    def _first_lines(self, p: str, first: FirstDifference, tolerance: float) -> list[str]:
        row, t, check = first.row, first.row.tensor, first.row.checks[first.precision]
        failed = sum(not r.checks[first.precision].passed for r in self.rows)
        ir_ops = ", ".join(first.ir_ops)
        layout = (f" (the IR holds it in another dimension order: transposed by {list(row.counterpart.perm)} for the "
                  f"comparison)" if row.counterpart.perm else "")
        lines = [f"{p}FAIL at {first.precision}: {failed} of {len(self.rows)} tensors beyond the tolerance "
                 f"{tolerance:g}; the first, in topological order, is #{row.index} '{t.name}'",
                 f"{p}  made by      {self.fw} {t.op} node '{t.node}'",
                 f"{p}  in the IR    {ir_ops}{layout}",
                 f"{p}  extractor    {first.extractor}",
                 f"{p}  translator   {first.translator}",
                 f"{p}  difference   max abs {check.max_abs:.3g}, max rel {check.max_rel:.3g}"
                 f"{'  ' + check.note if check.note else ''}",
                 f"{p}  IR           {row.ir_type} {shape_str(row.ir_shape)}; {self.fw} {row.fw_type} "
                 f"{shape_str(row.fw_shape)}"]
        if first.at_f32 is not None:
            f32_tolerance = self.tolerances["f32"][0]
            if first.at_f32.passed:
                lines.append(f"{p}  at f32       max rel {first.at_f32.max_rel:.3g}, within the tolerance "
                             f"{f32_tolerance:g}: an effect of {first.precision} precision, not of the conversion")
            else:
                lines.append(f"{p}  at f32       max rel {first.at_f32.max_rel:.3g}, beyond the tolerance "
                             f"{f32_tolerance:g} too: the conversion differs there")
        return lines

    def _table(self, p: str) -> list[str]:
        width = min(max([len(r.tensor.name) for r in self.rows] + [6]), 60)
        op_width = min(max([len(r.tensor.op) for r in self.rows] + [5]), 32)
        head = f"{p}{'#':>4s}  {'tensor':{width}s}  {'op':{op_width}s}  {'shape':14s}"
        for precision in self.precisions:
            head += f"  {precision + ' abs':>10s}  {precision + ' rel':>10s}  result"
        lines = [head]
        for r in self.rows:
            line = f"{p}{r.index:4d}  {r.tensor.name[-width:]:{width}s}  {r.tensor.op[-op_width:]:{op_width}s}  " \
                   f"{shape_str(r.fw_shape):14s}"
            for precision in self.precisions:
                c = r.checks[precision]
                line += f"  {c.max_abs:10.3g}  {c.max_rel:10.3g}  {'PASS' if c.passed else 'FAIL'}"
            lines.append(line)
        return lines

    def write_csv(self, path: str) -> None:
        """Every compared tensor, one row each: the CSV of --validate_layers_csv."""
        header = ["index", "tensor", "framework_op", "node", "ir_layer", "ir_port", "ir_op", "permutation",
                  "ir_shape", "ir_type", "framework_shape", "framework_type"]
        for precision in self.precisions:
            header += [f"max_abs_{precision}", f"max_rel_{precision}", f"passed_{precision}", f"note_{precision}"]
        try:
            with open(path, "w", newline="", encoding="utf-8") as f:
                writer = csv.writer(f)
                writer.writerow(header)
                for r in self.rows:
                    c = r.counterpart
                    row = [r.index, r.tensor.name, r.tensor.op, r.tensor.node, c.layer, c.port, r.ir_op,
                           " ".join(map(str, c.perm)) if c.perm else "", shape_str(r.ir_shape), r.ir_type,
                           shape_str(r.fw_shape), r.fw_type]
                    for precision in self.precisions:
                        check = r.checks[precision]
                        row += [f"{check.max_abs:.6g}", f"{check.max_rel:.6g}", int(check.passed), check.note]
                    writer.writerow(row)
        except OSError as e:
            raise ConversionError(f"--validate_layers_csv: cannot write '{path}': {e.strerror or e}.") from e


def type_name(dtype) -> str:
    return TYPE_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name)


def counterparts(model, permuted: dict) -> dict[str, Counterpart]:
    """Framework tensor name -> the IR tensor that holds it: every named output of an IR op
    (inputs left out: they are what both models are given), then the permuted names."""
    found: dict[str, Counterpart] = {}
    for op in model.get_ordered_ops():
        if op.get_type_name() in ("Parameter", "Result"):
            continue
        for output in op.outputs():
            for name in output.get_names():
                found.setdefault(name, Counterpart(op.get_friendly_name(), output.get_index()))
    for (layer, port), names in permuted.items():
        for name, perm in names.items():
            found.setdefault(name, Counterpart(layer, port, tuple(perm)))
    return found


def _nbytes(output) -> int:
    shape = output.get_partial_shape()
    count = 1
    if shape.rank.is_dynamic:
        count = UNKNOWN_DIM ** 4
    else:
        for d in shape:
            count *= d.get_length() if d.is_static else UNKNOWN_DIM
    return count * max(output.get_element_type().size, 1)


def _sized(model, feed: list[np.ndarray]):
    """The model with its inputs fixed to the shapes of ``feed`` (so that the sizes of its tensors
    are known), or the model itself when it cannot be reshaped."""
    import openvino as ov
    if all(p.get_partial_shape().is_static for p in model.inputs):
        return model
    try:
        shaped = model.clone()
        shaped.reshape({p: ov.PartialShape(list(x.shape)) for p, x in zip(shaped.inputs, feed)})
        return shaped
    except Exception:      # the runtime's shape inference refuses: estimate with unknown dims
        return model


def chunks(sizes: list[int], budget: int) -> list[list[int]]:
    """Indexes of ``sizes`` in order, grouped so that each group's total is at most ``budget``
    (a larger item alone)."""
    groups: list[list[int]] = []
    total = budget + 1
    for i, size in enumerate(sizes):
        if total + size > budget:
            groups.append([])
            total = 0
        groups[-1].append(i)
        total += size
    return groups


def ir_runs(model, chunk: list[Counterpart], feed: list[np.ndarray], precisions: list[str]):
    """For each precision, (precision, the values of the IR tensors ``chunk``): the model (a copy)
    with those tensors as extra outputs, compiled and run. The values are views of the runtime's
    buffers, valid until the next item: compare them, do not keep them."""
    clone = model.clone()
    ops = {op.get_friendly_name(): op for op in clone.get_ordered_ops()}
    added = clone.add_outputs([ops[c.layer].output(c.port) for c in chunk])
    indexes = [clone.get_result_index(output) for output in added]
    for precision in precisions:
        request = compile_at(clone, precision).create_infer_request()
        request.infer({i: np.ascontiguousarray(v) for i, v in enumerate(feed)})
        yield precision, [request.get_output_tensor(i).data for i in indexes]
        del request


def _is_constant(op, memo: dict) -> bool:
    """Whether ``op`` computes a constant (a Constant, or an op of constants only: a
    decompression Convert of weights)."""
    name = op.get_friendly_name()
    if name not in memo:
        memo[name] = False
        memo[name] = op.get_type_name() == "Constant" or (
            op.get_input_size() > 0 and all(_is_constant(i.get_source_output().get_node(), memo) for i in op.inputs()))
    return memo[name]


def ir_ops_of(model, target: Counterpart, boundaries: set[tuple[str, int]]) -> list[str]:
    """The IR ops that compute ``target`` from the compared tensors before it (``boundaries``:
    (layer, port) of every counterpart), the model's inputs and its constants, in the IR's order."""
    ops = {op.get_friendly_name(): op for op in model.get_ordered_ops()}
    order = {name: i for i, name in enumerate(ops)}
    memo: dict = {}
    found: set[str] = set()
    stack = [ops[target.layer]]
    while stack and len(found) <= MAX_IR_OPS:
        op = stack.pop()
        name = op.get_friendly_name()
        if name in found:
            continue
        found.add(name)
        for i in op.inputs():
            source = i.get_source_output()
            node = source.get_node()
            if (node.get_friendly_name(), source.get_index()) in boundaries or node.get_type_name() == "Parameter" \
                    or _is_constant(node, memo):
                continue
            stack.append(node)
    listed = [f"{ops[n].get_type_name()} '{n}'" for n in sorted(found, key=order.get)][-MAX_IR_OPS:]
    return listed + (["and more before them"] if stack else [])


def source_layers(opts, framework: str, ir_inputs: list, feed: list[np.ndarray]):
    """The registry's loader of ``framework`` and the ``SourceLayers`` it gives for the model."""
    from mo.registry import Registry
    registry = Registry.build(opts.extensions)
    return registry, registry.loaders[framework]().source_layers(opts, ir_inputs, feed)


def _check(row: LayerRow, a: np.ndarray, e: np.ndarray, tolerance: tuple) -> OutputCheck:
    """One tensor compared: the IR's ``a`` (transposed back or reshaped to the framework's form
    when its counterpart holds it so) with the framework's ``e``."""
    row.ir_shape = a.shape
    if row.counterpart.perm is not None and a.ndim == len(row.counterpart.perm):
        a = np.transpose(a, row.counterpart.perm)
    reshaped = a.shape != e.shape and a.size == e.size
    if reshaped:      # a rewrite removed a Reshape around it: the same elements in another shape
        a = a.reshape(e.shape)
    check = compare_output(row.tensor.name, a, e, tolerance[0], tolerance[1])
    if reshaped:
        check.note = " ".join(filter(None, [check.note, f"IR shape {shape_str(row.ir_shape)} compared reshaped"]))
    return check


def _compare(model, source: SourceLayers, compared: list, groups: list[list[int]], feed: list[np.ndarray],
             precisions: list[str], tolerances: dict) -> list[LayerRow]:
    """The rows of ``compared`` (framework tensor, counterpart) pairs, run chunk by chunk."""
    ir_ops = {op.get_friendly_name(): op for op in model.get_ordered_ops()}
    rows: list[LayerRow] = []
    for group in groups:
        part = [compared[i] for i in group]
        try:
            expected = [np.asarray(e) for e in source.values([t.name for t, _ in part])]
        except ConversionError:
            raise
        except Exception as e:
            raise ConversionError(f"--validate_layers: {source.framework} could not compute the tensors "
                                  f"'{part[0][0].name}' ... '{part[-1][0].name}': {_first_line(e)}") from e
        chunk_rows = []
        for (tensor, where), e in zip(part, expected):
            op = ir_ops[where.layer]
            chunk_rows.append(LayerRow(len(rows) + len(chunk_rows) + 1, tensor, where, op.get_type_name(),
                                       fw_shape=e.shape, fw_type=type_name(e.dtype),
                                       ir_type=op.output(where.port).get_element_type().get_type_name()))
        runs = ir_runs(model, [c for _, c in part], feed, precisions)
        while True:
            try:
                precision, actual = next(runs)
            except StopIteration:
                break
            except Exception as e:
                raise ConversionError(f"--validate_layers: the OpenVINO runtime could not run the IR with the "
                                      f"tensors '{part[0][0].name}' ... '{part[-1][0].name}' as outputs: "
                                      f"{_first_line(e)}") from e
            for row, a, e in zip(chunk_rows, actual, expected):
                row.checks[precision] = _check(row, a, e, tolerances[precision])
            del actual
        rows += chunk_rows
        del expected
    return rows


def validate_layers(opts, model, framework: str, ir_inputs: list, feed: list[np.ndarray],
                    source_feed: list[np.ndarray]) -> LayersReport:
    """Compare every tensor of the source model that has a counterpart in the IR ``model`` (an
    ``openvino.Model``), run on ``feed`` (the source model on ``source_feed``)."""
    from mo.pipeline.explain import handled_by
    try:
        registry, source = source_layers(opts, framework, ir_inputs, source_feed)
    except ConversionError:
        raise
    except Exception as e:
        raise ConversionError(f"--validate_layers: the {framework} framework could not load the model to run it "
                              f"layer by layer: {_first_line(e)}") from e
    where = counterparts(model, opts.permuted_tensors)
    compared: list[tuple[SourceTensor, Counterpart]] = []
    seen: set[str] = set()
    for tensor in source.tensors:
        if tensor.name in where and tensor.name not in seen:
            seen.add(tensor.name)
            compared.append((tensor, where[tensor.name]))
    precisions = ["f32"] if opts.validate_precision == "f32" else ["f32", opts.validate_precision]
    tolerances = {p: tolerance_for(opts, model, p) for p in precisions}
    sized = {op.get_friendly_name(): op for op in _sized(model, feed).get_ordered_ops()}
    sizes = [_nbytes(sized[c.layer].output(c.port)) if c.layer in sized else 0 for _, c in compared]
    groups = chunks(sizes, CHUNK_BYTES)
    try:
        rows = _compare(model, source, compared, groups, feed, precisions, tolerances)
    finally:
        source.close()
    boundaries = {(c.layer, c.port) for _, c in compared}
    first: dict[str, FirstDifference] = {}
    for precision in precisions:
        row = next((r for r in rows if not r.checks[precision].passed), None)
        if row is None:
            continue
        extractor, translator = handled_by(registry, framework, row.tensor.op)
        first[precision] = FirstDifference(precision, row, ir_ops_of(model, row.counterpart, boundaries - {
            (row.counterpart.layer, row.counterpart.port)}), extractor, translator,
            row.checks["f32"] if precision != "f32" else None)
    report = LayersReport(source.framework, framework, precisions, tolerances, len(source.tensors), rows, len(groups),
                          first, opts.validate_layers_csv)
    report.show_all = bool(opts.report)
    if opts.validate_layers_csv:
        report.write_csv(opts.validate_layers_csv)
    return report
