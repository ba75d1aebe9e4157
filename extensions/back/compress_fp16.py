"""--compress_to_fp16: float32 weights stored as float16, decompressed by a Convert at run time."""
from __future__ import annotations

import numpy as np

from extensions.back.cleanup import RemoveDeadNodes
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import Transform

F16_MAX = 65504.0
F16_TINY = 2.0 ** -24
# Constants with fewer elements stay f32: they save next to nothing and are often precision-
# sensitive scalars (epsilons, activation parameters, clamp bounds).
MIN_ELEMENTS = 16


def fits_f16(value: np.ndarray) -> bool:
    """Whether to store ``value`` as float16: it has at least MIN_ELEMENTS values, none beyond
    the float16 range, and (for small tensors) none that would flush to zero."""
    if value.size < MIN_ELEMENTS:
        return False
    magnitude = np.abs(value)
    if not np.all(np.isfinite(magnitude[~np.isnan(magnitude)])) or np.nanmax(magnitude) > F16_MAX:
        return False
    if value.size <= 64 and np.any((magnitude > 0) & (magnitude < F16_TINY)):
        return False
    return True


def feeds_precision_sensitive_input(const) -> bool:
    """Whether the Const feeds an input its consumer's op class lists in
    ``precision_sensitive_inputs`` (values that decide shapes, such as Interpolate's scales)."""
    return any(port.idx in getattr(port.node.op_class, "precision_sensitive_inputs", ())
               for port in const.out_port(0).get_destinations())


class CompressWeightsToFP16(Transform):
    """Every f32 Const whose values fit float16 becomes an f16 Const followed by a Convert to f32
    marked ``decompression`` in rt_info (the runtime folds it back or computes in f16). Consts
    feeding precision-sensitive inputs stay f32."""

    phase = "back"

    def run_before(self):
        return [RemoveDeadNodes]

    def graph_condition(self, graph) -> bool:
        return graph.options.compress_to_fp16

    def find_and_replace_pattern(self, graph) -> None:
        for const in graph.nodes_by_op("Const"):
            if const.element_type != "f32" or not const.out_port(0).is_connected():
                continue
            value = np.asarray(const.value)
            if not fits_f16(value) or feeds_precision_sensitive_input(const):
                continue
            b = OpBuilder(graph, const.name)
            consumers = const.out_port(0).get_destinations()
            names = const.out_port(0).remove_tensor_names()
            small = b.const(value.astype(np.float16), name=f"{const.name}_compressed")
            convert = b.node("Convert", small, destination_type="f32", name=const.name,
                             rt_info={"decompression": None})
            convert.out_port(0).add_tensor_names(names)
            for port in consumers:
                convert.out_port(0).connect(port)
            graph.remove_node(const.id)
