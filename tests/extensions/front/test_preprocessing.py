"""Preprocessing and layout options embedded in the IR, checked against ONNX Runtime on the
equivalently preprocessed input, and the rewrite alone with the reference interpreter."""
import numpy as np
import pytest
from defusedxml import ElementTree

from extensions.front.preprocessing import ApplyLayoutAndPreprocessing
from mo import convert_model
from mo.cli.preprocess_spec import parse_layouts, parse_values
from mo.errors import OptionError
from tests.utils.onnx_models import conv_relu_model, run_onnxruntime
from tests.utils.reference import assert_rewrite, assert_untouched
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


# ------------------------------------------------------------------ reference interpreter
# The rewrite changes what the input means: the rewritten graph on the raw input must give what
# the original graph gives on the preprocessed input.
def _relu_of_input(b):
    return b.ReLU(b.Parameter(shape=X.shape, element_type="f32", name="x"))


def _preprocessed(expect_ops, inputs_before, inputs=(X,), **options):
    return assert_rewrite(_relu_of_input, ApplyLayoutAndPreprocessing, list(inputs), expect_ops=expect_ops,
                          inputs_before=[inputs_before], data_form=False, **options)


def test_mean_and_scale_values_keep_the_reference_values():
    _preprocessed(["Subtract", "Divide", "ReLU"], (X - MEAN) / SCALE,
                  mean_values=parse_values("x[120,110,100]", "--mean_values"),
                  scale_values=parse_values("[50,60,70]", "--scale_values"))


def test_reverse_channels_then_mean_then_single_scale():
    _preprocessed(["Gather", "Subtract", "Divide", "ReLU"], (X[:, ::-1] - MEAN) / 255.0, reverse_input_channels=True,
                  mean_values=parse_values("[120,110,100]", "--mean_values"), scale=255.0)


def test_target_layout_transposes_the_new_input():
    g = _preprocessed(["Transpose", "ReLU"], X, inputs=(X.transpose(0, 2, 3, 1),),
                      layouts=parse_layouts("x(nchw->nhwc)"))
    assert g.nodes_by_op("Parameter")[0].shape == (2, 8, 8, 3)


@pytest.mark.parametrize("options", [
    {"layouts": parse_layouts(source_layout="nchw")},                   # recorded only
    {"reverse_input_channels": True, "layouts": parse_layouts("x(nhwc)")},   # 8 channels: nothing to reverse
], ids=["source_layout", "not_three_channels"])
def test_options_that_add_no_operation(options):
    assert_untouched(_relu_of_input, ApplyLayoutAndPreprocessing, [X], data_form=False, **options)
