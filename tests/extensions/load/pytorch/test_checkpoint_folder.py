"""transformers checkpoint folders (config.json + safetensors) converted by path: tiny Llama,
GPT-2, Qwen2 and mixture-of-experts (Mixtral, Qwen2-MoE: experts stored one module each, joined
as transformers joins them) models in f32, bf16 and f16, single-file and sharded, saved by
transformers and by our own writer; the IR's logits match the model's. Damaged folders are one
clear error."""
import json
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import torch
import transformers

from extensions.load.pytorch.checkpoint_folder import StoredWeights, bind, build_model, is_checkpoint_folder
from extensions.load.pytorch.safetensors_file import SafetensorsFile, write_safetensors
from mo import convert_model
from mo.errors import InputModelError
from mo.utils.types import bf16_bits_to_f32
from tests.e2e.test_cli import run_mo
from tests.utils.runtime import assert_close, run_ir

IDS = np.array([[1, 5, 7, 9, 3, 2], [4, 4, 8, 1, 0, 6]], np.int64)


def tiny_config(kind: str, tied: bool = False):
    common = dict(vocab_size=96, tie_word_embeddings=tied)
    decoder = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                   num_key_value_heads=2, **common)
    if kind == "llama":
        return transformers.LlamaConfig(architectures=["LlamaForCausalLM"], **decoder)
    if kind == "qwen2":
        return transformers.Qwen2Config(architectures=["Qwen2ForCausalLM"], **decoder)
    if kind == "mixtral":      # experts stored one module each, joined when loaded
        return transformers.MixtralConfig(architectures=["MixtralForCausalLM"], num_local_experts=4,
                                          num_experts_per_tok=2, **decoder)
    if kind == "qwen2_moe":    # the same, with a shared expert
        return transformers.Qwen2MoeConfig(architectures=["Qwen2MoeForCausalLM"], num_experts=4, num_experts_per_tok=2,
                                           moe_intermediate_size=48, shared_expert_intermediate_size=64, **decoder)
    if kind == "gpt2":
        return transformers.GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=64,
                                       architectures=["GPT2LMHeadModel"], **common)
    raise ValueError(kind)


def tiny_model(kind: str, dtype=torch.float32, tied: bool = False):
    torch.manual_seed(0)
    config = tiny_config(kind, tied)
    model = transformers.AutoModelForCausalLM.from_config(config).eval()
    with torch.no_grad():    # norms and biases away from their 1/0 initial values
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return model.to(dtype)


def reference_logits(model) -> np.ndarray:
    """The logits of the model computing in f32 with its stored (possibly 16-bit) weights."""
    f32 = model.float()
    with torch.no_grad():
        return f32(input_ids=torch.from_numpy(IDS), attention_mask=torch.ones(IDS.shape, dtype=torch.long),
                   use_cache=False).logits.numpy()


def own_save(model, folder, shards: int = 1, rename=lambda name: name, extra=()) -> None:
    """config.json and the state dict (shared tensors once, names through ``rename``, the
    ``extra`` (name, tensor) pairs added) in ``shards`` files, by our writer."""
    os.makedirs(folder, exist_ok=True)
    model.config.save_pretrained(folder)
    state, seen = {}, set()
    for name, tensor in model.state_dict().items():
        if tensor.data_ptr() in seen:
            continue
        seen.add(tensor.data_ptr())
        state[rename(name)] = tensor
    state.update(extra)
    names = list(state)
    et_of = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}

    def entries(part):
        for name in part:
            t = state[name].contiguous()
            raw = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
            yield name, et_of[t.dtype], tuple(t.shape), [raw.numpy().tobytes()]
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), entries(names), {"format": "pt"})
        return
    weight_map = {}
    for i in range(shards):
        part = names[i::shards]
        file = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        write_safetensors(os.path.join(folder, file), entries(part))
        weight_map.update(dict.fromkeys(part, file))
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)


def ir_feed(xml: str) -> dict:
    """IDS for the IR's inputs: input_ids, attention_mask, and position_ids and beam_idx when
    the decoder was converted with its cache (the first step: an empty past)."""
    names = [layer.get("name") for layer in ET.parse(xml).getroot().iter("layer") if layer.get("type") == "Parameter"]
    values = {"input_ids": IDS, "attention_mask": np.ones(IDS.shape, np.int64),
              "position_ids": np.broadcast_to(np.arange(IDS.shape[1]), IDS.shape).astype(np.int64),
              "beam_idx": np.arange(IDS.shape[0], dtype=np.int32)}
    return {name: values[name] for name in names}


def convert_and_check(folder, model, tmp_path, rtol=1e-4, atol=1e-4, **options):
    out = tmp_path / "ir"
    ir = convert_model(str(folder), output_dir=str(out), compress_to_fp16=False, **options)
    logits = run_ir(ir.xml, ir_feed(ir.xml))[0]
    assert_close([logits], [reference_logits(model)], rtol=rtol, atol=atol)
    return ir.xml


def const_types(xml: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for layer in ET.parse(xml).getroot().iter("layer"):
        if layer.get("type") == "Const":
            et = layer.find("data").get("element_type")
            counts[et] = counts.get(et, 0) + 1
    return counts


@pytest.mark.parametrize("kind", ["llama", "gpt2", "qwen2", "mixtral", "qwen2_moe"])
def test_save_pretrained_folder_matches_the_model(kind, tmp_path):
    model = tiny_model(kind)
    model.save_pretrained(tmp_path / "ckpt")
    convert_and_check(tmp_path / "ckpt", model, tmp_path)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "f16"])
def test_16bit_weights_stay_16bit_and_decompress_to_f32(dtype, tmp_path):
    """bf16/f16 weights are stored as they are (raw bf16 bits), each followed by a Convert to
    f32: the IR computes in f32 on exactly the stored values."""
    model = tiny_model("llama", dtype)
    model.save_pretrained(tmp_path / "ckpt")
    xml = convert_and_check(tmp_path / "ckpt", model, tmp_path, rtol=1e-4, atol=1e-4)
    et = "bf16" if dtype == torch.bfloat16 else "f16"
    types = const_types(xml)
    assert types.get(et, 0) >= 2 * 9 + 2, types     # every weight
    text = open(xml).read()
    assert 'destination_type="f32"' in text and "decompression" in text


def test_bf16_weights_are_not_compressed_further(tmp_path):
    """--compress_to_fp16 (the default) compresses f32 weights; bf16 ones stay bf16."""
    model = tiny_model("llama", torch.bfloat16)
    model.save_pretrained(tmp_path / "ckpt")
    xml = convert_model(str(tmp_path / "ckpt"), output_dir=str(tmp_path / "ir")).xml
    assert const_types(xml).get("f16", 0) == 0
    logits = run_ir(xml, ir_feed(xml))[0]
    assert_close([logits], [reference_logits(model)], rtol=1e-4, atol=1e-4)


def test_bf16_experts_in_several_shards_are_joined_and_stay_bf16(tmp_path):
    """Mixtral's experts stored one module each, across shards, in bf16: joined in transformers'
    order (w1 and w3 side by side), each expert's weights bf16 in the IR."""
    model = tiny_model("mixtral", torch.bfloat16)
    model.save_pretrained(tmp_path / "ckpt", max_shard_size="40KB")
    assert len(json.load(open(tmp_path / "ckpt" / "model.safetensors.index.json"))["weight_map"]) > 20
    xml = convert_and_check(tmp_path / "ckpt", model, tmp_path)
    assert const_types(xml).get("bf16", 0) >= 2 * 2 * 4     # gate-up and down of each expert of each layer


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
def test_own_writer_sharded_with_index_and_tied_embeddings(dtype, tmp_path):
    model = tiny_model("llama", dtype, tied=True)
    own_save(model, tmp_path / "ckpt", shards=3)
    assert "lm_head.weight" not in json.load(open(tmp_path / "ckpt" / "model.safetensors.index.json"))["weight_map"]
    xml = convert_and_check(tmp_path / "ckpt", model, tmp_path)
    embedding = model.model.embed_tokens.weight
    assert os.path.getsize(xml[:-3] + "bin") < 1.5 * embedding.numel() * embedding.element_size() + \
        sum(p.numel() * p.element_size() for n, p in model.named_parameters() if "embed" not in n)


def test_names_without_the_base_model_prefix_and_ignored_extras(tmp_path):
    """GPT-2 as first published: names without "transformer.", the tied head absent, and the
    attention mask buffers ("h.0.attn.bias") that transformers ignores."""
    model = tiny_model("gpt2", tied=True)
    extra = [(f"h.{i}.attn.bias", torch.ones(1, 1, 4, 4)) for i in range(2)]
    own_save(model, tmp_path / "ckpt", rename=lambda n: n.removeprefix("transformer."), extra=extra)
    assert "wte.weight" in SafetensorsFile(str(tmp_path / "ckpt" / "model.safetensors")).tensors
    convert_and_check(tmp_path / "ckpt", model, tmp_path)


def test_shards_linked_from_elsewhere_as_in_the_hugging_face_cache(tmp_path):
    """A snapshot folder of the Hugging Face cache: each file a symbolic link to a blob."""
    model = tiny_model("llama", torch.bfloat16)
    own_save(model, tmp_path / "blobs", shards=2)
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    for name in os.listdir(tmp_path / "blobs"):
        os.symlink(tmp_path / "blobs" / name, snapshot / name)
    convert_and_check(snapshot, model, tmp_path)


def test_save_pretrained_sharded(tmp_path):
    model = tiny_model("qwen2", torch.bfloat16)
    model.save_pretrained(tmp_path / "ckpt", max_shard_size="20KB")
    assert os.path.exists(tmp_path / "ckpt" / "model.safetensors.index.json")
    convert_and_check(tmp_path / "ckpt", model, tmp_path)


def test_names_under_a_capture_wrapper_resolve_to_the_stored_tensors(tmp_path):
    """A wrapper module that holds the model as ``model`` names its weights ``model.<name>``."""
    own_save(tiny_model("llama", tied=True), tmp_path / "ckpt")
    weights = StoredWeights(str(tmp_path / "ckpt"))
    bind(build_model(str(tmp_path / "ckpt")), weights)
    assert weights.resolve("model.lm_head.weight") == "model.embed_tokens.weight"
    assert weights.resolve("model.model.norm.weight") == "model.norm.weight"
    with pytest.raises(InputModelError, match="no tensor 'model.other.weight'"):
        weights.resolve("model.other.weight")


def test_which_folders_are_checkpoints(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    assert is_checkpoint_folder(str(tmp_path))
    (tmp_path / "saved_model.pb").write_bytes(b"")      # a TensorFlow SavedModel with a config.json
    assert not is_checkpoint_folder(str(tmp_path)) and not is_checkpoint_folder(str(tmp_path / "config.json"))


def test_reader_gives_views_of_the_file(tmp_path):
    path = str(tmp_path / "w.safetensors")
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    write_safetensors(path, [("a", "f32", (3, 4), [values.tobytes()]), ("e", "f16", (0,), [])], {"k": "v"})
    f = SafetensorsFile(path)
    a = f.array("a")
    np.testing.assert_array_equal(a, values)
    assert not a.flags.writeable and f.metadata == {"k": "v"} and f.array("e").shape == (0,)


def test_bf16_bits_read_back_as_the_values():
    values = torch.tensor([1.5, -2.0, 3.140625, 0.0, -1e-3]).bfloat16()
    bits = values.view(torch.int16).numpy().view(np.uint16)
    np.testing.assert_array_equal(bf16_bits_to_f32(bits), values.float().numpy())


@pytest.mark.parametrize("given", ["input_ids[2,6]", "[2,6],[2,6]", "input_ids[2,?],attention_mask[2,?]"])
def test_input_shapes_given(given, tmp_path):
    """--input shapes the example the model is captured with; an attention mask without its own
    entry takes the input ids' shape (an encoder: a decoder is captured with its cache)."""
    torch.manual_seed(0)
    config = transformers.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                                     vocab_size=96, architectures=["BertForMaskedLM"])
    model = transformers.BertForMaskedLM(config).eval()
    model.save_pretrained(tmp_path / "ckpt")
    xml = convert_model(str(tmp_path / "ckpt"), output_dir=str(tmp_path / "ir"), compress_to_fp16=False,
                        input=given).xml
    mask = np.ones(IDS.shape, np.int64)
    with torch.no_grad():
        expected = model(input_ids=torch.from_numpy(IDS), attention_mask=torch.from_numpy(mask)).logits.numpy()
    assert_close(run_ir(xml, {"input_ids": IDS, "attention_mask": mask})[:1], [expected])
    dims = [[int(d.text) for d in layer.iter("dim")] for layer in ET.parse(xml).getroot().iter("layer")
            if layer.get("type") == "Parameter"]
    assert dims == [[2, 6], [2, 6]] if "?" not in given else dims == [[2, -1], [2, -1]]


def test_validate_runs_the_folder_model_with_its_weights_bound(tmp_path):
    """--validate runs the model built from the folder with its weights bound (f32 views of the
    files, 16-bit ones widened) beside the IR."""
    model = tiny_model("qwen2", torch.bfloat16)
    model.save_pretrained(tmp_path / "ckpt")
    r = run_mo("--input_model", str(tmp_path / "ckpt"), "--output_dir", str(tmp_path / "ir"), "--validate")
    assert r.returncode == 0, r.stderr
    assert "PASS: 1 of 1 outputs match" in r.stdout + r.stderr


# ------------------------------------------------------------------ damaged folders
def _folder(tmp_path, shards=1):
    folder = tmp_path / "ckpt"
    own_save(tiny_model("llama"), folder, shards)
    return folder


def _break_truncated(folder):
    path = folder / "model.safetensors"
    data = path.read_bytes()
    path.write_bytes(data[:len(data) - 100])
    return "model.safetensors"


def _break_header_json(folder):
    path = folder / "model.safetensors"
    data = bytearray(path.read_bytes())
    data[8:12] = b"}}}}"
    path.write_bytes(bytes(data))
    return "not valid JSON"


def _break_header_length(folder):
    path = folder / "model.safetensors"
    data = bytearray(path.read_bytes())
    data[:8] = (len(data) * 2).to_bytes(8, "little")
    path.write_bytes(bytes(data))
    return "header length"


def _break_dtype(folder):
    path = folder / "model.safetensors"
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"F32"', b'"Q77"', 1))
    return "Q77"


def _break_missing_tensor(folder):
    path = str(folder / "model.safetensors")
    f = SafetensorsFile(path)
    kept = [(n, i.element_type, i.shape, [f.array(n).tobytes()]) for n, i in f.tensors.items() if "norm" not in n]
    del f
    write_safetensors(path + ".new", kept)
    os.replace(path + ".new", path)
    return "lacks"


def _break_unexpected_tensor(folder):
    path = str(folder / "model.safetensors")
    f = SafetensorsFile(path)
    kept = [(n, i.element_type, i.shape, [f.array(n).tobytes()]) for n, i in f.tensors.items()]
    del f
    write_safetensors(path + ".new", kept + [("model.extra.weight", "f32", (2,), [bytes(8)])])
    os.replace(path + ".new", path)
    return "model.extra.weight"


def _break_quantized(folder):
    path = folder / "model.safetensors"
    path.write_bytes(path.read_bytes().replace(b'"F32"', b'"I32"', 1))
    return "is stored as i32"


def _break_quantization_config(folder):
    config = json.load(open(folder / "config.json"))
    config["quantization_config"] = {"quant_method": "gptq", "bits": 4}
    json.dump(config, open(folder / "config.json", "w"))
    return "quantized checkpoint (gptq)"


def _break_model_type(folder):
    config = json.load(open(folder / "config.json"))
    config["model_type"] = "no_such_model"
    json.dump(config, open(folder / "config.json", "w"))
    return "cannot read"


def _break_auto_map(folder):
    config = json.load(open(folder / "config.json"))
    config["auto_map"] = {"AutoModelForCausalLM": "modeling_evil.EvilModel"}
    json.dump(config, open(folder / "config.json", "w"))
    return "trust_remote_code"


def _break_no_weights(folder):
    os.remove(folder / "model.safetensors")
    (folder / "pytorch_model.bin").write_bytes(b"\0")
    return "pickled weights are not read"


BREAKS = {"truncated": _break_truncated, "bad_header_json": _break_header_json,
          "header_beyond_file": _break_header_length, "unknown_dtype": _break_dtype,
          "missing_tensor": _break_missing_tensor, "unexpected_tensor": _break_unexpected_tensor,
          "quantized": _break_quantized, "quantization_config": _break_quantization_config,
          "auto_map": _break_auto_map, "unknown_model_type": _break_model_type, "no_safetensors": _break_no_weights}


@pytest.mark.parametrize("damage", list(BREAKS))
def test_damaged_folder_is_one_clear_error(damage, tmp_path):
    folder = _folder(tmp_path)
    fragment = BREAKS[damage](folder)
    with pytest.raises(InputModelError, match=None) as e:
        convert_model(str(folder), output_dir=str(tmp_path / "ir"))
    assert fragment in str(e.value)
    assert not os.path.exists(tmp_path / "ir") or not os.listdir(tmp_path / "ir")


def _break_missing_shard(folder):
    os.remove(folder / "model-00002-of-00003.safetensors")
    return "model-00002-of-00003.safetensors"


def _break_index_outside(folder):
    index = json.load(open(folder / "model.safetensors.index.json"))
    name = next(iter(index["weight_map"]))
    index["weight_map"][name] = "../outside.safetensors"
    json.dump(index, open(folder / "model.safetensors.index.json", "w"))
    return "not a file name inside the checkpoint folder"


@pytest.mark.parametrize("damage", [_break_missing_shard, _break_index_outside], ids=["missing_shard", "outside"])
def test_damaged_sharded_folder_on_the_command_line(damage, tmp_path):
    """The CLI: exit 1, one error message naming the problem, no traceback, no files."""
    folder = _folder(tmp_path, shards=3)
    fragment = damage(folder)
    out = tmp_path / "ir"
    r = run_mo("--input_model", str(folder), "--output_dir", str(out))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and r.stderr.count("[ ERROR ]") == 1
    assert fragment in r.stderr, r.stderr
    assert not os.path.exists(out) or os.listdir(out) == []
