"""Preprocessing and layout options embedded in the IR, checked against ONNX Runtime on the
equivalently preprocessed input."""
import numpy as np
import pytest
from defusedxml import ElementTree

from mo import convert_model
from mo.errors import OptionError
from tests.utils.onnx_models import conv_relu_model, run_onnxruntime
from tests.utils.runtime import assert_close, core, run_ir

X = np.random.default_rng(3).uniform(0, 255, (2, 3, 8, 8)).astype(np.float32)
MEAN = np.array([120.0, 110.0, 100.0], np.float32).reshape(1, 3, 1, 1)
SCALE = np.array([50.0, 60.0, 70.0], np.float32).reshape(1, 3, 1, 1)


def _convert(tmp_path, **options):
    return convert_model(input_model=conv_relu_model(), output_dir=str(tmp_path), compress_to_fp16=False, **options)


def test_mean_and_scale_values_per_input(tmp_path):
    paths = _convert(tmp_path, mean_values="x[120,110,100]", scale_values="x[50,60,70]")
    assert_close(run_ir(paths.xml, [X]), run_onnxruntime(conv_relu_model(), [(X - MEAN) / SCALE]), rtol=1e-4)


def test_values_for_all_inputs_and_single_scale(tmp_path):
    paths = _convert(tmp_path, mean_values="[120,110,100]", scale=255.0)
    assert_close(run_ir(paths.xml, [X]), run_onnxruntime(conv_relu_model(), [(X - MEAN) / 255.0]), rtol=1e-4)


def test_reverse_channels_comes_before_mean(tmp_path):
    paths = _convert(tmp_path, reverse_input_channels=True, mean_values="[120,110,100]")
    expected = run_onnxruntime(conv_relu_model(), [X[:, ::-1] - MEAN])
    assert_close(run_ir(paths.xml, [X]), expected, rtol=1e-4)


def test_target_layout_transposes_the_input_and_is_recorded(tmp_path):
    paths = _convert(tmp_path, layout="x(nchw->nhwc)")
    model = core().read_model(paths.xml)
    assert str(model.input(0).get_partial_shape()) == "[?,8,8,3]"
    assert str(model.input(0).node.layout) == "[N,H,W,C]"
    assert_close(run_ir(paths.xml, [X.transpose(0, 2, 3, 1)]), run_onnxruntime(conv_relu_model(), [X]))


def test_source_layout_recorded_without_transpose(tmp_path):
    paths = _convert(tmp_path, source_layout="nchw")
    types = [layer.get("type") for layer in ElementTree.parse(paths.xml).getroot().iter("layer")]
    assert "Transpose" not in types
    assert str(core().read_model(paths.xml).input(0).node.layout) == "[N,C,H,W]"


@pytest.mark.parametrize("options,fragment", [
    ({"mean_values": "y[1,2,3]"}, "not an input"),
    ({"mean_values": "x[1,2]"}, "channel dimension is 3"),
    ({"layout": "x(nchw->nhw)"}, "same dimensions"),
    ({"layout": "x(nch)"}, "rank 4"),
    ({"scale_values": "x[1,0,1]"}, "must not contain 0"),
    ({"mean_values": "x[1,a]"}, "Malformed"),
])
def test_option_errors(tmp_path, options, fragment):
    with pytest.raises(OptionError, match=fragment):
        _convert(tmp_path, **options)


def test_scale_folds_into_the_first_convolution_and_padded_mean_stays(tmp_path):
    paths = _convert(tmp_path, mean_values="[120,110,100]", scale_values="[50,60,70]")
    types = [layer.get("type") for layer in ElementTree.parse(paths.xml).getroot().iter("layer")]
    assert "Divide" not in types and "Multiply" not in types   # the scale is in the weights
    assert "Subtract" in types                                   # the conv pads: the mean cannot move
    assert_close(run_ir(paths.xml, [X]), run_onnxruntime(conv_relu_model(), [(X - MEAN) / SCALE]), rtol=1e-4)


def test_mean_folds_into_an_unpadded_convolution(tmp_path):
    from onnx import TensorProto, helper

    from tests.utils.onnx_models import make_model
    rng = np.random.default_rng(4)
    model = make_model([helper.make_node("Conv", ["x", "w"], ["y"])], [("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                       [("y", TensorProto.FLOAT, None)], {"w": rng.standard_normal((4, 3, 3, 3)).astype(np.float32)})
    paths = convert_model(input_model=model, output_dir=str(tmp_path), compress_to_fp16=False,
                          mean_values="[120,110,100]", scale_values="[50,60,70]")
    types = [layer.get("type") for layer in ElementTree.parse(paths.xml).getroot().iter("layer")]
    assert "Subtract" not in types and "Divide" not in types and types.count("Add") == 1
    x = X[:1]
    assert_close(run_ir(paths.xml, [x]), run_onnxruntime(model, [(x - MEAN) / SCALE]), rtol=1e-4, atol=1e-4)
