"""Duplicate constants: identical Const layers (same type, shape and bytes) become one."""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from extensions.back.cleanup import RemoveDeadNodes
from extensions.back.compress_fp16 import CompressWeightsToFP16
from mo.pipeline.transform import Transform


def _fingerprint(value: np.ndarray) -> bytes:
    """Size and the first and last 64 elements: tells most different constants apart without
    reading (or copying, for strided views) them whole."""
    flat = value.flat
    return value.size.to_bytes(8, "little") + flat[:64].tobytes() + flat[-64:].tobytes()


class MergeDuplicateConstants(Transform):
    """Consumers of a Const whose content equals an earlier Const's are fed by the earlier one.
    Constants of the same type and shape are compared by fingerprint first and in full only when
    fingerprints match, so large unique weights are never read whole."""

    phase = "back"

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
                same = first_of.setdefault(_fingerprint(const.value), [])
                keeper = next((k for k in same if np.array_equal(k.value, const.value)), None)
                if keeper is None:
                    same.append(const)
                    continue
                port = const.out_port(0)
                keeper.out_port(0).add_tensor_names(port.remove_tensor_names())
                port.get_connection().set_source(keeper.out_port(0), move_names=False)
                graph.remove_node(const.id)
