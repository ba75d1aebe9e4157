"""--compress_weights int8|int4_sym|int4_asym: data-free weight compression of MatMul and embedding
weights, decompressed in the IR by the pattern OpenVINO's CPU plugin executes as compressed weights.

A 2-D float weight (f32, f16 or bf16 Const, also behind the decompression Convert of
--compress_to_fp16) that is the weight input of a MatMul (either ``transpose_b``) or the data of an
embedding Gather (axis 0) becomes::

    Const(u8|u4|i4) -> Convert(f16) [-> Subtract(Convert(zero point u8|u4))] -> Multiply(scale f16)
        [-> Reshape to the weight's shape] [-> Convert(f32)] -> MatMul / Gather

The CPU plugin recognises this (its MarkDequantization / FullyConnected weights-decompression
fusions): the FullyConnected (or Gather) of the compiled model reads the u8/u4/i4 weights and
decompresses them on the fly; no rt_info is needed for that, and the Converts are not folded.
A [K, N] weight (``transpose_b`` false, ONNX MatMul) keeps its layout, grouped along K; the plugin
transposes the integers once when it compiles the model. (bf16 activations: the plugin
decompresses the weights once at compile time instead; the IR is as small.)

- int8: u8 weights with a scale and a u8 zero point per output channel (asymmetric: a range
  [min, max] around 0 uses all 256 levels, more exact than symmetric i8 for weights whose range
  is lopsided; the CPU plugin fuses both);
- int4_sym: i4 weights in [-8, 7], one scale per group of ``group_size`` values along the
  reduction axis (the value of largest magnitude divided by -8, so that it is stored exactly, as
  -8; values of the other sign are exact up to 7/8 of its magnitude), no zero point (i4 rather
  than u4 with a zero point 8: no Subtract, the same fused kernel);
- int4_asym: u4 weights, a scale and a u4 zero point per group.

In the int4 modes the embeddings (Gather data) and the last projection (the MatMul that makes a
model output, the logits) are kept int8, as are weights whose reduction dimension the group size
does not divide (logged). Weights of fewer than MIN_ELEMENTS values, and weights with NaN or
infinite values, stay as --compress_to_fp16 left them. The pass runs after fp16 compression (a
weight it compressed is quantized from its float32 values and its f16 Const dropped) and after
MergeDuplicateConstants (a weight shared by several MatMuls is quantized once).

Scales and zero points are computed here, reading each weight chunk by chunk (the pages of a
memory-mapped weight are released as they are read); they are small: 3 bytes per output channel
with int8, 2 or 2.5 bytes per group with int4 (1/200 of the float32 weights with groups of 128).
The integer weights
themselves are computed only when the IR writer streams them to the .bin (a ``LazyConstant`` that
keeps the float weights, often a view of the model file), chunk by chunk: no quantized copy of
all weights is ever held.

Scales are f16 (as the CPU plugin decompresses in f16) unless --compress_to_fp16=False, or a
weight's scales leave the normal float16 range (below 2^-14 they would lose precision): then f32.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from extensions.back.common_subexpressions import EliminateCommonSubexpressions
from extensions.back.compress_fp16 import CompressWeightsToFP16
from extensions.back.merge_constants import MergeDuplicateConstants
from mo.emit.bin_writer import CHUNK_BYTES, LazyConstant, release_pages
from mo.graph.builder import OpBuilder
from mo.graph.building import i64
from mo.pipeline.transform import Transform
from mo.utils.types import bf16_bits_to_f32

log = logging.getLogger("mo.compress_weights")

# Weights with fewer values stay float: they save next to nothing.
MIN_ELEMENTS = 4096
FLOAT_TYPES = ("f32", "f16", "bf16")
F16_NORMAL_MIN = 2.0 ** -14
F16_MAX = 65504.0


@dataclass(frozen=True)
class Scheme:
    """How a weight's integers are stored: element type, range, and whether there is a zero point."""

    name: str
    element_type: str
    low: int
    high: int
    asymmetric: bool

    @property
    def dtype(self):
        return np.int8 if self.low < 0 else np.uint8


INT8 = Scheme("int8", "u8", 0, 255, True)
SCHEMES = {"int8": INT8, "int4_sym": Scheme("int4_sym", "i4", -8, 7, False),
           "int4_asym": Scheme("int4_asym", "u4", 0, 15, True)}


def _float32(part: np.ndarray) -> np.ndarray:
    """A chunk of a weight as float32; uint16 chunks are raw bf16 bit patterns (weights read from
    a safetensors file)."""
    return bf16_bits_to_f32(part) if part.dtype == np.uint16 else part.astype(np.float32)


def _blocks(source: np.ndarray, axis: int, group: int) -> Iterator[tuple[slice, np.ndarray]]:
    """``source`` (2-D) in chunks of whole rows, each as float32 of a 3-D grouped shape with the
    slice of the scale array (grouped shape, 1 along the group) that applies to it:
    axis 1 (rows are output channels, [N, K]): rows [r0:r1] as (rows, K/group, group) with scales
    [r0:r1]; axis 0 (columns are output channels, [K, N]): whole groups of rows as
    (groups, group, N) with scales [g0:g1], or part of one group (rows, N) as (1, rows, N) with
    scales [g:g+1]. The pages of a memory-mapped source are released once a chunk is read."""
    rows, row_len = source.shape
    per_chunk = max(1, CHUNK_BYTES // max(1, row_len * source.itemsize))
    if axis == 1:
        for r0 in range(0, rows, per_chunk):
            part = source[r0:r0 + per_chunk]
            yield slice(r0, r0 + len(part)), _float32(part).reshape(len(part), row_len // group, group)
            release_pages(part)
        return
    step = per_chunk // group * group if per_chunk >= group else per_chunk
    r0 = 0
    while r0 < rows:
        end = min(r0 + step, rows) if step % group == 0 else min(r0 + step, (r0 // group + 1) * group)
        part = source[r0:end]
        whole = r0 % group == 0 and (end - r0) % group == 0
        g0 = r0 // group
        count = (end - r0) // group if whole else 1
        yield slice(g0, g0 + count), _float32(part).reshape(count, -1, row_len)
        release_pages(part)
        r0 = end


def _grouped_shape(shape: tuple, axis: int, group: int) -> tuple:
    n_groups = shape[axis] // group
    return (shape[0], n_groups, group) if axis == 1 else (n_groups, group, shape[1])


def _stats_shape(shape: tuple, axis: int, group: int) -> tuple:
    grouped = list(_grouped_shape(shape, axis, group))
    grouped[2 if axis == 1 else 1] = 1
    return tuple(grouped)


def _ranges(source: np.ndarray, axis: int, group: int) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest value of each group (float32, the grouped shape with 1 along the
    group); NaN where a group holds a NaN."""
    shape = _stats_shape(source.shape, axis, group)
    low, high = np.full(shape, np.inf, np.float32), np.full(shape, -np.inf, np.float32)
    reduce_axis = 2 if axis == 1 else 1
    for where, block in _blocks(source, axis, group):
        low[where] = np.minimum(low[where], block.min(axis=reduce_axis, keepdims=True))
        high[where] = np.maximum(high[where], block.max(axis=reduce_axis, keepdims=True))
    return low, high


@dataclass
class Quantized:
    """One weight's quantization: the source, its grouping, scales (in their stored dtype) and
    zero points."""

    source: np.ndarray
    axis: int
    group: int
    scheme: Scheme
    scale: np.ndarray
    zero_point: np.ndarray | None

    def parts(self) -> Iterator[np.ndarray]:
        """The integer weights in C order of the stored shape, chunk by chunk."""
        scale = self.scale.astype(np.float32)
        for where, block in _blocks(self.source, self.axis, self.group):
            q = np.rint(block / scale[where])
            if self.zero_point is not None:
                q += self.zero_point[where]
            yield np.clip(q, self.scheme.low, self.scheme.high).astype(self.scheme.dtype).reshape(-1)

    def stored_shape(self) -> tuple:
        shape = self.source.shape
        if shape[self.axis] == self.group:       # one group: per output channel, no Reshape
            return shape
        return _grouped_shape(shape, self.axis, self.group)

    def stored_bytes(self) -> int:
        """Bytes in the .bin: the integers, the scales and the zero points."""
        bits = 4 if self.scheme.element_type in ("u4", "i4") else 8
        values = (self.source.size * bits + 7) // 8 + self.scale.nbytes
        return values + (0 if self.zero_point is None else (self.zero_point.size * bits + 7) // 8)

    def param_shape(self) -> tuple:
        shape = _stats_shape(self.source.shape, self.axis, self.group)
        if self.source.shape[self.axis] == self.group:
            return (shape[0], 1) if self.axis == 1 else (1, shape[2])
        return shape


def quantize(source: np.ndarray, axis: int, group: int, scheme: Scheme, scale_type: str) -> Quantized | None:
    """Scales and zero points of ``source`` (2-D) with groups of ``group`` along ``axis``, or None
    when the weight holds NaN or infinite values. ``scale_type`` "f16" becomes "f32" when a
    scale is outside the normal float16 range."""
    low, high = _ranges(source, axis, group)
    if not (np.isfinite(low).all() and np.isfinite(high).all()):
        return None
    low, high = np.minimum(low, 0), np.maximum(high, 0)      # 0 is represented exactly
    levels = scheme.high - scheme.low
    if scheme.asymmetric:
        scale = (high - low) / levels
    else:       # the value of largest magnitude becomes exactly `low` (-8): its sign gives the scale's
        scale = np.where(high >= -low, high, low) / scheme.low
    scale = np.where(scale != 0, scale, 1.0).astype(np.float32)
    magnitude = np.abs(scale)
    if scale_type == "f16" and (magnitude.min() < F16_NORMAL_MIN or magnitude.max() > F16_MAX):
        scale_type = "f32"
    scale = scale.astype(np.float16 if scale_type == "f16" else np.float32)
    zero_point = None
    if scheme.asymmetric:
        zero_point = np.clip(np.rint(-low / scale.astype(np.float32)), scheme.low, scheme.high).astype(np.uint8)
    return Quantized(source, axis, group, scheme, scale, zero_point)


# --------------------------------------------------------------------------- graph side

@dataclass
class WeightUse:
    """A float weight that can be compressed: the Const, the port its consumers read (the Const's,
    or that of the Convert after it), the reduction axis and its role."""

    const: object
    port: object
    axis: int
    embedding: bool
    last: bool


def _weight_source(port):
    """(Const, port) when ``port`` is a float Const's output or a float Convert of one."""
    node = port.node
    if node.op == "Convert" and node.get("destination_type") in FLOAT_TYPES and node.is_in_port_connected(0):
        inner = node.in_port(0).get_source()
        if inner.node.op == "Const" and inner.node.element_type in FLOAT_TYPES:
            return inner.node
    if node.op == "Const" and node.element_type in FLOAT_TYPES:
        return node
    return None


def _reduction_axis(dest) -> tuple[int, bool] | None:
    """(reduction axis of a 2-D weight, is an embedding) for a consumer port that takes a weight."""
    node = dest.node
    if node.op == "MatMul" and dest.idx == 1:
        return (1 if node.get("transpose_b") else 0), False
    if node.op == "Gather" and dest.idx == 0 and node.get("batch_dims", 0) == 0 and node.is_in_port_connected(2):
        axis = node.in_port(2).data.get_value()
        if axis is not None and np.asarray(axis).size == 1 and int(np.asarray(axis).reshape(-1)[0]) in (0, -2):
            return 1, True
    return None


def _constant(port) -> bool:
    """Whether ``port`` is constant: it has a value, or is a Convert of a constant (the
    decompression of an fp16-compressed weight)."""
    if port.data.get_value() is not None:
        return True
    node = port.node
    return node.op == "Convert" and node.is_in_port_connected(0) and _constant(node.in_port(0).get_source())


def _last_projections(graph) -> set:
    """MatMuls that make a model output: reached from a Result through ops with one non-constant
    input (Add of a bias, Reshape, Convert...)."""
    found = set()
    for result in graph.nodes_by_op("Result"):
        node = result.in_port(0).get_source().node
        for _ in range(32):
            if node.op == "MatMul":
                found.add(node.id)
                break
            sources = [node.in_port(i).get_source() for i in sorted(node.in_ports()) if node.is_in_port_connected(i)]
            live = [s for s in sources if not _constant(s)]
            if len(live) != 1:
                break
            node = live[0].node
    return found


def _uses(graph) -> list[WeightUse]:
    last = _last_projections(graph)
    uses, seen = [], set()
    for node in list(graph.op_nodes()):
        if node.op not in ("MatMul", "Gather") or not node.is_in_port_connected(1 if node.op == "MatMul" else 0):
            continue
        port = node.in_port(1 if node.op == "MatMul" else 0).get_source()
        key = (port.node.id, port.idx)
        if key in seen:
            continue
        seen.add(key)
        const = _weight_source(port)
        if const is None or np.ndim(const.value) != 2 or np.size(const.value) < MIN_ELEMENTS:
            continue
        kinds = [_reduction_axis(d) for d in port.get_destinations()]
        if any(k is None for k in kinds) or len({axis for axis, _ in kinds}) != 1:
            continue
        uses.append(WeightUse(const, port, kinds[0][0], any(e for _, e in kinds),
                              any(d.node.id in last for d in port.get_destinations())))
    return uses


class CompressWeights(Transform):
    """--compress_weights: MatMul and embedding weights stored as u8/u4/i4 with scales (and zero
    points), decompressed by Convert -> Subtract -> Multiply (module docstring)."""

    phase = "back"

    def run_after(self):
        return [CompressWeightsToFP16, MergeDuplicateConstants, EliminateCommonSubexpressions]

    def graph_condition(self, graph) -> bool:
        return graph.options.compress_weights is not None

    def find_and_replace_pattern(self, graph) -> None:
        opts = graph.options
        scheme = SCHEMES[opts.compress_weights]
        compute = "f16" if opts.compress_to_fp16 else "f32"
        fallbacks = []
        for use in _uses(graph):
            value = use.const.value
            source = value if isinstance(value, np.ndarray) else np.asarray(value)
            length = source.shape[use.axis]
            chosen, group = scheme, length
            if scheme is not INT8 and not (use.embedding or use.last):
                group = length if opts.group_size == -1 else opts.group_size
                if length % group:
                    chosen, group = INT8, length
                    fallbacks.append(f"{use.port.node.name} ({length})")
            elif scheme is not INT8:
                chosen = INT8
            quantized = quantize(source, use.axis, group, chosen, compute)
            if quantized is None:
                log.info("--compress_weights: '%s' holds NaN or infinite values; kept as it is", use.port.node.name)
                continue
            self._replace(graph, use, quantized)
        if fallbacks:
            log.info("--compress_weights %s: --group_size %d does not divide the reduction dimension of %s; "
                     "stored int8 per channel", opts.compress_weights, opts.group_size, ", ".join(fallbacks))

    @staticmethod
    def _replace(graph, use: WeightUse, q: Quantized) -> None:
        const, port = use.const, use.port
        name = port.node.name      # the weight's (the fp16 decompression Convert is named after it)
        out_type = port.data.get_dtype()
        scale_type = "f16" if q.scale.dtype == np.float16 else "f32"
        b = OpBuilder(graph, name)
        stored = b.const(np.zeros(0, q.scheme.dtype), name=f"{name}_{q.scheme.element_type}",
                         element_type=q.scheme.element_type)
        lazy = LazyConstant(q.stored_shape(), q.scheme.dtype, q.parts)
        stored.node["value"] = lazy
        # for the summary: the type and size the weight would have in the .bin without it
        stored.node["compressed_weight"] = {"scheme": q.scheme.name, "source_type": const.element_type,
                                            "source_bytes": q.source.size * (4 if const.element_type == "f32" else 2),
                                            "stored_bytes": q.stored_bytes()}
        stored.data.set_value(None)
        stored.data.set_shape(lazy.shape)
        x = b.node("Convert", stored, destination_type=scale_type, foldable=False,
                   name=f"{name}_decompress").out_port(0)
        if q.zero_point is not None:
            zp = b.const(q.zero_point.reshape(q.param_shape()), name=f"{name}_zero_point",
                         element_type=q.scheme.element_type)
            zp = b.node("Convert", zp, destination_type=scale_type, foldable=False).out_port(0)
            x = b.Subtract(x, zp)
        x = b.Multiply(x, b.const(q.scale.reshape(q.param_shape()), name=f"{name}_scale",
                                  element_type=scale_type))
        if q.stored_shape() != q.source.shape:
            x = b.Reshape(x, i64(*q.source.shape), special_zero=False)
        if out_type != scale_type:
            x = b.Convert(x, destination_type=out_type)
        names = port.remove_tensor_names()
        x.add_tensor_names(names)
        for dest in port.get_destinations():
            x.connect(dest)
        if not const.out_port(0).get_destinations():
            graph.remove_node(const.id)

