"""Duplicate constants: identical Const layers (same type, shape and bytes) become one."""
from __future__ import annotations

import hashlib
from collections import defaultdict

import numpy as np

from extensions.back.cleanup import RemoveDeadNodes
from extensions.back.compress_fp16 import CompressWeightsToFP16
from mo.pipeline.transform import Transform


class MergeDuplicateConstants(Transform):
    """Consumers of a Const whose content equals an earlier Const's are fed by the earlier one.
    Only constants of the same type and shape are hashed, so large unique weights cost one pass
    over the graph and no hashing."""

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
            first_of: dict[bytes, object] = {}
            for const in sorted(members, key=lambda n: n["_seq"]):
                data = np.ascontiguousarray(const.value)
                key = hashlib.blake2b(memoryview(data).cast("B") if data.size else b"", digest_size=20).digest()
                keeper = first_of.setdefault(key, const)
                if keeper is const or not np.array_equal(keeper.value, const.value):
                    continue
                port = const.out_port(0)
                keeper.out_port(0).add_tensor_names(port.remove_tensor_names())
                port.get_connection().set_source(keeper.out_port(0), move_names=False)
                graph.remove_node(const.id)
