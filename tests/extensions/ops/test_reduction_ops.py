"""infer of the ONNX reductions (onnx::Reduce) and the opset reductions."""
import numpy as np

from tests.utils.graphs import infer_op


def test_onnx_reduce_attribute_axes_keepdims():
    (out,) = infer_op("onnx::Reduce", ((2, -1, 4), "f32"), reduction="ReduceSum", axes=[-1], keep_dims=True)
    assert out.data.get_shape() == (2, -1, 1)
    (out,) = infer_op("onnx::Reduce", ((2, -1, 4), "f32"), reduction="ReduceSum", axes=[0, 2], keep_dims=False)
    assert out.data.get_shape() == (-1,)


def test_onnx_reduce_empty_axes_reduce_all_or_nothing():
    (out,) = infer_op("onnx::Reduce", ((2, 3), "f32"), np.zeros(0, np.int64), reduction="ReduceMax", keep_dims=False)
    assert out.data.get_shape() == ()
    (out,) = infer_op("onnx::Reduce", ((2, 3), "f32"), reduction="ReduceMax", keep_dims=True)
    assert out.data.get_shape() == (1, 1)
    (out,) = infer_op("onnx::Reduce", ((2, 3), "f32"), np.zeros(0, np.int64), reduction="ReduceMax",
                      noop_with_empty_axes=True)
    assert out.data.get_shape() == (2, 3)


def test_onnx_reduce_runtime_axes():
    (out,) = infer_op("onnx::Reduce", ((2, 3), "f32"), ((1,), "i64"), reduction="ReduceMin", keep_dims=True)
    assert out.data.get_shape() == (-1, -1)
    (out,) = infer_op("onnx::Reduce", ((2, 3), "f32"), ((1,), "i64"), reduction="ReduceMin", keep_dims=False)
    assert out.data.get_shape() is None


def test_onnx_reduce_folds_every_kind():
    x = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
    expected = {"ReduceSum": [-1, 7], "ReduceL1": [3, 7], "ReduceSumSquare": [5, 25], "ReduceProd": [-2, 12],
                "ReduceLogSumExp": np.log(np.exp(x).sum(1)), "ReduceMean": [-0.5, 3.5]}
    for kind, value in expected.items():
        (out,) = infer_op("onnx::Reduce", x, np.array([1]), reduction=kind, keep_dims=False)
        np.testing.assert_allclose(out.data.get_value(), value, rtol=1e-6)
        assert out.data.get_dtype() == "f32"


def test_onnx_reduce_empty_set_values():
    x = np.zeros((2, 0), np.float32)
    (out,) = infer_op("onnx::Reduce", x, np.array([1]), reduction="ReduceMax", keep_dims=True)
    np.testing.assert_array_equal(out.data.get_value(), [[-np.inf], [-np.inf]])
    (out,) = infer_op("onnx::Reduce", x, np.array([1]), reduction="ReduceProd", keep_dims=False)
    np.testing.assert_array_equal(out.data.get_value(), [1, 1])


def test_opset_reduce_shapes():
    (out,) = infer_op("ReduceL2", ((2, 3, 4), "f32"), np.array([1, -1]), keep_dims=True)
    assert out.data.get_shape() == (2, 1, 1)
    (out,) = infer_op("ReduceLogicalOr", ((2, 3), "boolean"), np.array([0]))
    assert out.data.get_shape() == (3,)
