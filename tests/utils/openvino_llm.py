"""OpenVINO's own stateful IR of a transformers decoder: the reference mo's LLM IRs are compared
with (tests/e2e/test_llm_serving.py, benchmarks/llm_decode.py).

``openvino_decoder_ir(model)`` is what a user of OpenVINO gets without mo: ``openvino.convert_model``
of a wrapper that runs the model with its cache as inputs and outputs, then made stateful the way
optimum-intel does it (a ``beam_idx`` input gathering every past input, OpenVINO's MakeStateful
transformation, each state starting empty at the batch size of ``input_ids``). It is written
here, not taken from optimum.
"""
from __future__ import annotations

import numpy as np
import openvino
import openvino.opset13 as ops
import torch
from openvino._offline_transformations import apply_make_stateful_transformation
from transformers.cache_utils import DynamicCache, DynamicLayer


def cache_geometry(config) -> tuple[int, int]:
    """(key/value heads, head size) of a decoder's config."""
    heads = config.num_attention_heads
    kv_heads = getattr(config, "num_key_value_heads", None) or heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    return kv_heads, head_dim


class _WithCache(torch.nn.Module):
    """The model with its cache as flat (key, value) inputs, already filled (OpenVINO's frontend
    cannot convert the empty tensor a fresh transformers cache starts from)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, position_ids, past_key_values):
        cache = DynamicCache()
        cache.layers = []
        for key, value in past_key_values:
            layer = DynamicLayer()
            layer.keys, layer.values, layer.is_initialized, layer.device = key, value, True, key.device
            cache.layers.append(layer)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                         past_key_values=cache, use_cache=True)
        return (out.logits,) + tuple(t for layer in out.past_key_values.layers for t in (layer.keys, layer.values))


def openvino_decoder_ir(model) -> openvino.Model:
    """OpenVINO's PyTorch frontend on ``model`` with its cache, made stateful (inputs
    ``input_ids``, ``attention_mask``, ``position_ids``, ``beam_idx``; output ``logits``)."""
    config = model.config
    kv_heads, head_dim = cache_geometry(config)
    batch, past, new = 2, 3, 4
    example = {"input_ids": torch.randint(1, min(100, config.vocab_size), (batch, new)),
               "attention_mask": torch.ones(batch, past + new, dtype=torch.long),
               "position_ids": torch.arange(past, past + new).repeat(batch, 1),
               "past_key_values": [(torch.randn(batch, kv_heads, past, head_dim),) * 2
                                   for _ in range(config.num_hidden_layers)]}
    with torch.no_grad():
        ir = openvino.convert_model(_WithCache(model), example_input=example)
    _make_stateful(ir, kv_heads, head_dim)
    return ir


def _make_stateful(ir: openvino.Model, kv_heads: int, head_dim: int) -> None:
    """Inputs 3.. (the past keys and values) and outputs 1.. (the present ones) become states read
    through a ``beam_idx`` Gather, each starting as zeros [batch of input_ids, heads, 0, dim]."""
    for i, name in enumerate(("input_ids", "attention_mask", "position_ids")):
        ir.inputs[i].get_tensor().set_names({name})
    ir.outputs[0].get_tensor().set_names({"logits"})
    pairs = {}
    for i, (past, present) in enumerate(zip(ir.inputs[3:], ir.outputs[1:])):
        name = f"{i // 2}.{'key' if i % 2 == 0 else 'value'}"
        past.get_tensor().set_names({f"past_key_values.{name}"})
        present.get_tensor().set_names({f"present.{name}"})
        past.get_node().set_partial_shape(openvino.PartialShape([-1, kv_heads, -1, head_dim]))
        pairs[f"past_key_values.{name}"] = f"present.{name}"
    ir.validate_nodes_and_infer_types()
    beam = ops.parameter([-1], np.int32, name="beam_idx")
    beam.output(0).get_tensor().set_names({"beam_idx"})
    ir.add_parameters([beam])
    for past in list(ir.inputs[3:-1]):
        targets = list(past.get_target_inputs())
        reordered = ops.gather(past, beam, ops.constant(np.int64(0)))
        for target in targets:
            target.replace_source_output(reordered.output(0))
    apply_make_stateful_transformation(ir, pairs)
    batch = ops.gather(ops.shape_of(ir.input("input_ids")), ops.constant(np.array([0])), ops.constant(np.int64(0)))
    zeros = ops.broadcast(ops.constant(np.float32(0)),
                          ops.concat([batch, ops.constant(np.array([kv_heads, 0, head_dim]))], 0))
    for op in ir.get_ops():
        if op.get_type_name() == "ReadValue":
            op.set_arguments([zeros.output(0)])
    ir.validate_nodes_and_infer_types()
