"""A checkpoint folder converted by ``mo FOLDER -o OUT`` is a folder the LLM clients load as it is:
``openvino_model.xml/.bin``, config.json, generation_config.json, the tokenizer's files and its
OpenVINO IRs; rt_info with the KV-cache precision hint and no absolute path. OpenVINO GenAI's
``LLMPipeline`` generates transformers' tokens with greedy decoding and with beam search (3
beams) at f32, for Llama (grouped-query attention), Qwen2, GPT-2, Phi-3, Gemma2 (sliding window),
Mixtral and Qwen2-MoE (mixtures of experts); its tokenizer encodes as the transformers one.

``ContinuousBatchingPipeline`` (PagedAttention: continuous batching, what OpenVINO Model Server
serves with) runs the folder as written and generates transformers' tokens too (the paged forms
of each architecture are tested in ``test_llm_serving.py``). optimum-intel's ``OVModelForCausalLM``
loads the folder with ``from_pretrained`` and generates transformers' tokens too, in the environment
install.sh makes for it (``.venv-optimum``: its only release, 2.2.0, needs transformers < 5.6;
torch and the rest are this environment's)."""
import functools
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import openvino as ov
import openvino_genai as genai
import pytest
import torch

from tests.utils.llm_folders import CONFIGS, PROMPTS, VOCAB, checkpoint_folder, convert_folder, decoder, tokenizer

NEW_TOKENS = 12
F32 = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32"}
CLIENT_FILES = ["config.json", "generation_config.json", "openvino_detokenizer.bin", "openvino_detokenizer.xml",
                "openvino_model.bin", "openvino_model.xml", "openvino_tokenizer.bin", "openvino_tokenizer.xml",
                "tokenizer.json", "tokenizer_config.json"]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """arch -> (model, checkpoint folder, converted folder), each made once per module run."""
    root = tmp_path_factory.mktemp("llm")

    @functools.cache
    def make(arch):
        source, out = str(root / arch), str(root / f"{arch}_ov")
        model = checkpoint_folder(arch, source)
        convert_folder(source, out)
        return model, source, out
    return make


def prompt_ids(text: str) -> torch.Tensor:
    return tokenizer()(text, return_tensors="pt").input_ids


def transformers_tokens(model, ids, beams: int = 1) -> list[int]:
    with torch.no_grad():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False, num_beams=beams,
                             max_new_tokens=NEW_TOKENS, pad_token_id=3)
    return out[0, ids.shape[1]:].tolist()


def genai_config(**kwargs):
    """Generation to NEW_TOKENS without an end token, as transformers generates for configs without
    one (GenAI's beam search ends a beam on the tokenizer's EOS even with ignore_eos: an id past the
    vocabulary stands for none)."""
    config = genai.GenerationConfig(max_new_tokens=NEW_TOKENS, ignore_eos=True, **kwargs)
    config.set_eos_token_id(VOCAB + 1)
    return config


def genai_tokens(pipe, ids, beams: int = 1) -> list[int]:
    config = genai_config()
    if beams > 1:
        config.num_beams, config.num_return_sequences = beams, 1
    return list(pipe.generate(ov.Tensor(ids.numpy()), config).tokens[0])


@pytest.mark.parametrize("arch", sorted(CONFIGS))
def test_llm_pipeline_generates_transformers_tokens(arch, folders):
    model, _, out = folders(arch)
    pipe = genai.LLMPipeline(out, "CPU", **F32)
    for text in PROMPTS:
        ids = prompt_ids(text)
        assert list(pipe.get_tokenizer().encode(text).input_ids.data[0]) == ids[0].tolist()
        assert genai_tokens(pipe, ids) == transformers_tokens(model, ids), text
        assert genai_tokens(pipe, ids, beams=3) == transformers_tokens(model, ids, beams=3), text


@pytest.mark.parametrize("arch", ["llama", "mixtral"])
def test_folder_has_the_client_files_and_no_absolute_path(arch, folders):
    _, source, out = folders(arch)
    assert sorted(os.listdir(out)) == CLIENT_FILES
    with open(os.path.join(out, "config.json")) as f, open(os.path.join(source, "config.json")) as g:
        assert json.load(f) == json.load(g)
    text = open(os.path.join(out, "openvino_model.xml")).read()
    assert os.path.dirname(source) not in text
    rt_info = ET.fromstring(text).find("rt_info")
    assert rt_info.find("conversion_parameters/input_model").get("value") == arch
    assert rt_info.find("conversion_parameters/output_dir").get("value") == f"{arch}_ov"
    assert rt_info.find("runtime_options/KV_CACHE_PRECISION").get("value") == "f16"
    # the hint is what the runtime compiles with unless the application says otherwise
    core = ov.Core()
    assert core.compile_model(os.path.join(out, "openvino_model.xml"), "CPU").get_property(
        "KV_CACHE_PRECISION") == ov.Type.f16


@pytest.mark.parametrize("arch", ["llama", "mixtral"])
def test_continuous_batching_pipeline_runs_the_folder(arch, folders):
    model, _, out = folders(arch)
    pipe = genai.ContinuousBatchingPipeline(out, genai.SchedulerConfig(), "CPU", F32)
    assert list(pipe.get_tokenizer().encode(PROMPTS[0]).input_ids.data[0]) == prompt_ids(PROMPTS[0])[0].tolist()
    ids = [prompt_ids(text) for text in PROMPTS]
    results = pipe.generate([ov.Tensor(i.numpy()) for i in ids], [genai_config()] * len(ids))
    assert [list(r.m_generation_ids[0]) for r in results] == [transformers_tokens(model, i) for i in ids]


def optimum_python() -> str:
    """The interpreter of the optimum-intel environment install.sh makes beside this one."""
    path = os.path.join(os.path.dirname(sys.prefix), ".venv-optimum", "bin", "python")
    assert os.path.isfile(path), f"{path} is missing: run install.sh (README, Quick start)"
    return path


def test_optimum_intel_generates_transformers_tokens(folders):
    """OVModelForCausalLM.from_pretrained(folder) for every architecture, greedy and 3-beam: the
    transformers tokenizer it loads encodes as ours, and the tokens are transformers' (one process
    for all: importing optimum-intel takes seconds)."""
    jobs, expected = [], []
    for arch in sorted(CONFIGS):
        model, _, out = folders(arch)
        for text in PROMPTS:
            ids = prompt_ids(text)
            for beams in (1, 3):
                jobs.append({"folder": out, "text": text, "beams": beams, "new_tokens": NEW_TOKENS})
                expected.append({"input_ids": ids[0].tolist(), "tokens": transformers_tokens(model, ids, beams)})
    script = os.path.join(os.path.dirname(os.path.dirname(__file__)), "utils", "optimum_generate.py")
    run = subprocess.run([optimum_python(), script], input=json.dumps(jobs), capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(run.stdout)
    for job, got, want in zip(jobs, results, expected):
        assert got == want, (os.path.basename(job["folder"]), job["text"], job["beams"])
    assert len(results) == len(jobs)


def test_model_object_with_a_tokenizer_and_a_name_of_its_own(tmp_path):
    """convert_model(model, output_dir=..., tokenizer=...) writes the same folder (the IR named
    as model_name says); without a tokenizer, only the model's files."""
    from mo import convert_model
    model = decoder("qwen2")
    convert_model(model, output_dir=str(tmp_path / "with"), tokenizer=tokenizer(), compress_to_fp16=False)
    assert sorted(os.listdir(tmp_path / "with")) == CLIENT_FILES
    ids = prompt_ids(PROMPTS[1])
    pipe = genai.LLMPipeline(str(tmp_path / "with"), "CPU", **F32)
    assert genai_tokens(pipe, ids) == transformers_tokens(model, ids)
    convert_model(model, output_model=str(tmp_path / "without" / "qwen.xml"))
    assert sorted(os.listdir(tmp_path / "without")) == ["config.json", "generation_config.json", "qwen.bin",
                                                         "qwen.xml"]
    ir = convert_model(model, tokenizer=str(tmp_path / "with"))      # in memory; save writes the folder
    ir.save(str(tmp_path / "saved" / "openvino_model.xml"))
    assert sorted(os.listdir(tmp_path / "saved")) == CLIENT_FILES


def test_int8_folder_keeps_the_default_cache_precision(tmp_path):
    """With compressed weights the KV cache stays as the runtime chooses (as optimum-intel does);
    the folder still generates."""
    source, out = str(tmp_path / "src"), str(tmp_path / "out")
    checkpoint_folder("llama", source)
    convert_folder(source, out, "--compress_weights", "int8")
    root = ET.parse(os.path.join(out, "openvino_model.xml")).getroot()
    assert root.find("rt_info/runtime_options") is None
    result = genai.LLMPipeline(out, "CPU").generate(PROMPTS[0], max_new_tokens=4, ignore_eos=True)
    assert isinstance(result, str)


def test_prompt_padded_batch_matches_one_by_one(folders):
    """Two prompts of different lengths in one LLMPipeline call (left padded) give each prompt's
    own tokens."""
    model, _, out = folders("mixtral")
    pipe = genai.LLMPipeline(out, "CPU", **F32)
    config = genai_config()
    batch = pipe.generate(PROMPTS, config).texts
    assert len(batch) == 2 and batch == [pipe.generate(text, config) for text in PROMPTS]
    ids = prompt_ids(PROMPTS[1])
    assert tokenizer().decode(transformers_tokens(model, ids)) == batch[1]
