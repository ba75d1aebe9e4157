"""Layer tests of the ONNX tensor/shape/indexing operators in forms the backend node cases miss
(attribute forms of old opsets, constant axes and pads, dynamic dims): a one-node model run by
onnxruntime, converted with mo, run by the OpenVINO runtime, outputs compared."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime  # noqa: F401  (needed by these tests)
import openvino  # noqa: F401  (needed by these tests)
import pytest
from onnx import helper  # noqa: E402

from mo import convert_model  # noqa: E402
from tests.utils.onnx_models import make_model, run_onnxruntime  # noqa: E402
from tests.utils.runtime import assert_close, run_ir  # noqa: E402

rng = np.random.default_rng(0)
X = rng.normal(size=(2, 3, 4)).astype(np.float32)


@pytest.fixture
def compare(tmp_path):
    """compare(op, {input: array}, initializers={name: array or None}, outputs=n, opset=..,
    dynamic=.., rtol=.., atol=.., options={convert_model option: value}, **attrs): onnxruntime and
    OpenVINO agree on a one-node model (None initializers are empty optional inputs; ``dynamic``
    makes every input dim symbolic)."""
    def run(op_type, inputs, initializers=None, outputs=1, opset=21, dynamic=False, rtol=1e-4, atol=1e-5,
            options=None, **attrs):
        initializers = initializers or {}
        names = list(inputs) + [("" if v is None else k) for k, v in initializers.items()]
        out_names = [f"y{i}" for i in range(outputs)]
        node = helper.make_node(op_type, names, out_names, **attrs)
        graph_inputs = [(n, helper.np_dtype_to_tensor_dtype(v.dtype),
                         [f"d{n}{i}" for i in range(v.ndim)] if dynamic else list(v.shape)) for n, v in inputs.items()]
        model = make_model([node], graph_inputs, [(o, 0, None) for o in out_names],
                           {k: v for k, v in initializers.items() if v is not None}, opset=opset)
        for out in model.graph.output:
            out.type.Clear()
        expected = run_onnxruntime(model, list(inputs.values()))
        path = tmp_path / "m.onnx"
        onnx.save(model, path)
        ir = convert_model(input_model=str(path), output_dir=str(tmp_path / "ir"), model_name="m", **(options or {}))
        assert_close(run_ir(ir.xml, list(inputs.values())), expected, rtol=rtol, atol=atol)
        return ir
    return run


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("exclusive,reverse", [(0, 0), (1, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_cumprod_constant_axis(compare, axis, exclusive, reverse, dtype):
    x = rng.integers(-3, 4, size=(3, 5)).astype(dtype)
    ir = compare("CumProd", {"x": x}, {"axis": np.array(axis, np.int64)}, exclusive=exclusive, reverse=reverse,
                 opset=26)
    assert 'type="Pad"' in open(ir.xml).read()


def test_cumprod_dynamic_length_by_logarithms(compare):
    """An axis whose length is known only at run time: sign * exp(CumSum(log |x|)), no Pad scan."""
    x = rng.integers(-3, 4, size=(3, 5)).astype(np.float32)
    ir = compare("CumProd", {"x": x}, {"axis": np.array(1, np.int64)}, exclusive=1, opset=26, dynamic=True)
    assert 'type="Pad"' not in open(ir.xml).read()


def test_pad_wrap_constant_pads_with_crop(compare):
    compare("Pad", {"x": X}, {"pads": np.array([1, 0, 2, 1, 1, -1], np.int64)}, mode="wrap", dynamic=True)


def test_pad_attribute_form_and_constant_axes(compare):
    compare("Pad", {"x": X}, opset=2, pads=[0, 1, 0, 1, 0, 2], value=1.5)
    compare("Pad", {"x": X}, {"pads": np.array([1, 2, 0, 1], np.int64), "value": None,
                              "axes": np.array([-1, 1], np.int64)}, mode="reflect")


def test_split_num_outputs_on_a_dynamic_dim(compare):
    x = rng.normal(size=(2, 8)).astype(np.float32)
    compare("Split", {"x": x}, outputs=3, axis=1, num_outputs=3, opset=18, dynamic=True)


@pytest.mark.parametrize("size,kind", [(9, "Split"), (8, "VariadicSplit")])
def test_split_num_outputs_on_a_static_dim(compare, size, kind):
    """With --static_shape the part lengths are fixed: Split when n divides the dim, else
    VariadicSplit; without it the parts stay Slices computed from the run-time dim."""
    x = rng.normal(size=(2, size)).astype(np.float32)
    ir = compare("Split", {"x": x}, outputs=3, axis=-1, num_outputs=3, opset=18, options={"static_shape": True})
    assert f'type="{kind}"' in open(ir.xml).read()
    ir = compare("Split", {"x": x}, outputs=3, axis=-1, num_outputs=3, opset=18)
    xml = open(ir.xml).read()
    assert 'type="Slice"' in xml and 'type="Split"' not in xml and 'type="VariadicSplit"' not in xml


@pytest.mark.parametrize("options", [{}, {"static_shape": True}])
def test_two_sided_dft_of_a_real_signal(compare, options):
    """RDFT completed by the conjugate bins, mirrored by a run-time length or, with --static_shape,
    by constant indices."""
    x = rng.normal(size=(2, 7, 3, 1)).astype(np.float32)
    compare("DFT", {"x": x}, {"dft_length": None, "axis": np.array(1, np.int64)}, opset=20, options=options)


def test_slice_attribute_form_and_computed_starts(compare):
    compare("Slice", {"x": X}, opset=9, starts=[1, -3], ends=[100, -1], axes=[1, 2])
    compare("Slice", {"x": X, "starts": np.array([0, 1], np.int64)}, {"ends": np.array([1, 3], np.int64)},
            opset=13)


def test_squeeze_unsqueeze_attribute_form(compare):
    compare("Unsqueeze", {"x": X}, opset=11, axes=[0, -1])
    compare("Squeeze", {"x": X[:1]}, opset=11, axes=[0])


def test_topk_attribute_form_and_smallest(compare):
    compare("TopK", {"x": X}, outputs=2, opset=1, k=2, axis=1)
    compare("TopK", {"x": X}, {"k": np.array([3], np.int64)}, outputs=2, largest=0, axis=-1, dynamic=True)


def test_argmax_select_last_index_dynamic(compare):
    x = rng.integers(0, 3, size=(3, 6)).astype(np.float32)
    compare("ArgMax", {"x": x}, axis=1, keepdims=0, select_last_index=1, dynamic=True)


def test_shape_ops_on_dynamic_dims(compare):
    compare("Flatten", {"x": X}, axis=-1, dynamic=True)
    compare("Transpose", {"x": X}, dynamic=True)
    compare("Shape", {"x": X}, start=-2, dynamic=True)
    compare("Unsqueeze", {"x": X, "axes": np.array([3, 0], np.int64)}, opset=13)
    compare("Tile", {"x": X}, {"repeats": np.array([2, 1, 3], np.int64)}, dynamic=True)


def test_resize_keep_aspect_ratio_by_scales(compare):
    x = rng.normal(size=(1, 2, 4, 6)).astype(np.float32)
    ir = compare("Resize", {"x": x}, {"roi": None, "scales": None, "sizes": np.array([2, 9], np.int64)},
                 mode="linear", axes=[2, 3], keep_aspect_ratio_policy="not_larger", opset=19)
    assert 'shape_calculation_mode="scales"' in open(ir.xml).read()


def test_upsample_and_resize_10(compare):
    x = rng.normal(size=(1, 2, 3, 4)).astype(np.float32)
    compare("Upsample", {"x": x}, opset=7, scales=[1.0, 1.0, 2.0, 3.0], mode="nearest")
    compare("Resize", {"x": x}, {"scales": np.array([1, 1, 2, 1.5], np.float32)}, mode="linear", opset=10)


def test_onehot_float_indices_and_depth(compare):
    compare("OneHot", {"i": np.array([[0, 2], [-1, 1]], np.float32)},
            {"depth": np.array([3], np.float32), "values": np.array([-1, 5], np.float32)}, axis=0)


def test_resize_constant_scales_are_not_compressed_to_f16(compare):
    """0.1 in float16 is 0.09998: floor(10 * scale) would lose the only output row."""
    x = rng.normal(size=(1, 1, 10, 10)).astype(np.float32)
    compare("Resize", {"x": x}, {"roi": np.zeros(0, np.float32), "scales": np.array([1, 1, 0.1, 0.7], np.float32)},
            mode="nearest")


IMAGE = rng.normal(size=(1, 2, 9, 11)).astype(np.float32)
EMPTY = np.zeros(0, np.float32)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_resize_antialias_by_the_resampler(compare, mode):
    """Folded resampling weights are stored as float16 (--compress_to_fp16): tolerance 1e-3."""
    compare("Resize", {"x": IMAGE}, {"roi": EMPTY, "scales": np.array([1, 1, 0.45, 0.6], np.float32)}, mode=mode,
            antialias=1, opset=18, rtol=1e-3, atol=1e-3)
    compare("Resize", {"x": IMAGE}, {"roi": None, "scales": None, "sizes": np.array([4, 5], np.int64)}, mode=mode,
            antialias=1, axes=[2, 3], opset=18, dynamic=True, rtol=1e-3, atol=1e-3)


def test_resize_exclude_outside_and_crop_by_the_resampler(compare):
    compare("Resize", {"x": IMAGE}, {"roi": EMPTY, "scales": np.array([1, 1, 0.45, 1.6], np.float32)}, mode="cubic",
            exclude_outside=1, cubic_coeff_a=-0.5, rtol=1e-3, atol=1e-3)
    compare("Resize", {"x": IMAGE}, {"roi": np.array([0.2, 0.1, 0.9, 1.3], np.float32), "scales": None,
                                     "sizes": np.array([4, 7], np.int64)},
            mode="linear", axes=[2, 3], coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-1.0,
            opset=18, rtol=1e-3, atol=1e-3)


def test_training_mode_dropout_is_refused(tmp_path):
    from mo.errors import ConversionError
    node = helper.make_node("Dropout", ["x", "ratio", "training"], ["y"])
    model = make_model([node], [("x", onnx.TensorProto.FLOAT, [2, 3])], [("y", onnx.TensorProto.FLOAT, None)],
                       {"ratio": np.array(0.3, np.float32), "training": np.array(True)}, opset=13)
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    with pytest.raises(ConversionError, match="training mode"):
        convert_model(input_model=str(path), output_dir=str(tmp_path / "ir"), model_name="m")


def test_col2im_3d_by_scatter_add(tmp_path):
    """OpenVINO's Col2Im is 2-D; other ranks are a scatter-add (reference: the ONNX evaluator)."""
    from onnx.reference import ReferenceEvaluator
    image, block, strides, pads = np.array([4, 5, 3]), np.array([2, 2, 2]), [1, 2, 1], [1, 0, 0, 0, 1, 1]
    blocks = (image + np.array(pads[:3]) + np.array(pads[3:]) - block) // np.array(strides) + 1
    x = rng.normal(size=(2, 3 * 8, int(np.prod(blocks)))).astype(np.float32)
    node = helper.make_node("Col2Im", ["x", "image", "block"], ["y"], strides=strides, pads=pads)
    model = make_model([node], [("x", onnx.TensorProto.FLOAT, list(x.shape)), ("image", onnx.TensorProto.INT64, [3])],
                       [("y", onnx.TensorProto.FLOAT, None)], {"block": block}, opset=18)
    expected = ReferenceEvaluator(model).run(None, {"x": x, "image": image})
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    ir = convert_model(input_model=str(path), output_dir=str(tmp_path / "ir"), model_name="m")
    assert_close(run_ir(ir.xml, [x, image]), expected, rtol=1e-4, atol=1e-5)
