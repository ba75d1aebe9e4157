"""Duplicate constants: identical Const layers (same type, shape and bytes) become one."""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from extensions.back.cleanup import RemoveDeadNodes
from extensions.back.compress_fp16 import CompressWeightsToFP16
from mo.emit.bin_writer import head_tail, stored_dtype, values_equal
from mo.pipeline.transform import Transform


def _fingerprint(value: np.ndarray, dtype: np.dtype) -> bytes:
    """Size and the first and last 64 elements in the stored dtype: tells most different
    constants apart without reading (or copying, for strided views) them whole."""
    return value.size.to_bytes(8, "little") + head_tail(value, dtype, 64)


class MergeDuplicateConstants(Transform):
    """Consumers of a Const whose content equals an earlier Const's are fed by the earlier one.
    Constants of the same type and shape are compared by fingerprint first and in full only when
    fingerprints match, so large unique weights are never read whole. Values are compared as
    they are stored (an f16 Const holding float32 values, from fp16 compression, by its float16
    values)."""

    phase = "back"
    on_save = True

    def run_after(self):
        return [CompressWeightsToFP16]

    def run_before(self):
        return [RemoveDeadNodes]

    def find_and_replace_pattern(self, graph) -> None:
        groups: dict[tuple, list] = defaultdict(list)
        for const in graph.nodes_by_op("Const"):
            value = const.value
            if value is None or const.element_type == "string":
                continue
            groups[(const.element_type, tuple(np.shape(value)))].append(const)
        for members in groups.values():
            if len(members) < 2:
                continue
            first_of: dict[bytes, list] = {}
            for const in sorted(members, key=lambda n: n["_seq"]):
                value = np.asarray(const.value)
                dtype = stored_dtype(value, const.element_type)
                same = first_of.setdefault(_fingerprint(value, dtype), [])
                keeper = next((k for k in same if values_equal(np.asarray(k.value), value, dtype)), None)
                if keeper is None:
                    same.append(const)
                    continue
                port = const.out_port(0)
                keeper.out_port(0).add_tensor_names(port.remove_tensor_names())
                port.get_connection().set_source(keeper.out_port(0), move_names=False)
                graph.remove_node(const.id)
