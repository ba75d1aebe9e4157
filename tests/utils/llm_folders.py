"""Tiny transformers checkpoint folders with a tokenizer, as LLM clients take them: random-weight
decoders of several architectures (2 layers, hidden 64) and a byte-level BPE tokenizer trained here
with the ``tokenizers`` package (nothing is downloaded), saved together; ``convert_folder`` runs
``mo FOLDER -o OUT`` on one."""
from __future__ import annotations

import functools
import os

import torch
import transformers

from tests.e2e.test_cli import run_mo

# the text the tokenizer learns its merges from
CORPUS = ["the quick brown fox jumps over the lazy dog", "hello world, this is a tiny tokenizer",
          "openvino runs language models fast on a cpu", "mixture of experts route each token"] * 20
SPECIAL = ["<unk>", "<s>", "</s>", "<pad>"]
# the byte alphabet, the special tokens and a few dozen merges (the corpus has more)
VOCAB = 256 + len(SPECIAL) + 60
PROMPTS = ["the quick brown fox", "hello tiny world of experts"]


@functools.lru_cache
def tokenizer():
    """A byte-level BPE tokenizer of VOCAB tokens, trained on CORPUS (a transformers fast
    tokenizer; no BOS is added, <pad> pads on the left)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=SPECIAL,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    assert bpe.get_vocab_size() == VOCAB
    return transformers.PreTrainedTokenizerFast(tokenizer_object=bpe, unk_token="<unk>", bos_token="<s>",
                                                eos_token="</s>", pad_token="<pad>", padding_side="left")


# no BOS/EOS in the configs (generation runs to max_new_tokens in both transformers and the
# clients, which are told to ignore the tokenizer's EOS); weights large enough to make the tokens
# depend on the prompt
COMMON = dict(vocab_size=VOCAB, initializer_range=0.3, bos_token_id=None, eos_token_id=None, pad_token_id=3)
DECODER = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
               num_key_value_heads=2, **COMMON)
CONFIGS = {
    "llama": lambda: transformers.LlamaConfig(**DECODER),                       # grouped-query attention
    "qwen2": lambda: transformers.Qwen2Config(**DECODER),
    "gpt2": lambda: transformers.GPT2Config(n_embd=64, n_head=4, n_layer=2, n_positions=128, **COMMON),
    "phi3": lambda: transformers.Phi3Config(**DECODER),
    # sliding-window layers with a window shorter than prompt + generated tokens
    "gemma2": lambda: transformers.Gemma2Config(head_dim=16, sliding_window=4, **DECODER),
    "mixtral": lambda: transformers.MixtralConfig(num_local_experts=4, num_experts_per_tok=2, **DECODER),
    "qwen2_moe": lambda: transformers.Qwen2MoeConfig(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=48,
                                                     shared_expert_intermediate_size=64, **DECODER),
}


def decoder(arch: str):
    torch.manual_seed(0)
    return transformers.AutoModelForCausalLM.from_config(CONFIGS[arch]()).eval()


def checkpoint_folder(arch: str, folder: str):
    """The model of ``arch`` and its folder: save_pretrained of the model and of the tokenizer."""
    model = decoder(arch)
    model.save_pretrained(folder)
    tokenizer().save_pretrained(folder)
    return model


def convert_folder(folder: str, out: str, *options: str) -> None:
    """``mo FOLDER -o OUT`` at f32 weights (the clients are compared with transformers at f32)."""
    r = run_mo(folder, "-o", out, "--compress_to_fp16", "False", *options)
    assert r.returncode == 0, r.stderr
    assert os.path.isfile(os.path.join(out, "openvino_model.xml")), os.listdir(out)
