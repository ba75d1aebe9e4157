"""mo --explain: where the registry handles a framework op or an op, with files."""
import pytest

from mo.errors import OptionError
from mo.pipeline.explain import explain
from tests.utils.graphs import registry


def test_framework_op_with_extractor_and_translator_in_one_module():
    text = explain("onnx:Resize", registry())
    assert "ResizeExtractor (extensions/front/onnx/resize.py:" in text.replace("\\", "/")
    assert "translator  resize (" in text and "front/onnx/resize.py:" in text


@pytest.mark.parametrize("key, expected", [("tf:FusedBatchNormV3", "fused_batch_norm"),
                                           ("pytorch:aten::layer_norm", "layer_norm"),
                                           ("tf:While", "TfWhileToLoop")])
def test_each_framework(key, expected):
    assert expected in explain(key, registry())


def test_an_opset_op_lists_the_rewrites_that_match_it():
    text = explain("Multiply", registry())
    assert text.startswith("op Multiply: IR type Multiply") and "SwishFusion" in text


@pytest.mark.parametrize("key", ["onnx:NoSuchOp", "NoSuchOp", "caffe:Conv"])
def test_unknown_keys_are_refused(key):
    with pytest.raises(OptionError):
        explain(key, registry())


def test_a_complex_translator_is_listed():
    text = explain("tf:AddV2", registry()).replace("\\", "/")
    assert "complex     pairwise (extensions/front/tf/complex.py:" in text


@pytest.mark.parametrize("key, becomes", [("onnx:Erf", ["Erf"]), ("onnx:Mod", ["FloorMod", "Mod"]),
                                          ("tf:Sum", ["ReduceSum"]), ("tf:BatchMatMulV2", ["MatMul"]),
                                          ("tf:Softmax", ["Softmax"]), ("onnx:Squeeze", ["Squeeze", "Unsqueeze"])])
def test_an_op_without_translator_names_the_op_it_becomes(key, becomes):
    """Whatever an extractor alone handles says which op (with its file) the node becomes; no
    text promises a rewrite that is not listed."""
    lines = explain(key, registry()).replace("\\", "/").splitlines()
    assert [line.split()[1] for line in lines if line.startswith("  becomes ")] == becomes
    assert all(".py:" in line for line in lines if line.startswith("  becomes "))
    assert not any("listed below" in line for line in lines)


def test_every_op_without_translator_is_explained():
    """Each framework op type an extractor alone handles either names the op it becomes or the
    front rewrite that replaces it."""
    reg = registry()
    vague = []
    for (framework, op_type), _ in sorted(reg.extractors.items()):
        if reg.translator(framework, op_type) is None:
            lines = explain(f"{framework}:{op_type}", reg).splitlines()
            if not any(line.startswith(("  becomes ", "  rewrite ")) for line in lines):
                vague.append(f"{framework}:{op_type}")
    assert not vague


def test_the_examples_of_developing_md_are_what_explain_prints():
    """docs/developing.md shows `mo --explain` output with `<line>` for the line numbers."""
    import os
    import re
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    with open(os.path.join(root, "docs", "developing.md"), encoding="utf-8") as f:
        text = f.read()
    shown = re.findall(r"^\$ mo --explain (\S+).*\n((?:[^$`\n].*\n)+)", text, re.M)
    assert len(shown) >= 2
    for key, output in shown:
        printed = re.sub(r"\.py:\d+\)", ".py:<line>)", explain(key, registry()).replace("\\", "/"))
        assert printed == output.rstrip("\n"), key
