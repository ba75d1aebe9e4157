"""reports/supported_ops.md lists what the registry converts, and stays in step with it."""
from mo.pipeline.supported_ops import REPORT, markdown, supported_op_types
from tests.utils.graphs import registry


def test_report_matches_the_registry():
    with open(REPORT, encoding="utf-8") as f:
        assert f.read() == markdown(registry()), \
            "reports/supported_ops.md is out of date: run python -m mo.pipeline.supported_ops"


def test_lists_extractor_and_translator_types_of_each_framework():
    onnx = supported_op_types(registry(), "onnx")
    assert {"Conv", "Resize", "ai.onnx.ml::Binarizer"} <= set(onnx)
    assert "FusedBatchNormV3" in supported_op_types(registry(), "tf")
    assert "aten::layer_norm" in supported_op_types(registry(), "pytorch")
