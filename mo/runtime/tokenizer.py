"""The tokenizer and detokenizer of a converted transformers model as OpenVINO IRs
(``openvino_tokenizer.xml``, ``openvino_detokenizer.xml``), which OpenVINO GenAI loads from the
model's folder. Made by the ``openvino-tokenizers`` package (it needs ``openvino``: imported here
only, when the folder is written), from the tokenizer files already written to that folder."""
from __future__ import annotations

import logging
import os

log = logging.getLogger("mo")

TOKENIZER_XML = "openvino_tokenizer.xml"
DETOKENIZER_XML = "openvino_detokenizer.xml"
INSTALL = "pip install openvino-tokenizers (in this project: pip install -e \".[tokenizer]\")"


def write_openvino_tokenizer(folder: str, left_padding: bool = False) -> bool:
    """Convert the transformers tokenizer whose files are in ``folder`` and save both IRs there;
    False (logged, the folder as it was) when openvino-tokenizers is missing or cannot convert it.
    A decoder's tokenizer pads on the left, as generation needs."""
    try:
        from openvino_tokenizers import convert_tokenizer
    except ImportError:
        log.info("openvino-tokenizers is not installed: the folder has the tokenizer's files but not %s and %s, "
                 "which OpenVINO GenAI loads; %s and convert again to add them.", TOKENIZER_XML, DETOKENIZER_XML,
                 INSTALL)
        return False
    import openvino
    from transformers import AutoTokenizer
    try:
        # only the files copied to ``folder`` are read, and no code from them runs
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True, trust_remote_code=False)
        if left_padding:
            tokenizer.padding_side = tokenizer.truncation_side = "left"
        try:
            converted = convert_tokenizer(tokenizer, with_detokenizer=True)
        except NotImplementedError:          # a tokenizer without a detokenizer
            converted = (convert_tokenizer(tokenizer, with_detokenizer=False),)
    except Exception as e:   # openvino-tokenizers does not know every tokenizer: the model's IR stands
        log.warning("The tokenizer in '%s' was not converted to %s (%s: %s); OpenVINO GenAI needs it.", folder,
                    TOKENIZER_XML, type(e).__name__, e)
        return False
    for model, name in zip(converted, (TOKENIZER_XML, DETOKENIZER_XML)):
        openvino.save_model(model, os.path.join(folder, name))
    log.info("Tokenizer written as %s", " and ".join((TOKENIZER_XML, DETOKENIZER_XML)[:len(converted)]))
    return True
