"""Layouts and input preprocessing from the options: --layout/--source_layout/--target_layout,
--reverse_input_channels, --mean_values, --scale_values, --scale.

Applied right after each Parameter in the documented order: (transpose from the target layout),
reverse channels, subtract mean, divide by scale. The source layout (or the target layout, when
one is given) is recorded in the Parameter's rt_info.
"""
from __future__ import annotations

import logging

import numpy as np

from mo.cli.preprocess_spec import ALL_INPUTS, expand_layout, layout_tokens
from mo.errors import OptionError
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import Transform

log = logging.getLogger("mo")


def layout_rt_info(layout: str) -> dict:
    """Port rt_info of a layout, as the runtime reads it: layout="[N,C,H,W]" ("[N,...]")."""
    return {0: {"layout": {"layout": "[" + ",".join(layout_tokens(layout)) + "]"}}}


def _for_input(table: dict, name: str):
    return table.get(name, table.get(ALL_INPUTS))


class ApplyLayoutAndPreprocessing(Transform):
    """Inserts the preprocessing ops after the model's Parameters (main graph only)."""

    phase = "front"

    def graph_condition(self, graph) -> bool:
        opts = graph.options
        return not graph.graph.get("is_body") and bool(
            opts.mean_values or opts.scale_values or opts.scale is not None or opts.reverse_input_channels
            or opts.layouts)

    def find_and_replace_pattern(self, graph) -> None:
        opts = graph.options
        params = sorted(graph.nodes_by_op("Parameter"), key=lambda n: n["_seq"])
        names = {p.name for p in params} | {ALL_INPUTS}
        for option, table in (("--mean_values", opts.mean_values), ("--scale_values", opts.scale_values),
                              ("--layout", opts.layouts)):
            unknown = sorted(set(table) - names)
            if unknown:
                raise OptionError(f"{option} names '{unknown[0]}', which is not an input of the model "
                                  f"(inputs: {', '.join(sorted(names - {ALL_INPUTS}))}).")
        default_layout = graph.graph.get("default_layout", "NCHW")
        reversed_any = False
        for param in params:
            reversed_any |= self._apply(graph, param, opts, default_layout)
        if opts.reverse_input_channels and not reversed_any:
            log.warning("--reverse_input_channels: no input has 3 channels; nothing was reversed.")

    def _apply(self, graph, param, opts, default_layout: str) -> bool:
        spec = _for_input(opts.layouts, param.name)
        shape = param.shape
        rank = None if shape is None else len(shape)
        source = spec.source if spec else None
        try:
            full = expand_layout(source, rank) if source else None
            if spec and spec.target:
                expand_layout(spec.target, rank)
        except OptionError as e:
            raise OptionError(f"--layout of input '{param.name}': {e}") from None
        layout = full or (default_layout if rank == len(default_layout) else None)
        channel = layout.index("C") if layout and "C" in layout else None
        b = OpBuilder(graph, param.name)
        start = param
        readers = param.out_port(0).get_destinations()
        if len(readers) == 1 and readers[0].node.get("input_convert"):
            start = readers[0].node          # preprocess in the type the model computes in
        consumers = start.out_port(0).get_destinations()
        current = start.out_port(0)
        if spec and spec.target and spec.target != source:
            if any(c in "?." for c in source + spec.target) or sorted(source) != sorted(spec.target):
                raise OptionError(f"--layout of input '{param.name}': changing layout {source} into {spec.target} "
                                  f"needs the same dimensions named by letters in both (no ? or ...).")
            to_source = [spec.target.index(c) for c in source]
            if shape is not None:
                param["shape"] = tuple(shape[source.index(c)] for c in spec.target)
            current = b.Transpose(current, np.array(to_source, np.int64), name=f"{param.name}/to_{source.lower()}")
        if spec and (spec.target or spec.source):
            param["out_rt_info"] = layout_rt_info(spec.target or spec.source)
        reversed_here = False
        if opts.reverse_input_channels and channel is not None and shape is not None and shape[channel] == 3:
            current = b.Gather(current, np.array([2, 1, 0], np.int64), np.array(channel, np.int64), batch_dims=0,
                               name=f"{param.name}/reverse_channels")
            reversed_here = True
        for table, op in ((opts.mean_values, "Subtract"), (opts.scale_values, "Divide")):
            values = _for_input(table, param.name)
            if values is not None:
                current = b.op(op, current, self._per_channel(param, shape, values, channel, rank),
                               name=f"{param.name}/{'mean' if op == 'Subtract' else 'scale'}")
        if opts.scale is not None:
            current = b.Divide(current, np.array(opts.scale, np.float32), name=f"{param.name}/scale")
        if current != start.out_port(0):
            for port in consumers:
                current.connect(port)
        return reversed_here

    @staticmethod
    def _per_channel(param, shape: tuple | None, values: list[float], channel: int | None,
                     rank: int | None) -> np.ndarray:
        """The values shaped to broadcast along ``channel`` of ``shape`` (the input's shape in its
        source layout, where preprocessing is applied)."""
        arr = np.array(values, np.float32)
        if arr.size == 1:
            return arr.reshape(())
        if channel is None or rank is None:
            raise OptionError(f"{len(values)} preprocessing values are given for input '{param.name}' but its channel "
                              f"dimension is unknown: give its layout with --layout.")
        size = shape[channel]
        if size >= 0 and size != arr.size:
            raise OptionError(f"{arr.size} preprocessing values are given for input '{param.name}', whose channel "
                              f"dimension is {size}.")
        shape = [1] * rank
        shape[channel] = arr.size
        return arr.reshape(shape)
