"""transformers decoders converted with their key/value cache (extensions/load/pytorch/
transformers_decoder.py): the stateful IR (cache in ReadValue/Assign variables, beam_idx input),
fed the prompt and then one token at a time, generates greedily the same 20 tokens as
``model.generate`` in PyTorch, for tiny random Llama (grouped-query attention), GPT-2, Qwen2, Phi-3,
Gemma2 and Mistral (sliding windows) and Mixtral configs; beam_idx reorders the cache;
``stateful=False`` keeps the cache as inputs and outputs."""
import functools

import numpy as np
import pytest
import torch
import transformers

from extensions.load.pytorch.transformers_decoder import cache_argument, export_decoder
from mo import convert_model
from mo.cli.options import build_parser, make_options
from mo.errors import InputModelError, OptionError
from tests.e2e.test_cli import run_mo
from tests.utils.runtime import assert_close, core

VOCAB, LAYERS, NEW_TOKENS = 160, 2, 20
COMMON = dict(vocab_size=VOCAB, initializer_range=0.3, bos_token_id=None, eos_token_id=None, pad_token_id=0)
CONFIGS = {
    "llama": lambda: transformers.LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=LAYERS,
                                              num_attention_heads=4, num_key_value_heads=2, **COMMON),
    "gpt2": lambda: transformers.GPT2Config(n_embd=64, n_head=4, n_layer=LAYERS, n_positions=128, **COMMON),
    # every layer with a sliding window shorter than the generated text
    "mistral": lambda: transformers.MistralConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=LAYERS,
                                                  num_attention_heads=4, num_key_value_heads=2, sliding_window=4,
                                                  **COMMON),
    # a mixture of experts (histc and transformers' grouped_mm_fallback)
    "mixtral": lambda: transformers.MixtralConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=LAYERS,
                                                  num_attention_heads=4, num_key_value_heads=2, num_local_experts=4,
                                                  num_experts_per_tok=2, **COMMON),
    "qwen2": lambda: transformers.Qwen2Config(hidden_size=64, intermediate_size=128, num_hidden_layers=LAYERS,
                                              num_attention_heads=4, num_key_value_heads=2, **COMMON),
    "phi3": lambda: transformers.Phi3Config(hidden_size=64, intermediate_size=128, num_hidden_layers=LAYERS,
                                            num_attention_heads=4, num_key_value_heads=2, **COMMON),
    # eager attention (transformers has no other for Gemma2), fused into ScaledDotProductAttention
    # without the logit soft-capping the op cannot express; layer 0 has a sliding window
    "gemma2": lambda: transformers.Gemma2Config(hidden_size=64, intermediate_size=128, num_hidden_layers=LAYERS,
                                                num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                                                sliding_window=4, attn_logit_softcapping=None, **COMMON),
    # query, key and value from one projection split by chunk, partial rotary embeddings
    "gpt_neox": lambda: transformers.GPTNeoXConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=LAYERS,
                                                   num_attention_heads=4, **COMMON),
}


def decoder(arch: str):
    torch.manual_seed(0)
    return transformers.AutoModelForCausalLM.from_config(CONFIGS[arch]()).eval()


def prompts(batch: int = 2, length: int = 6, padded: bool = True, seed: int = 1):
    """Token ids and attention mask; with ``padded`` the second row is left-padded by 2."""
    ids = torch.randint(3, VOCAB, (batch, length), generator=torch.Generator().manual_seed(seed))
    mask = torch.ones_like(ids)
    if padded and batch > 1:
        ids[1, :2], mask[1, :2] = 0, 0
    return ids, mask


def compiled(model):
    # f32 throughout: the CPU plugin otherwise computes in bf16 where it can and, where it fuses
    # the cache into its attention kernel, stores the cache as u8
    return core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32"})


def generate_ir(model, ids, mask, steps: int = NEW_TOKENS, request=None) -> np.ndarray:
    """Greedy tokens of an IR (stateful or not): the prompt first, then one token at a time with
    the attention mask growing and position ids counting the unpadded tokens; without state the
    present keys/values are fed back as the next past."""
    request = request or compiled(model).create_infer_request()
    names = [i.get_any_name() for i in model.inputs]
    batch = ids.shape[0]
    mask, tokens = mask.numpy(), ids.numpy()
    positions = np.where(mask == 0, 1, mask.cumsum(1) - 1)
    past = {i.get_any_name(): np.zeros([batch if d.is_dynamic else d.get_length() for d in i.get_partial_shape()[:2]]
                                       + [0] + [i.get_partial_shape()[3].get_length()], np.float32)
            for i in model.inputs if i.get_any_name().startswith("past_key_values.")}
    out = []
    for _ in range(steps):
        feed = {"input_ids": tokens, "attention_mask": mask, "position_ids": positions, **past}
        if "beam_idx" in names:
            feed["beam_idx"] = np.arange(batch, dtype=np.int32)
        result = request.infer({k: v for k, v in feed.items() if k in names})
        past = {k: result[k.replace("past_key_values", "present")] for k in past}
        tokens = result["logits"][:, -1].argmax(-1)[:, None]
        out.append(tokens[:, 0])
        mask = np.concatenate([mask, np.ones((batch, 1), mask.dtype)], 1)
        positions = positions[:, -1:] + 1
    return np.stack(out, 1)


def generate_torch(model, ids, mask) -> np.ndarray:
    with torch.no_grad():
        out = model.generate(ids, attention_mask=mask, do_sample=False, max_new_tokens=NEW_TOKENS, pad_token_id=0)
    return out[:, ids.shape[1]:].numpy()


def check_stateful(model, layers: int = LAYERS) -> None:
    assert [i.get_any_name() for i in model.inputs] == ["input_ids", "attention_mask", "position_ids", "beam_idx"]
    assert [o.get_any_name() for o in model.outputs] == ["logits"]
    assert len(model.get_sinks()) == 2 * layers
    request = compiled(model).create_infer_request()
    assert sorted(s.name for s in request.query_state()) == sorted(
        f"past_key_values.{n}.{kind}present.{n}.{kind}" for n in range(layers) for kind in ("key", "value"))


# the ways to give the example: input_ids by name, none (made up), a tensor, ids and mask
EXAMPLES = {"llama": lambda ids, mask: {"input_ids": ids}, "gpt2": lambda ids, mask: None,
            "mistral": lambda ids, mask: ids, "mixtral": lambda ids, mask: None,
            "qwen2": lambda ids, mask: {"input_ids": ids, "attention_mask": mask},
            "phi3": lambda ids, mask: None, "gemma2": lambda ids, mask: None, "gpt_neox": lambda ids, mask: None}


@functools.lru_cache
def converted(arch: str):
    """The decoder and its stateful IR (an openvino.Model), converted once per module run."""
    model = decoder(arch)
    ids, mask = prompts()
    return model, convert_model(model, example_input=EXAMPLES[arch](ids, mask), compress_to_fp16=False).to_openvino()


@pytest.mark.parametrize("arch", sorted(CONFIGS))
def test_stateful_greedy_generation_matches_generate(arch):
    model, ir = converted(arch)
    ids, mask = prompts()
    check_stateful(ir)
    request = compiled(ir).create_infer_request()
    np.testing.assert_array_equal(generate_ir(ir, ids, mask, request=request), generate_torch(model, ids, mask))
    # a new sequence (another batch size) after reset_state
    request.reset_state()
    one, one_mask = prompts(batch=1, length=4, seed=2)
    np.testing.assert_array_equal(generate_ir(ir, one, one_mask, request=request),
                                  generate_torch(model, one, one_mask))


def test_beam_idx_reorders_the_cache():
    model, ir = converted("llama")
    ids, mask = prompts(padded=False)
    request = compiled(ir).create_infer_request()
    positions = np.arange(6)[None].repeat(2, 0)
    request.infer({"input_ids": ids.numpy(), "attention_mask": mask.numpy(), "position_ids": positions,
                   "beam_idx": np.arange(2, dtype=np.int32)})
    following = torch.tensor([[5], [7]])
    actual = request.infer({"input_ids": following.numpy(), "attention_mask": np.ones((2, 7), np.int64),
                            "position_ids": np.full((2, 1), 6), "beam_idx": np.array([1, 0], np.int32)})["logits"]
    arg = cache_argument(model)
    with torch.no_grad():
        first = model(input_ids=ids, attention_mask=mask, use_cache=True)
        cache = getattr(first, arg)
        cache.reorder_cache(torch.tensor([1, 0]))
        expected = model(input_ids=following, attention_mask=torch.ones(2, 7, dtype=torch.long),
                         position_ids=torch.full((2, 1), 6), use_cache=True, **{arg: cache}).logits
    assert_close([actual], [expected.numpy()], rtol=1e-4, atol=1e-4)


def test_stateless_keeps_the_cache_as_inputs_and_outputs():
    model = decoder("llama")
    ids, mask = prompts()
    ir = convert_model(model, example_input={"input_ids": ids}, compress_to_fp16=False, stateful=False).to_openvino()
    assert not ir.get_sinks()
    inputs = {i.get_any_name(): i.get_partial_shape() for i in ir.inputs}
    assert list(inputs) == ["input_ids", "attention_mask", "position_ids"] + [
        f"past_key_values.{n}.{kind}" for n in range(LAYERS) for kind in ("key", "value")]
    assert str(inputs["past_key_values.0.key"]) == "[?,2,?,16]"   # [batch, kv heads, past, head dim]
    assert [o.get_any_name() for o in ir.outputs] == ["logits"] + [
        f"present.{n}.{kind}" for n in range(LAYERS) for kind in ("key", "value")]
    np.testing.assert_array_equal(generate_ir(ir, ids, mask), generate_torch(model, ids, mask))


def test_cli_converts_an_exported_decoder(tmp_path):
    """A decoder exported with export_decoder and saved with torch.export.save converts from the
    command line to the same stateful IR."""
    model = decoder("qwen2")
    ids, mask = prompts()
    torch.export.save(export_decoder(model, {"input_ids": ids}), str(tmp_path / "qwen2.pt2"))
    r = run_mo(str(tmp_path / "qwen2.pt2"), "-o", str(tmp_path), "--compress_to_fp16", "False")
    assert r.returncode == 0, r.stderr
    ir = core().read_model(str(tmp_path / "qwen2.xml"))
    check_stateful(ir)
    np.testing.assert_array_equal(generate_ir(ir, ids, mask), generate_torch(model, ids, mask))


def test_stateful_option():
    assert make_options({"input_model": "m.pt2"}).stateful
    assert build_parser().parse_args(["m.pt2", "--stateful", "False"]).stateful is False
    assert not make_options({"input_model": "m.pt2", "stateful": "False"}).stateful


def test_decoder_example_input_errors():
    with pytest.raises(OptionError, match="input_ids must be a 2-d integer tensor"):
        convert_model(decoder("gpt2"), example_input={"input_ids": torch.zeros(2, 3)})
    with pytest.raises(OptionError, match="example_input gives inputs_embeds as well"):
        convert_model(decoder("gpt2"), example_input={"inputs_embeds": torch.zeros(2, 3, 64)})


def test_a_program_without_present_outputs_is_not_a_decoder():
    """Inputs named like a decoder's past are left as they are when no present.N outputs pair them."""
    class AddPast(torch.nn.Module):
        def forward(self, x, past_key_values):
            return {"y": x + past_key_values[0][0]}

    program = torch.export.export(AddPast(), (torch.ones(2, 3), [(torch.ones(2, 3), torch.ones(2, 3))]))
    ir = convert_model(program).to_openvino()
    assert [i.get_any_name() for i in ir.inputs] == ["x", "past_key_values_0_0", "past_key_values_0_1"]
    assert not ir.get_sinks()


def test_a_float16_decoder_keeps_its_cache_in_float32():
    """The states are f32 whatever the model computes in (the CPU plugin cannot run f16 states
    when it computes in f32 or bf16)."""
    model = decoder("llama").half()
    ir = convert_model(model).to_openvino()
    assert {op.get_output_element_type(0).get_type_name() for op in ir.get_ops()
            if op.get_type_name() == "ReadValue"} == {"f32"}
    ids, mask = prompts()
    positions = torch.where(mask == 0, 1, mask.cumsum(1) - 1)
    actual = compiled(ir).create_infer_request().infer({"input_ids": ids.numpy(), "attention_mask": mask.numpy(),
                                                        "position_ids": positions.numpy(),
                                                        "beam_idx": np.arange(2, dtype=np.int32)})["logits"]
    with torch.no_grad():
        expected = model(input_ids=ids, attention_mask=mask, position_ids=positions).logits.float().numpy()
    assert_close([actual[:, 2:]], [expected[:, 2:]], rtol=1e-2, atol=2e-2, check_dtype=False)


def test_a_decoder_without_a_key_value_cache_is_refused():
    config = transformers.MambaConfig(hidden_size=32, num_hidden_layers=1, state_size=4, **COMMON)
    with pytest.raises(InputModelError, match="not one .* key and value per layer .*use_cache = False"):
        convert_model(transformers.MambaForCausalLM(config))


@pytest.mark.parametrize("stateful", [True, False])
def test_validate_runs_decoders_with_consistent_inputs(stateful, tmp_path, capsys):
    """--validate feeds a decoder IR inputs that fit together (a mask over past and new tokens,
    positions after the past, beam_idx in order) and runs the model with the same cache."""
    convert_model(decoder("gpt2"), output_dir=str(tmp_path), validate=True, stateful=stateful,
                  compress_to_fp16=False)
    out = capsys.readouterr().out
    outputs = 1 if stateful else 5
    assert f"[ VALIDATE ] PASS: {outputs} of {outputs} outputs match" in out
    assert ("attention_mask[1,8]" if stateful else "attention_mask[1,12]") in out


def test_experts_get_their_rows_when_the_runtime_computes_in_bf16():
    """Hundreds of tokens routed to one expert: the rows per expert are counted and summed up as
    integers in the IR (a bf16 float holds integers exactly only up to 256, and the CPU plugin
    computes f32 tensors in bf16 when it infers in bf16: the offsets came out past the row count,
    an error, or short of it, rows silently dropped), so a long prompt runs at bf16 (on a CPU
    without bf16 the plugin runs f32) and matches at f32."""
    model = decoder("mixtral")
    with torch.no_grad():          # every token to experts 0 and 1 or to 3 and 2, about half each
        direction = torch.randn(model.config.hidden_size)
        for layer in model.model.layers:
            layer.mlp.gate.weight.copy_(torch.stack([(4 - e) * 3 * direction for e in range(4)]))
    ir = convert_model(model, compress_to_fp16=False).to_openvino()
    offsets = [op for op in ir.get_ordered_ops() if op.get_type_name() == "CumSum"]
    assert offsets and all(op.input_value(0).get_node().input_value(0).get_element_type().is_integral()
                           for op in offsets)
    ids = torch.randint(3, VOCAB, (1, 600), generator=torch.Generator().manual_seed(3))
    feed = {"input_ids": ids.numpy(), "attention_mask": np.ones((1, 600), np.int64),
            "position_ids": np.arange(600)[None], "beam_idx": np.zeros(1, np.int32)}
    with torch.no_grad():
        expected = model(ids, use_cache=False).logits.numpy()
    for precision in ("bf16", "f32"):
        compiled = core().compile_model(ir, "CPU", {"INFERENCE_PRECISION_HINT": precision})
        logits = compiled.create_infer_request().infer(feed)["logits"]
        assert logits.shape == expected.shape
    assert_close([logits], [expected], rtol=1e-3, atol=1e-3)     # 600 tokens of large random weights
