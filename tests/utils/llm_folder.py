"""Model folders as OpenVINO GenAI loads them, for the LLM serving tests.

``llm_folder(model, folder)`` writes mo's stateful IR of a transformers decoder as
``openvino_model.xml/.bin`` with the model's ``config.json`` and ``generation_config.json``, a
tokenizer trained here with the ``tokenizers`` package (nothing is downloaded) and its OpenVINO
form (``openvino_tokenizer.xml`` / ``openvino_detokenizer.xml``, by ``openvino_tokenizers``).
The tests feed token ids, so the tokenizer only has to be there for the pipelines to load.
"""
from __future__ import annotations

import functools
import os
import random

import openvino
import openvino_tokenizers
import transformers
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from mo import convert_model

WORDS = ("the a model converts weights into an graph that runs fast on every device with its cache kept inside "
         "tokens attention keys values layers").split()


@functools.lru_cache
def trained_tokenizer() -> transformers.PreTrainedTokenizerFast:
    """A small BPE tokenizer (under 100 tokens) trained on made-up sentences; no end-of-sequence token
    (beam search would stop a beam that generates it, and random models generate any id)."""
    rng = random.Random(0)
    corpus = [" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(200)]
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.decoder = decoders.BPEDecoder()
    tokenizer.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=96, special_tokens=["<unk>", "<pad>"]))
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", pad_token="<pad>")


def llm_folder(model, folder: str) -> str:
    """``folder`` filled with what an OpenVINO GenAI pipeline loads for ``model`` (f32 weights)."""
    os.makedirs(folder, exist_ok=True)
    convert_model(model, output_dir=folder, model_name="openvino_model", compress_to_fp16=False)
    model.config.save_pretrained(folder)
    model.generation_config.save_pretrained(folder)
    tokenizer = trained_tokenizer()
    tokenizer.save_pretrained(folder)
    encoder, decoder = openvino_tokenizers.convert_tokenizer(tokenizer, with_detokenizer=True)
    openvino.save_model(encoder, os.path.join(folder, "openvino_tokenizer.xml"))
    openvino.save_model(decoder, os.path.join(folder, "openvino_detokenizer.xml"))
    return folder
