"""Attention and rotary embeddings in the forms OpenVINO's own rewrites recognise.

The runtime replaces known sub-graphs with fused kernels before it runs a model: the CPU
plugin's stateful attention (ScaledDotProductAttention reading its key/value cache itself),
RoPE nodes for rotary embeddings, and PagedAttention (OpenVINO GenAI's continuous batching)
made from each ScaledDotProductAttention of a stateful decoder. Their patterns are exact about a
few details a correct IR may write otherwise; these rewrites write them the matched way:

* ``LastAxisConcatFromEnd``: a Concat along the last axis of a tensor of rank 2 or more is written
  with axis -1, as PyTorch and ONNX models write it (``torch.cat((-x2, x1), dim=-1)`` of
  rotate-half, the rotated and passed-through halves of a partial rotary embedding); the RoPE
  fusions match axis -1 only.
* ``DecoderAttentionMask``: in a transformers decoder converted with its cache, a boolean
  attention mask becomes an additive float one (0 where a key is seen, the lowest finite value
  of the type elsewhere), and the Selects that zero the query rows a mask hides from every key
  (``hidden_rows_to_zero``, from the attention translator) are dropped. Only padded positions
  have such rows (the causal and sliding-window masks always keep a token's own key) and the
  padding mask hides those positions from every other token, so no other output changes; the
  finite mask keeps those rows finite (no NaN reaches the cache). Without this, each layer's
  attention output would read the attention mask a second time, a use PagedAttention's
  conversion cannot remove (it replaces the attention with its own and drops the
  ``attention_mask`` input). A mask that bounds a sliding window is written as that conversion
  reads the window (``kv_position > q_position + (-window)`` under BitwiseAnds, then a Slice):
  otherwise paged attention would let every token see all earlier ones.
"""
from __future__ import annotations

import logging

import numpy as np

from extensions.back.cleanup import RemoveDeadNodes
from extensions.back.compress_fp16 import CompressWeightsToFP16
from extensions.back.stateful import StatefulTransforms
from mo.graph.builder import OpBuilder
from mo.graph.building import i64, typed_const
from mo.pipeline.transform import Transform
from mo.utils.types import np_dtype

log = logging.getLogger("mo")

# the lowest finite bfloat16 (numpy has no bfloat16 to ask)
BF16_LOWEST = -3.3895313892515355e38


class LastAxisConcatFromEnd(Transform):
    """Concat axis ``rank - 1`` written as -1 (rank 2 and more: a shape value's Concat keeps 0)."""

    phase = "back"
    ops = ("Concat",)

    def run_before(self):
        return [RemoveDeadNodes]

    def find_and_replace_pattern(self, graph) -> None:
        for node in graph.nodes_by_op("Concat"):
            rank = node.out_port(0).data.get_rank()
            if rank is not None and rank >= 2 and node.axis == rank - 1:
                node["axis"] = -1


class DecoderAttentionMask(Transform):
    """The attention masks of a transformers decoder (``graph.graph["transformers_decoder"]``, set
    by its loader) made additive, and its ``hidden_rows_to_zero`` Selects dropped."""

    phase = "back"
    ops = ("ScaledDotProductAttention", "Select")

    def run_before(self):
        return [StatefulTransforms, CompressWeightsToFP16, RemoveDeadNodes]

    def graph_condition(self, graph) -> bool:
        return bool(graph.graph.get("transformers_decoder"))

    def find_and_replace_pattern(self, graph) -> None:
        dropped = 0
        for select in graph.nodes_by_op("Select"):
            if select.get("hidden_rows_to_zero"):
                select.out_port(0).get_connection().set_source(select.in_port(2).get_source())
                dropped += 1
        formed: dict = {}       # one form per mask (every layer reads the same one or two)
        for sdpa in graph.nodes_by_op("ScaledDotProductAttention"):
            if 3 not in sdpa.in_ports() or not sdpa.in_port(3).is_connected():
                continue
            mask = sdpa.in_port(3).get_source()
            et = sdpa.in_port(0).get_source().data.get_dtype()
            key = (mask.node.id, mask.idx, et)
            if key not in formed:
                formed[key] = _mask_form(graph, mask, et)
            if formed[key] != mask:
                sdpa.in_port(3).disconnect()
                formed[key].connect(sdpa.in_port(3))
        log.debug("Decoder attention: %d padded-row Select(s) dropped, %d mask(s)", dropped, len(formed))


def _mask_form(graph, mask, et: str):
    """The additive form of an attention mask: a boolean mask ``m`` becomes Select(m, 0, lowest);
    one whose condition bounds a sliding window is followed by a Slice (of everything) and written
    as PagedAttention's conversion reads a window (``_sliding_window_form``)."""
    b = OpBuilder(graph, f"{mask.node.name}/additive")
    condition = None
    if mask.data.get_dtype() == "boolean":
        condition = mask
        mask = b.Select(mask, typed_const(b, 0, et), typed_const(b, lowest_finite(et), et))
    elif mask.node.op == "Select" and mask.node.in_port(0).get_source().data.get_dtype() == "boolean":
        condition = mask.node.in_port(0).get_source()
    if condition is not None and _sliding_window_form(condition):
        mask = b.Slice(mask, i64(0), i64(np.iinfo(np.int64).max), i64(1), i64(-1))
    return mask


def _sliding_window_form(condition) -> bool:
    """Whether the mask condition (LogicalAnds of conditions, through Broadcasts) bounds a sliding
    window, ``key_position > query_position - window`` (transformers' sliding-window masks); if so
    the bound is rewritten ``query_position + (-window)`` and the LogicalAnds as BitwiseAnds (the
    same on booleans), the form in which PagedAttention's conversion finds the window (without it,
    paged attention would let every token see every earlier one)."""
    ands, bounds, seen, stack = [], [], set(), [condition]
    while stack:
        node = stack.pop().node
        if node.id in seen:
            continue
        seen.add(node.id)
        if node.op == "LogicalAnd":
            ands.append(node)
            stack += [node.in_port(0).get_source(), node.in_port(1).get_source()]
        elif node.op == "Broadcast":
            stack.append(node.in_port(0).get_source())
        elif node.op == "Greater":
            bound = node.in_port(1).get_source().node
            if bound.op == "Subtract" and bound.in_port(1).get_source().data.get_value() is not None:
                bounds.append(bound)
    if not bounds:
        return False
    for subtract in bounds:
        b = OpBuilder(subtract.graph, subtract.name)
        window = subtract.in_port(1).get_source().data.get_value()
        bound = b.Add(subtract.in_port(0).get_source(), b.const(np.negative(window)))
        subtract.out_port(0).get_connection().set_source(bound)
    for node in ands:
        b = OpBuilder(node.graph, node.name)
        both = b.BitwiseAnd(node.in_port(0).get_source(), node.in_port(1).get_source())
        node.out_port(0).get_connection().set_source(both)
    return True


def lowest_finite(element_type: str) -> float:
    """The lowest finite value of a float element type."""
    return BF16_LOWEST if element_type == "bf16" else float(np.finfo(np_dtype(element_type)).min)
