"""What a conversion produced, in a few lines (logged at INFO after the IR is written): the IR's
inputs and outputs with shapes and types, its op counts by type, the rewrites that changed the
graph (fusions, folding), the size of the weights and whether they were compressed to fp16, and
how many layers are quantized (the form OpenVINO runs in int8)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from mo.graph.graph import all_graphs
from mo.pipeline.progress import human_bytes
from mo.utils.shape import shape_str


@dataclass
class TensorInfo:
    """An input or output of the IR: its name, the other names of its tensor, shape and type."""

    name: str
    names: list[str]
    shape: tuple | None
    element_type: str | None

    def __str__(self) -> str:
        return f"{self.name} {shape_str(self.shape)} {self.element_type}"


@dataclass
class Summary:
    inputs: list[TensorInfo]
    outputs: list[TensorInfo]
    op_counts: dict[str, int]
    rewrites: list[tuple[str, int, int]] = field(default_factory=list)   # (name, ops added, ops removed)
    weights_bytes: int = 0
    compressed: int = 0          # Consts stored as f16 by --compress_to_fp16
    compressed_bytes: int = 0
    # --compress_weights: weights stored as integers, by scheme (int8, int4_sym, int4_asym): how
    # many, and their bytes without it (as float) and with it (integers, scales, zero points)
    int_weights: dict[str, int] = field(default_factory=dict)
    int_weights_before: int = 0
    int_weights_after: int = 0
    int_weights_from: set = field(default_factory=set)     # their float types without it (f32, f16)
    # convolutions and matrix products: all of them, those with FakeQuantize activations and
    # integer (or fake-quantized) weights, and those with integer weights only
    layers: int = 0
    quantized_layers: int = 0
    weight_only_layers: int = 0

    def quantization_line(self) -> str | None:
        """How many layers are quantized, in one line (None in a float model)."""
        if not self.quantized_layers and not self.weight_only_layers:
            return None
        line = (f"Quantized layers: {self.quantized_layers} of {self.layers} convolutions and matrix products "
                f"have quantized activations and weights (the CPU runs them in int8)")
        if self.weight_only_layers:
            line += f", {self.weight_only_layers} integer weights only"
        return line

    def compression_line(self) -> str | None:
        """What --compress_weights did, in one line (None without it)."""
        if not self.int_weights:
            return None
        kinds = ", ".join(f"{n} {scheme}" for scheme, n in sorted(self.int_weights.items()))
        return (f"Compressed weights ({kinds}): {human_bytes(self.int_weights_before)} as "
                f"{'/'.join(sorted(self.int_weights_from))} -> {human_bytes(self.int_weights_after)} with "
                f"scales and zero points, {self.int_weights_before / max(1, self.int_weights_after):.1f}x smaller")

    def lines(self) -> list[str]:
        ops = ", ".join(f"{t} {n}" for t, n in sorted(self.op_counts.items(), key=lambda kv: (-kv[1], kv[0])))
        lines = [f"Inputs: {'; '.join(map(str, self.inputs)) or 'none'}",
                 f"Outputs: {'; '.join(map(str, self.outputs)) or 'none'}",
                 f"Operations ({sum(self.op_counts.values())}): {ops}"]
        if self.rewrites:
            lines.append("Rewrites that changed the graph: " + ", ".join(
                f"{name} (+{added} -{removed} ops)" for name, added, removed in self.rewrites))
        weights = f"Weights: {human_bytes(self.weights_bytes)}"
        if self.compressed:
            weights += (f", {self.compressed} constant{'s' if self.compressed > 1 else ''} "
                        f"({human_bytes(self.compressed_bytes)}) compressed to fp16")
        elif not self.int_weights:
            weights += ", not compressed (float32 weights kept)"
        lines.append(weights)
        if self.int_weights:
            lines.append(self.compression_line())
        if self.quantization_line():
            lines.append(self.quantization_line())
        return lines


LAYERS = frozenset({"Convolution", "GroupConvolution", "ConvolutionBackpropData", "GroupConvolutionBackpropData",
                    "MatMul"})
# ops between a quantization and the layer that reads it which keep values on the grid
_LAYOUT = frozenset({"Transpose", "Reshape", "Unsqueeze", "Squeeze"})


def _through_layout(port):
    while port is not None and port.node.op in _LAYOUT:
        port = port.node.in_port(0).get_source()
    return port


def _quantized_activations(port) -> bool:
    port = _through_layout(port)
    return port is not None and port.node.op == "FakeQuantize"


def _integer_weights(port) -> bool:
    """Integer Const -> Convert (not folded) -> [Subtract] -> [Multiply], or FakeQuantize of weights."""
    port = _through_layout(port)
    node = None if port is None else port.node
    for op in ("Multiply", "Subtract"):
        if node is not None and node.op == op:
            node = node.in_port(0).get_source().node
    if node is not None and node.op == "FakeQuantize":
        return node.in_port(0).get_source().node.op in ("Const", "Convert")
    if node is None or node.op != "Convert" or node.get("foldable", True):
        return False
    source = node.in_port(0).get_source()
    return source.node.op == "Const" and (source.data.get_dtype() or "f").startswith(("i", "u"))


def _count_layer(node, summary) -> None:
    summary.layers += 1
    if node.is_in_port_connected(1) and _integer_weights(node.in_port(1).get_source()):
        if _quantized_activations(node.in_port(0).get_source()):
            summary.quantized_layers += 1
        else:
            summary.weight_only_layers += 1


def _tensor_names(node, port: int) -> list[str]:
    return list((node.get("tensor_names") or {}).get(port) or [])


def io_info(graph) -> tuple[list[TensorInfo], list[TensorInfo]]:
    """The IR's inputs and outputs in the order the IR lists them."""
    def seq(n):
        return n["_seq"]
    inputs = []
    for p in sorted(graph.nodes_by_op("Parameter"), key=seq):
        names = _tensor_names(p, 0)
        inputs.append(TensorInfo(p.name, names, p.out_port(0).data.get_shape(), p.out_port(0).data.get_dtype()))
    outputs = []
    for r in sorted(graph.nodes_by_op("Result"), key=seq):
        source = r.in_port(0).get_source()
        names = _tensor_names(source.node, source.idx)
        outputs.append(TensorInfo(names[0] if names else r.name, names, source.data.get_shape(),
                                  source.data.get_dtype()))
    return inputs, outputs


def summarize(graph, rewrites: list[tuple[str, int, int]], weights_bytes: int) -> Summary:
    counts: Counter = Counter()
    summary = Summary([], [], {})
    compressed = compressed_bytes = 0
    for g in all_graphs(graph):
        for node in g.op_nodes():
            if node.op in ("Parameter", "Result") and g is not graph:
                continue
            counts[node.op] += 1
            if node.op in LAYERS:
                _count_layer(node, summary)
            if node.get("compressed_weight"):
                _count_int_weight(node, summary)
            if node.op == "Convert" and "decompression" in (node.get("rt_info") or {}):
                compressed += 1
                value = node.in_port(0).get_source().data.get_value()
                compressed_bytes += 2 * (value.size if value is not None else 0)
    summary.inputs, summary.outputs = io_info(graph)
    summary.op_counts, summary.rewrites, summary.weights_bytes = dict(counts), rewrites, weights_bytes
    summary.compressed, summary.compressed_bytes = compressed, compressed_bytes
    return summary


def _count_int_weight(node, summary: Summary) -> None:
    """Count a weight --compress_weights stored as integers: its scheme, its bytes as float and
    those of its integers, scales and zero points."""
    info = node["compressed_weight"]
    summary.int_weights[info["scheme"]] = summary.int_weights.get(info["scheme"], 0) + 1
    summary.int_weights_before += info["source_bytes"]
    summary.int_weights_after += info["stored_bytes"]
    summary.int_weights_from.add(info["source_type"])
