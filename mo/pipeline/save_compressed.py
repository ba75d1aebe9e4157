"""fp16 compression of an IR converted in memory, applied when it is saved.

``convert_model`` without an output folder returns an ``IRModel`` whose float weights stay
float32 (as OpenVINO's ``convert_model``); ``IRModel.save`` compresses them to float16 by default
(as OpenVINO's ``save_model``, and as mo writes files). The IRModel keeps the converted graph for
that, with each constant's value pointing into the in-memory weights (no second copy of the
weights, nothing of the source model kept alive); saving runs the back-phase transforms marked
``on_save`` (fp16 compression and the clean-up after it) with ``compress_to_fp16`` on and writes
the graph, so the files are the ones ``convert_model(..., output_dir=...)`` writes.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from mo.emit.bin_writer import PLAIN_TYPES
from mo.emit.ir import emit_ir
from mo.pipeline.progress import NO_PROGRESS
from mo.pipeline.validate import validate
from mo.utils.types import np_dtype


class CompressOnSave:
    """The converted graph of an in-memory IR, ready to be written with fp16 weights."""

    def __init__(self, graph, rt_info: dict, weights, placed: list, run_transforms):
        """``placed``: (Const node, offset, size) of each constant in ``weights``;
        ``run_transforms(graph)`` runs the back-phase transforms marked ``on_save``."""
        self.graph = graph
        self.rt_info = rt_info
        self.run_transforms = run_transforms
        self.compressed = False
        _point_into(weights, placed)
        # the options without the source model (a module, a ModelProto...) and its inputs
        context = graph.context
        context.options = dataclasses.replace(context.options, input_model=None, example_input=None,
                                              compress_to_fp16=True)
        context.progress = NO_PROGRESS

    @staticmethod
    def worthwhile(placed: list) -> bool:
        """Whether any float32 constant could be compressed."""
        return any(node.element_type == "f32" and size >= 64 for node, _, size in placed)

    def save(self, folder: str, name: str) -> tuple[str, str]:
        """Compress (the first time) and write ``folder/name.{xml,bin}``; returns the paths."""
        if not self.compressed:
            self._compress()
        return emit_ir(self.graph, folder, name, self.rt_info)

    def _compress(self) -> None:
        self.run_transforms(self.graph)
        validate(self.graph)
        self.compressed = True


def _point_into(weights, placed: list) -> None:
    """Each constant written as plain bytes holds, from now on, a view of those bytes in
    ``weights`` instead of its own array (often a view of the source model's tensors)."""
    for node, offset, size in placed:
        et = node.element_type
        value = node.get("value")
        if et not in PLAIN_TYPES or not isinstance(value, np.ndarray) or not size:
            continue
        dtype = np_dtype(et)
        view = np.frombuffer(weights, dtype=dtype, count=size // dtype.itemsize, offset=offset).reshape(value.shape)
        node["value"] = view
        node.out_port(0).data.set_value(view)
