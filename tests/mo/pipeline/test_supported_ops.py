"""reports/supported_ops.md and docs/ops.md list what the registry holds, and stay in step with it."""
import pytest

from mo.pipeline.supported_ops import documents
from tests.utils.graphs import registry


@pytest.mark.parametrize("path", ["reports/supported_ops.md", "docs/ops.md"])
def test_generated_documents_match_the_registry(path):
    (full, expected), = [(p, t) for p, t in documents(registry()).items() if p.endswith(path)]
    with open(full, encoding="utf-8") as f:
        assert f.read() == expected, f"{path} is out of date: run python -m mo.pipeline.supported_ops"


def test_lists_extractor_and_translator_types_of_each_framework():
    assert {"Conv", "Resize", "ai.onnx.ml::Binarizer"} <= set(registry().framework_op_types("onnx"))
    assert "FusedBatchNormV3" in registry().framework_op_types("tf")
    assert "aten::layer_norm" in registry().framework_op_types("pytorch")
