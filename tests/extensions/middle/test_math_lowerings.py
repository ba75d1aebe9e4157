"""Middle-phase lowerings of the math operators, checked on constant inputs: the replacement
subgraph is inferred as it is built, so its folded value must equal the operator's meaning."""
import numpy as np
import pytest

from extensions.middle.elementwise_edges import BitShiftOutOfRange, FloatRemainders, PowerMixedTypes, PReluNumpySlope
from extensions.middle.onnx_det import DetToLeibniz
from extensions.middle.onnx_loss import LossToOpset
from extensions.middle.onnx_reduce import OnnxReduceToOpset
from extensions.middle.onnx_softmax import OnnxSoftmaxToOpset
from mo.graph.builder import OpBuilder
from tests.utils.graphs import infer_op


def lowered(transform, op, *inputs, **attrs):
    """Value (and the graph's op types) after ``transform`` replaced ``op`` fed by ``inputs``."""
    (out, *_) = infer_op(op, *inputs, **attrs)
    graph = out.node.graph
    result = OpBuilder(graph).node("Result", out)
    transform().find_and_replace_pattern(graph)
    graph.lint()
    return result.in_port(0).data.get_value(), graph.op_types()


def test_float_remainders_with_infinities():
    x = np.array([-3, 3, -1, 1, np.inf, 5.5], np.float32)
    y = np.array([np.inf, np.inf, -np.inf, -np.inf, 2, -2], np.float32)
    value, ops = lowered(FloatRemainders, "FloorMod", x, y)
    np.testing.assert_array_equal(value, [np.inf, 3, -1, -np.inf, np.nan, -0.5])
    assert "FloorMod" not in ops
    value, _ = lowered(FloatRemainders, "Mod", x, y)
    np.testing.assert_array_equal(value, [-3, 3, -1, 1, np.nan, 1.5])


def test_bitshift_out_of_range_gives_zero_or_minus_one():
    x = np.array([-8, 4, -1, 1], np.int32)
    value, _ = lowered(BitShiftOutOfRange, "BitwiseRightShift", x, np.array([32, 33, -1, 1], np.int32),
                       onnx_bitshift=True)
    np.testing.assert_array_equal(value, [-1, 0, -1, 0])
    value, _ = lowered(BitShiftOutOfRange, "BitwiseLeftShift", x, np.array([-1, 40, 2, 3], np.int32),
                       onnx_bitshift=True)
    np.testing.assert_array_equal(value, [0, 0, -4, 8])


def test_power_int_base_float_exponent():
    value, _ = lowered(PowerMixedTypes, "Power", np.array([4, 9], np.int32), np.array([0.5, 2.0], np.float32))
    np.testing.assert_array_equal(value, [2, 81])
    assert value.dtype == np.int32


def test_det_by_leibniz():
    x = np.random.default_rng(1).normal(size=(2, 3, 3)).astype(np.float32)
    value, ops = lowered(DetToLeibniz, "onnx::Det", x)
    np.testing.assert_allclose(value, np.linalg.det(x), rtol=1e-5)
    assert "onnx::Det" not in ops


@pytest.mark.parametrize("kind, flatten, axis", [("Hardmax", False, 1), ("Hardmax", True, 1),
                                                  ("Softmax", True, 1), ("LogSoftmax", False, 0)])
def test_softmax_family(kind, flatten, axis):
    x = np.array([[[1, 5], [5, 0]], [[2, 2], [0, 1]]], np.float32)
    expected = infer_op("onnx::Softmax", x, variant=kind, axis=axis, flatten=flatten)[0].data.get_value()
    value, ops = lowered(OnnxSoftmaxToOpset, "onnx::Softmax", x, variant=kind, axis=axis, flatten=flatten)
    np.testing.assert_allclose(value, expected, rtol=1e-6)
    assert "onnx::Softmax" not in ops


@pytest.mark.parametrize("kind", ["ReduceLogSumExp", "ReduceSumSquare", "ReduceL2", "ReduceMax"])
def test_reductions(kind):
    x = np.array([[1, -2, 3], [0.5, 4, -1]], np.float32)
    expected = infer_op("onnx::Reduce", x, reduction=kind, axes=[1], keep_dims=False)[0].data.get_value()
    value, _ = lowered(OnnxReduceToOpset, "onnx::Reduce", x, reduction=kind, axes=[1], keep_dims=False)
    np.testing.assert_allclose(value, expected, rtol=1e-6)


def test_boolean_reduce_max():
    x = np.array([[True, False], [False, False]])
    value, _ = lowered(OnnxReduceToOpset, "onnx::Reduce", x, reduction="ReduceMax", axes=[1], keep_dims=False)
    np.testing.assert_array_equal(value, [True, False])


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss_with_weight_and_ignore_index(reduction):
    log_prob = np.log(np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3], [0.7, 0.2, 0.1]], np.float32))
    target = np.array([2, 0, 1], np.int64)
    weight = np.array([1.0, 2.0, 3.0], np.float32)
    value, _ = lowered(LossToOpset, "onnx::Loss", log_prob, target, weight, variant="NLL", reduction=reduction,
                       ignore_index=0)
    w = np.array([3.0, 0.0, 2.0])
    losses = -log_prob[np.arange(3), target] * w
    expected = {"none": losses, "sum": losses.sum(), "mean": losses.sum() / w.sum()}[reduction]
    np.testing.assert_allclose(value, expected, rtol=1e-6)


def test_onnx_prelu_slope_broadcasts_like_numpy():
    x = -np.ones((1, 2, 2), np.float32)
    value, _ = lowered(PReluNumpySlope, "PRelu", x, np.array([1, 2], np.float32), numpy_slope=True)
    np.testing.assert_array_equal(value, [[[-1, -2], [-1, -2]]])
    legacy = -np.ones((1, 2, 3), np.float32)
    value, _ = lowered(PReluNumpySlope, "PRelu", legacy, np.array([1, 2], np.float32), numpy_slope=True)
    np.testing.assert_array_equal(value, [[[-1] * 3, [-2] * 3]])


def test_drop_reduced_dims_targets_the_kept_dims_in_order():
    from extensions.middle.onnx_reduce import drop_reduced_dims
    from tests.utils.graphs import new_graph
    graph, b = new_graph(data_form=True)
    x = b.Parameter(shape=(2, 3, 4, 5), element_type="f32")
    axes = b.const(np.array([-1, 1]))
    out = drop_reduced_dims(b, b.ReduceSum(x, axes, keep_dims=True), x, axes, 4, 2)
    np.testing.assert_array_equal(out.node.in_port(1).data.get_value(), [2, 4])
    assert out.data.get_shape() == (2, 4)


def test_sce_loss_value_matches_its_lowering():
    scores = np.random.default_rng(2).normal(size=(3, 4, 2)).astype(np.float32)
    labels = np.array([[0, 3], [1, -1], [2, 2]], np.int64)
    expected = infer_op("onnx::Loss", scores, labels, variant="SCE", reduction="mean", ignore_index=-1)[0]
    value, _ = lowered(LossToOpset, "onnx::Loss", scores, labels, variant="SCE", reduction="mean", ignore_index=-1)
    np.testing.assert_allclose(value, expected.data.get_value(), rtol=1e-6)


def test_reduce_max_of_infinities_only():
    x = np.array([[-np.inf, -np.inf], [1, -np.inf]], np.float32)
    value, ops = lowered(OnnxReduceToOpset, "onnx::Reduce", x, reduction="ReduceMax", axes=[1], keep_dims=False)
    np.testing.assert_array_equal(value, [-np.inf, 1])
    assert "Select" in ops
