"""The files beside a transformers model's IR that the OpenVINO clients load with it.

OpenVINO GenAI (``LLMPipeline``, ``ContinuousBatchingPipeline``) and optimum-intel
(``OVModelForCausalLM.from_pretrained``) take a folder: ``openvino_model.xml/.bin`` (the IR's
default name for a checkpoint folder or a transformers model object), ``config.json``,
``generation_config.json``, the tokenizer's files and, for GenAI, the tokenizer and detokenizer
as IRs (``openvino_tokenizer.xml``, ``openvino_detokenizer.xml``, made by the
``openvino-tokenizers`` package when it is installed: ``mo/runtime/tokenizer.py``).

From a checkpoint folder, files of known names are copied as they are (JSON files only when they
parse); the folder is untrusted: a file that is a link to somewhere outside it is not read (except
the Hugging Face cache's links from ``snapshots/<revision>/`` to the same repository's
``blobs/``), nor one that is not a regular file or is larger than ``MAX_BYTES``, and nothing in
it runs. From a model object: its configuration and generation configuration as transformers
writes them, and the tokenizer only when one is given (``convert_model(..., tokenizer=...)``: a
transformers tokenizer, saved with its ``save_pretrained``, or a folder holding its files)."""
from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile
from typing import Any

from mo.errors import ConversionError

log = logging.getLogger("mo")

IR_NAME = "openvino_model"
CONFIG = "config.json"
GENERATION_CONFIG = "generation_config.json"
# a tokenizer's files, as transformers and sentencepiece name them
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
                   "vocab.json", "merges.txt", "vocab.txt", "tokenizer.model", "spiece.model",
                   "sentencepiece.bpe.model", "chat_template.jinja", "chat_template.json")
MAX_BYTES = 1 << 30


def is_transformers_model(model: Any) -> bool:
    transformers = sys.modules.get("transformers")
    return transformers is not None and isinstance(model, transformers.PreTrainedModel)


def _inside(path: str, folder: str) -> bool:
    return os.path.commonpath([path, folder]) == folder


def readable_file(folder: str, name: str) -> str | None:
    """The real path of file ``name`` of the untrusted ``folder`` when it may be read: a regular
    file of at most MAX_BYTES inside the folder, or a Hugging Face cache snapshot's link to its
    repository's blobs; None when there is no such file (a link elsewhere is logged)."""
    path = os.path.join(folder, name)
    if not os.path.lexists(path):
        return None
    real_folder = os.path.realpath(folder)
    real = os.path.realpath(path)
    allowed = _inside(real, real_folder)
    parent = os.path.dirname(real_folder)
    if not allowed and os.path.basename(parent) == "snapshots":      # <cache>/models--x--y/snapshots/<rev>
        allowed = _inside(real, os.path.join(os.path.dirname(parent), "blobs"))
    if not allowed:
        log.warning("'%s' links outside the checkpoint folder: it is not copied.", path)
        return None
    if not os.path.isfile(real) or os.path.getsize(real) > MAX_BYTES:
        log.warning("'%s' is not a regular file of at most %d MiB: it is not copied.", path, MAX_BYTES >> 20)
        return None
    return real


def _json_text(path: str) -> str | None:
    """The text of a JSON file, None (logged) when it does not parse."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        json.loads(text)
        return text
    except (OSError, UnicodeDecodeError, ValueError) as e:
        log.warning("'%s' is not valid JSON (%s): it is not copied.", path, e)
        return None


def _write(folder: str, name: str, text: str | None = None, source: str | None = None) -> None:
    """File ``name`` of ``folder`` from ``text`` or a copy of ``source``, written under a temporary
    name and moved into place (a link already there is replaced, not followed)."""
    target = os.path.join(folder, name)
    if source is not None and os.path.exists(target) and os.path.samefile(source, target):
        return
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
    try:
        with os.fdopen(handle, "wb") as f:
            if text is not None:
                f.write(text.encode("utf-8"))
            else:
                with open(source, "rb") as src:
                    shutil.copyfileobj(src, f)
        os.replace(temporary, target)
    except OSError as e:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise ConversionError(f"Cannot write '{target}': {e.strerror or e}.") from e


class ClientFiles:
    """What to write beside the IR of a transformers model (``write``)."""

    def __init__(self, config: str, generation_config: str | None, tokenizer_folder: str | None = None,
                 tokenizer: Any = None, decoder: bool = False):
        self.config = config
        self.generation_config = generation_config
        self.tokenizer_folder = tokenizer_folder
        self.tokenizer = tokenizer
        self.decoder = decoder

    @classmethod
    def of_folder(cls, folder: str, model, tokenizer: Any = None) -> "ClientFiles":
        """The files of a checkpoint folder (``model`` built from its config.json); ``tokenizer``
        (the convert_model argument) replaces the folder's own."""
        config = _json_text(os.path.join(folder, CONFIG))
        source = readable_file(folder, GENERATION_CONFIG)
        generation = _json_text(source) if source else None
        if generation is None:
            generation = _generation_config(model)
        given_object = tokenizer is not None and not isinstance(tokenizer, (str, os.PathLike))
        return cls(config, generation, None if given_object else os.fspath(tokenizer or folder),
                   tokenizer if given_object else None, _can_generate(model))

    @classmethod
    def of_model(cls, model, tokenizer: Any = None) -> "ClientFiles":
        """The configuration of a model object (as ``save_pretrained`` writes it) and ``tokenizer``."""
        folder = os.fspath(tokenizer) if isinstance(tokenizer, (str, os.PathLike)) else None
        return cls(model.config.to_json_string(), _generation_config(model), folder,
                   None if folder else tokenizer, _can_generate(model))

    def write(self, folder: str) -> None:
        _write(folder, CONFIG, self.config)
        if self.generation_config is not None:
            _write(folder, GENERATION_CONFIG, self.generation_config)
        copied = self._write_tokenizer(folder)
        if copied:
            from mo.runtime.tokenizer import write_openvino_tokenizer
            write_openvino_tokenizer(folder, left_padding=self.decoder)
        else:
            log.info("No tokenizer beside the model: %s", "give convert_model(..., tokenizer=...) to add one" if
                     self.tokenizer_folder is None else f"'{self.tokenizer_folder}' has no tokenizer files")

    def _write_tokenizer(self, folder: str) -> bool:
        if self.tokenizer is not None:
            try:
                self.tokenizer.save_pretrained(folder)
            except (AttributeError, OSError, TypeError, ValueError) as e:
                raise ConversionError(f"Cannot save the tokenizer given ({type(self.tokenizer).__name__}) to "
                                      f"'{folder}': {e}") from e
            return True
        if self.tokenizer_folder is None:
            return False
        copied = 0
        for name in TOKENIZER_FILES:
            source = readable_file(self.tokenizer_folder, name)
            if source is None:
                continue
            if name.endswith(".json"):
                text = _json_text(source)
                if text is None:
                    continue
            _write(folder, name, source=source)
            copied += 1
        return copied > 0


def _can_generate(model) -> bool:
    try:
        return bool(model.can_generate())
    except Exception:     # a model class whose check itself fails: not a generator we know
        return False


def _generation_config(model) -> str | None:
    """The model's generation configuration as transformers writes it (None for a model that does
    not generate)."""
    if not _can_generate(model):
        return None
    config = getattr(model, "generation_config", None)
    if config is None:
        from transformers import GenerationConfig
        config = GenerationConfig.from_model_config(model.config)
    return config.to_json_string()
