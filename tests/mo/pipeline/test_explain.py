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
