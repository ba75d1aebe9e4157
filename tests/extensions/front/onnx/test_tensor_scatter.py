"""ONNX TensorScatter (KV-cache update) lowered to ScatterElementsUpdate, against ONNX Runtime."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from mo import convert_model
from tests.utils.onnx_models import make_model, run_onnxruntime
from tests.utils.runtime import assert_close, run_ir


@pytest.mark.parametrize("mode", ["linear", "circular"])
def test_tensor_scatter_with_dynamic_batch(mode, tmp_path):
    node = helper.make_node("TensorScatter", ["past", "update", "idx"], ["present"], mode=mode, axis=2)
    model = make_model([node], [("past", TensorProto.FLOAT, ["b", 2, 6, 3]), ("update", TensorProto.FLOAT,
                                                                               ["b", 2, "s", 3]),
                                ("idx", TensorProto.INT64, ["b"])],
                       [("present", TensorProto.FLOAT, ["b", 2, 6, 3])], opset=24, ir_version=11)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((2, 2, 6, 3)).astype(np.float32),
              rng.standard_normal((2, 2, 2, 3)).astype(np.float32), np.array([1, 5 if mode == "circular" else 4])]
    paths = convert_model(input_model=model, output_dir=str(tmp_path), compress_to_fp16=False)
    assert_close(run_ir(paths.xml, inputs), run_onnxruntime(model, inputs))


def test_tensor_scatter_without_write_indices_writes_at_the_start(tmp_path):
    """No write_indices: every batch row is written from position 0 of the cache axis (-2 by default)."""
    node = helper.make_node("TensorScatter", ["past", "update"], ["present"])
    model = make_model([node], [("past", TensorProto.FLOAT, ["b", 5, 3]), ("update", TensorProto.FLOAT, ["b", 2, 3])],
                       [("present", TensorProto.FLOAT, ["b", 5, 3])], opset=24, ir_version=11)
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal((2, 5, 3)).astype(np.float32), rng.standard_normal((2, 2, 3)).astype(np.float32)]
    paths = convert_model(input_model=model, output_dir=str(tmp_path), compress_to_fp16=False)
    assert_close(run_ir(paths.xml, inputs), run_onnxruntime(model, inputs))


def test_tensor_scatter_along_the_batch_axis_is_refused(tmp_path):
    from mo.errors import ConversionError
    node = helper.make_node("TensorScatter", ["past", "update"], ["present"], axis=0)
    model = make_model([node], [("past", TensorProto.FLOAT, [4, 3]), ("update", TensorProto.FLOAT, [1, 3])],
                       [("present", TensorProto.FLOAT, [4, 3])], opset=24, ir_version=11)
    with pytest.raises(ConversionError, match="batch axis"):
        convert_model(input_model=model, output_dir=str(tmp_path))
