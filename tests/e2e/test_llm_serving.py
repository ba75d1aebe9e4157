"""mo's stateful decoder IRs as LLM serving runs them (extensions/back/attention_forms.py,
extensions/middle/attention_fusion.py): the CPU plugin compiles their attention into its stateful
ScaledDotProductAttention (the key/value cache read and written by the kernel) and their rotary
embeddings into RoPE nodes; OpenVINO's PagedAttention conversion accepts them (the
``attention_mask`` input and the cache states are dropped, each attention becomes a
PagedAttentionExtension with its sliding window); and OpenVINO GenAI's ContinuousBatchingPipeline
(a batch of two prompts of different lengths) and LLMPipeline with its PA and SDPA attention
backends generate the tokens transformers' ``generate`` does, greedy and with beam search (3
beams), at f32, for tiny random Llama (grouped-query attention), Qwen2, GPT-2, Phi-3 and Gemma2
(a sliding window shorter than the text) models. The stateful and the paged model each run
no more nodes per inference than OpenVINO's own IR of the same model
(tests/utils/openvino_llm.py), the same FullyConnected layers and attention kernels."""
import functools

import numpy as np
import openvino
import openvino_genai
import pytest
import torch
from openvino._offline_transformations import paged_attention_transformation

from mo import convert_model
from tests.e2e.test_llm_stateful import LAYERS, compiled, converted, decoder
from tests.utils.llm_folders import tokenizer
from tests.utils.openvino_llm import openvino_decoder_ir

ARCHS = ["llama", "qwen2", "gpt2", "phi3", "gemma2"]
ROTARY = {"llama": True, "qwen2": True, "gpt2": False, "phi3": True, "gemma2": True}
# layers with a sliding window (Gemma2 alternates: layer 0 slides, layer 1 sees everything)
WINDOWS = {"gemma2": [4, 0]}
PROPERTIES = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32"}
NEW_TOKENS = 12
PROMPTS = [np.array([[5, 17, 42, 9, 33, 71, 12, 8]]), np.array([[8, 3, 99]])]
NO_TOKEN = 1000     # an id beyond the models' vocabularies


def executed(model) -> list[str]:
    return [op.get_rt_info()["layerType"].astype(str) for op in compiled(model).get_runtime_model().get_ops()]


@pytest.mark.parametrize("arch", ARCHS)
def test_compiled_decoder_fuses_attention_and_rotary_embeddings(arch):
    _, ir = converted(arch)
    kinds = executed(ir)
    assert kinds.count("ScaledDotProductAttention") == LAYERS
    assert kinds.count("RoPE") == (2 * LAYERS if ROTARY[arch] else 0)
    assert "Softmax" not in kinds


@pytest.mark.parametrize("arch", ARCHS)
def test_paged_attention_conversion(arch):
    _, ir = converted(arch)
    paged = ir.clone()
    paged_attention_transformation(paged)
    names = {i.get_any_name() for i in paged.inputs}
    assert not names & {"attention_mask", "beam_idx"}
    assert {"input_ids", "position_ids", "key_cache.0", "value_cache.0"} <= names
    assert not paged.get_sinks()
    attention = [op for op in paged.get_ordered_ops() if op.get_type_name() == "PagedAttentionExtension"]
    assert len(attention) == LAYERS
    # input 10: the sliding window (0: none), computed from constants
    assert [_value(op.input_value(10)) for op in attention] == WINDOWS.get(arch, [0] * LAYERS)


def runs_per_inference(model) -> dict[str, int]:
    """Layer types of the compiled model's nodes that run at each inference (not the ones
    computed from constants only, which the plugin runs once when it compiles), with counts."""
    constant, kinds = set(), {}
    for op in compiled(model).get_runtime_model().get_ordered_ops():
        kind = op.get_rt_info()["layerType"].astype(str)
        sources = [i.get_source_output().get_node().get_friendly_name() for i in op.inputs()]
        if kind == "Const" or (sources and all(s in constant for s in sources)):
            constant.add(op.get_friendly_name())
        elif kind not in ("Input", "Output"):
            kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


# the stateful IR of a model whose OpenVINO IR runs fewer nodes per inference (mo's runs the same
# kernels and more small ones: the padding mask built by GatherND with its negative-index checks)
MORE_NODES_THAN_OPENVINO = {("gpt2", "stateful")}


@pytest.mark.parametrize("way", ["stateful", "paged"])
@pytest.mark.parametrize("arch", ARCHS)
def test_runs_no_more_than_openvinos_own_ir(arch, way):
    model, ir = converted(arch)
    theirs = openvino_decoder_ir(model)
    if way == "paged":
        ir = ir.clone()
        for m in (ir, theirs):
            paged_attention_transformation(m)
    mine, reference = runs_per_inference(ir), runs_per_inference(theirs)
    attention = "PagedAttention" if way == "paged" else "ScaledDotProductAttention"
    assert mine.get(attention) == reference.get(attention) == LAYERS
    assert mine["FullyConnected"] == reference["FullyConnected"]
    assert "Softmax" not in mine and "MatMul" not in mine
    if (arch, way) in MORE_NODES_THAN_OPENVINO:
        assert sum(mine.values()) > sum(reference.values())     # listed: fails when it no longer holds
    else:
        assert sum(mine.values()) <= sum(reference.values()), (mine, reference)


def _value(output) -> int:
    """The value of an output computed from constants only."""
    model = openvino.Model([openvino.opset13.result(output)], [])
    return int(openvino.Core().compile_model(model, "CPU").create_infer_request().infer()[0])


@functools.lru_cache
def expected_tokens(arch: str, beams: int) -> list[list[int]]:
    model, _ = converted(arch)
    tokens = []
    for prompt in PROMPTS:
        ids = torch.tensor(prompt)
        with torch.no_grad():
            out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False, num_beams=beams,
                                 max_new_tokens=NEW_TOKENS, pad_token_id=0)
        tokens.append(out[0, ids.shape[1]:].tolist())
    return tokens


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    made = {}

    def folder(arch: str) -> str:
        if arch not in made:
            # the folder as the converter writes it for a model object and its tokenizer
            made[arch] = str(tmp_path_factory.mktemp(arch))
            convert_model(decoder(arch), output_dir=made[arch], tokenizer=tokenizer(), compress_to_fp16=False)
        return made[arch]
    return folder


def generation_config(beams: int):
    config = openvino_genai.GenerationConfig()
    config.max_new_tokens = NEW_TOKENS
    config.ignore_eos = True
    config.set_eos_token_id(NO_TOKEN)      # GenAI wants one; beam search would end a beam at it
    if beams > 1:
        config.num_beams = beams
        config.num_return_sequences = 1
    return config


@pytest.mark.parametrize("beams", [1, 3], ids=["greedy", "beam"])
@pytest.mark.parametrize("arch", ARCHS)
def test_continuous_batching_matches_transformers(arch, beams, folders):
    scheduler = openvino_genai.SchedulerConfig()
    scheduler.cache_size = 1
    pipeline = openvino_genai.ContinuousBatchingPipeline(folders(arch), scheduler, "CPU", PROPERTIES)
    config = generation_config(beams)
    results = pipeline.generate([openvino.Tensor(p) for p in PROMPTS], [config] * len(PROMPTS))
    assert [list(r.m_generation_ids[0]) for r in results] == expected_tokens(arch, beams)


@pytest.mark.parametrize("backend", ["PA", "SDPA"])
@pytest.mark.parametrize("beams", [1, 3], ids=["greedy", "beam"])
@pytest.mark.parametrize("arch", ARCHS)
def test_llm_pipeline_matches_transformers(arch, beams, backend, folders):
    pipeline = openvino_genai.LLMPipeline(folders(arch), "CPU", ATTENTION_BACKEND=backend, **PROPERTIES)
    config = generation_config(beams)
    tokens = [list(pipeline.generate(openvino.Tensor(p), config).tokens[0]) for p in PROMPTS]
    assert tokens == expected_tokens(arch, beams)
