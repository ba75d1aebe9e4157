"""--compress_to_fp16: float32 weights stored as float16, decompressed by a Convert at run time."""
from __future__ import annotations

import numpy as np

from extensions.back.cleanup import RemoveDeadNodes
from mo.emit.bin_writer import CHUNK_BYTES, flat_parts, release_pages
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import Transform
from mo.utils.types import is_int

F16_MAX = 65504.0
F16_TINY = 2.0 ** -24
# Constants with fewer elements stay f32: they save next to nothing and are often precision-
# sensitive scalars (epsilons, activation parameters, clamp bounds).
MIN_ELEMENTS = 16


def fits_f16(value: np.ndarray) -> bool:
    """Whether to store ``value`` as float16: it has at least MIN_ELEMENTS values, none beyond
    the float16 range, and (for small tensors) none that would flush to zero. NaNs are kept as
    they are. Read chunk by chunk, without a temporary of the tensor's size, and the pages of a
    memory-mapped weight are released once read."""
    if value.size < MIN_ELEMENTS:
        return False
    # fmax/fmin skip NaNs (only NaNs give NaN, which compares False); an infinity is beyond the range
    if value.size <= 64:
        magnitude = np.abs(value)
        return not np.fmax.reduce(magnitude, axis=None) > F16_MAX and \
            not np.any((magnitude > 0) & (magnitude < F16_TINY))
    for chunk in flat_parts(value, CHUNK_BYTES // value.itemsize):
        beyond = np.fmax.reduce(chunk) > F16_MAX or np.fmin.reduce(chunk) < -F16_MAX
        release_pages(chunk)
        if beyond:
            return False
    return True


def feeds_precision_sensitive_input(consumers) -> bool:
    """Whether one of the input ports ``consumers`` is listed in its op class's
    ``precision_sensitive_inputs`` (values that decide shapes, such as Interpolate's scales)."""
    return any(port.idx in getattr(port.node.op_class, "precision_sensitive_inputs", ()) for port in consumers)


def decompressed_integers(port) -> bool:
    """Whether ``port`` carries integer weights being decompressed: a non-foldable Convert of an
    integer Const, possibly already shifted by its zero point (Subtract)."""
    node = port.node
    if node.op == "Subtract":
        node = node.in_port(0).get_source().node
    if node.op != "Convert" or node.get("foldable", True):
        return False
    source = node.in_port(0).get_source()
    return source.node.op == "Const" and is_int(source.data.get_dtype())


def feeds_dequantization(consumers) -> bool:
    """Whether one of the input ports ``consumers`` is the zero point (Subtract) or scale
    (Multiply) of integer weights' decompression: OpenVINO's low-precision transformations read
    them as f32 constants, and rounded to f16 they would move every dequantized value."""
    for port in consumers:
        node = port.node
        if node.op in ("Subtract", "Multiply") and len(node.in_ports()) == 2:
            other = node.in_port(1 - port.idx).get_source()
            if other is not None and decompressed_integers(other):
                return True
    return False


QUANTIZABLE = ("Convolution", "GroupConvolution", "MatMul", "ConvolutionBackpropData", "GroupConvolutionBackpropData")


def feeds_quantized_bias(consumers) -> bool:
    """Whether one of ``consumers`` adds a bias to a layer the runtime runs in int8 (fed by a
    FakeQuantize): it is added to the exact integer accumulator, and the sum is quantized again,
    so a bias rounded to f16 moves outputs by whole steps."""
    for port in consumers:
        node = port.node
        if node.op != "Add" or len(node.in_ports()) != 2:
            continue
        layer = node.in_port(1 - port.idx).get_source().node
        if layer.op in QUANTIZABLE and layer.in_port(0).get_source().node.op == "FakeQuantize":
            return True
    return False


class CompressWeightsToFP16(Transform):
    """Every f32 Const whose values fit float16 becomes an f16 Const followed by a Convert to f32
    marked ``decompression`` in rt_info (the runtime folds it back or computes in f16). Consts
    feeding precision-sensitive inputs, the scales and zero points of quantized weights and the
    biases of quantized layers stay f32.

    The compression is lazy: the f16 Const keeps the float32 array (often a view of the model
    file) and the IR writer converts it chunk by chunk as it writes the .bin (mo/emit/bin_writer),
    so no float16 copy of the weights is ever held. The Convert is not constant-folded (that
    would hold a float32 copy of every weight on its output)."""

    phase = "back"
    on_save = True

    def run_before(self):
        return [RemoveDeadNodes]

    def graph_condition(self, graph) -> bool:
        return graph.options.compress_to_fp16

    def find_and_replace_pattern(self, graph) -> None:
        for const in graph.nodes_by_op("Const"):
            if const.element_type != "f32":
                continue
            consumers = const.out_port(0).get_destinations()
            if not consumers or feeds_precision_sensitive_input(consumers) or feeds_dequantization(consumers) \
                    or feeds_quantized_bias(consumers):
                continue
            value = np.asarray(const.value)
            if not fits_f16(value):
                continue
            b = OpBuilder(graph, const.name)
            names = const.out_port(0).remove_tensor_names()
            small = b.const(np.zeros(0, np.float16), name=f"{const.name}_compressed", element_type="f16")
            small.node["value"] = value      # stored as f16 by the writer
            small.data.set_value(value)
            convert = b.node("Convert", small, destination_type="f32", name=const.name,
                             rt_info={"decompression": None}, foldable=False)
            convert.out_port(0).add_tensor_names(names)
            for port in consumers:
                convert.out_port(0).connect(port)
            graph.remove_node(const.id)
