"""The files written beside a transformers model's IR (extensions/load/pytorch/client_files.py):
copied from an untrusted checkpoint folder by known name only, links leading out of it refused
(except the Hugging Face cache's snapshot links to its blobs), JSON that does not parse left out;
without openvino-tokenizers one INFO line says how to add the tokenizer's IRs."""
import json
import logging
import os
import sys

import pytest

from extensions.load.pytorch.client_files import ClientFiles, readable_file
from tests.utils.llm_folders import checkpoint_folder


@pytest.fixture
def folder(tmp_path):
    source = tmp_path / "ckpt"
    model = checkpoint_folder("llama", str(source))
    return source, model


def _written(source, model, tmp_path, name="out"):
    out = tmp_path / name
    out.mkdir()
    ClientFiles.of_folder(str(source), model).write(str(out))
    return sorted(os.listdir(out))


def test_known_files_are_copied_with_the_tokenizer_irs(folder, tmp_path):
    source, model = folder
    (source / "notes.txt").write_text("not a tokenizer file")
    assert _written(source, model, tmp_path) == [
        "config.json", "generation_config.json", "openvino_detokenizer.bin", "openvino_detokenizer.xml",
        "openvino_tokenizer.bin", "openvino_tokenizer.xml", "tokenizer.json", "tokenizer_config.json"]


def test_links_out_of_the_folder_are_not_followed(folder, tmp_path, caplog):
    source, model = folder
    secret = tmp_path / "secret.txt"
    secret.write_text("private")
    os.symlink(secret, source / "merges.txt")
    os.symlink("/etc/hostname", source / "vocab.txt")
    (source / "spiece.model").mkdir()                     # not a file
    os.rename(source / "tokenizer_config.json", source / "real_config.json")
    os.symlink("real_config.json", source / "tokenizer_config.json")    # a link inside the folder is fine
    with caplog.at_level(logging.WARNING, logger="mo"):
        files = _written(source, model, tmp_path)
    assert "merges.txt" not in files and "vocab.txt" not in files and "spiece.model" not in files
    assert "tokenizer_config.json" in files
    assert sum("links outside the checkpoint folder" in r.message for r in caplog.records) == 2


def test_hugging_face_cache_snapshot_links_to_its_blobs(folder, tmp_path):
    """<cache>/models--org--name/snapshots/<revision>/file -> ../../blobs/<hash>."""
    source, model = folder
    repo = tmp_path / "models--org--tiny"
    snapshot, blobs = repo / "snapshots" / "abc123", repo / "blobs"
    snapshot.mkdir(parents=True)
    blobs.mkdir()
    for name in os.listdir(source):
        os.rename(source / name, blobs / name)
        os.symlink(os.path.join("..", "..", "blobs", name), snapshot / name)
    assert readable_file(str(snapshot), "tokenizer.json") == os.path.realpath(blobs / "tokenizer.json")
    assert "tokenizer.json" in _written(snapshot, model, tmp_path)


def test_json_that_does_not_parse_is_left_out(folder, tmp_path):
    source, model = folder
    (source / "special_tokens_map.json").write_text("{not json")
    (source / "generation_config.json").write_text("[1, 2")
    files = _written(source, model, tmp_path)
    assert "special_tokens_map.json" not in files
    # the generation configuration is then made from the model's
    assert json.load(open(tmp_path / "out" / "generation_config.json"))["pad_token_id"] == model.config.pad_token_id


def test_without_openvino_tokenizers_one_info_line_says_how_to_add_them(folder, tmp_path, caplog, monkeypatch):
    source, model = folder
    monkeypatch.setitem(sys.modules, "openvino_tokenizers", None)       # import fails
    with caplog.at_level(logging.INFO, logger="mo"):
        files = _written(source, model, tmp_path)
    assert "openvino_tokenizer.xml" not in files and "tokenizer.json" in files
    lines = [r.message for r in caplog.records if "openvino-tokenizers" in r.message]
    assert len(lines) == 1 and "pip install openvino-tokenizers" in lines[0]


def test_a_folder_without_tokenizer_files_says_so(folder, tmp_path, caplog):
    source, model = folder
    for name in ("tokenizer.json", "tokenizer_config.json"):
        os.unlink(source / name)
    with caplog.at_level(logging.INFO, logger="mo"):
        assert _written(source, model, tmp_path) == ["config.json", "generation_config.json"]
    assert any("has no tokenizer files" in r.message for r in caplog.records)


def test_converting_into_the_checkpoint_folder_itself(folder):
    source, model = folder
    before = {n: (source / n).read_bytes() for n in os.listdir(source) if n.endswith(".json")}
    ClientFiles.of_folder(str(source), model).write(str(source))
    assert {n: (source / n).read_bytes() for n in before} == before


def test_a_tokenizer_that_cannot_be_saved_fails_the_conversion_without_leaving_the_ir(tmp_path):
    from mo import convert_model
    from mo.errors import ConversionError
    from tests.utils.llm_folders import decoder

    class Unsavable:
        def save_pretrained(self, folder):
            raise OSError("read-only")
    with pytest.raises(ConversionError, match="Cannot save the tokenizer given"):
        convert_model(decoder("llama"), output_dir=str(tmp_path / "out"), tokenizer=Unsavable())
    assert not [n for n in os.listdir(tmp_path / "out") if n.startswith("openvino_model")]
