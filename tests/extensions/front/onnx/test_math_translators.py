"""Translators of the ONNX math and nn operators, on one framework node extracted and translated
in a data-form graph: with constant inputs the translation's folded value must be the
operator's; with Parameter inputs its output shapes and types."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from extensions.front.onnx.reduce import drop_reduced_dims
from mo.errors import ConversionError
from mo.pipeline.extract import extract
from mo.pipeline.translate import translate_graph
from tests.utils.graphs import new_graph

rng = np.random.default_rng(0)


def translated(op_type, *inputs, opset=21, domain="", outputs=1, **attrs):
    """(the ports computing the outputs, the op types of the graph) of one ONNX ``op_type`` node
    with attributes ``attrs`` fed by ``inputs``: numpy arrays (Consts), (shape, element type)
    pairs (Parameters) or None (an omitted optional input)."""
    graph, b = new_graph()
    ports = []
    for value in inputs:
        if value is None:
            ports.append(None)
        elif isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
            ports.append(b.Parameter(shape=value[0], element_type=value[1]))
        else:
            ports.append(b.const(np.asarray(value)))
    proto = helper.make_node(op_type, ["" if p is None else f"x{i}" for i, p in enumerate(ports)],
                             [f"y{i}" for i in range(outputs)], domain=domain, **attrs)
    node = graph.add_op({"name": op_type, "fw_op": op_type, "domain": domain, "pb": proto, "opset": opset,
                         "op": None, "num_outputs": outputs})
    for i, port in enumerate(ports):
        if port is not None:
            port.connect(node.in_port(i))
    results = [b.node("Result", node.out_port(i)) for i in range(outputs)]
    extract(graph, "onnx")
    graph.to_data_form()
    translate_graph(graph)
    graph.lint()
    graph.lint_translated()
    return [r.in_port(0).get_source() for r in results], graph.op_types()


def value(op_type, *inputs, **kwargs):
    (out, *_), _ = translated(op_type, *inputs, **kwargs)
    return out.data.get_value()


def shapes(ports):
    return [p.data.get_shape() for p in ports]


# ---------------------------------------------------------------------------- elementwise


def test_bitshift_out_of_range_gives_zero_or_minus_one():
    x = np.array([-8, 4, -1, 1], np.int32)
    np.testing.assert_array_equal(value("BitShift", x, np.array([32, 33, -1, 1], np.int32), direction="RIGHT"),
                                  [-1, 0, -1, 0])
    np.testing.assert_array_equal(value("BitShift", x, np.array([-1, 40, 2, 3], np.int32), direction="LEFT"),
                                  [0, 0, -4, 8])


def test_pow_int_base_float_exponent():
    out = value("Pow", np.array([4, 9], np.int32), np.array([0.5, 2.0], np.float32))
    np.testing.assert_array_equal(out, [2, 81])
    assert out.dtype == np.int32


def test_pow_float_base_int_exponent_converts_the_exponent():
    (out,), ops = translated("Pow", ((2,), "f32"), np.array([2, 3], np.int64))
    assert out.data.get_dtype() == "f32" and "Convert" not in ops


@pytest.mark.parametrize("op_type, expected", [("Max", [3, 5]), ("Min", [0, -2]), ("Sum", [4, 3]),
                                               ("Mean", [4 / 3, 1])])
def test_variadic(op_type, expected):
    inputs = [np.array(v, np.float32) for v in ([1, 5], [3, 0], [0, -2])]
    np.testing.assert_allclose(value(op_type, *inputs), expected, rtol=1e-6)


def test_variadic_of_one_input_is_an_identity():
    (out,), ops = translated("Mean", ((2, 3), "f32"))
    assert out.node.op == "Identity" and out.data.get_shape() == (2, 3)


def test_binarizer():
    out = value("Binarizer", np.array([-1, 0.5, 2], np.float32), domain="ai.onnx.ml", threshold=0.5)
    np.testing.assert_array_equal(out, [0, 0, 1])
    assert out.dtype == np.float32


def test_onnx_prelu_slope_broadcasts_like_numpy():
    x = -np.ones((1, 2, 2), np.float32)
    np.testing.assert_array_equal(value("PRelu", x, np.array([1, 2], np.float32)), [[[-1, -2], [-1, -2]]])
    legacy = -np.ones((1, 2, 3), np.float32)
    np.testing.assert_array_equal(value("PRelu", legacy, np.array([1, 2], np.float32)), [[[-1] * 3, [-2] * 3]])


# ---------------------------------------------------------------------------- cast


def test_saturating_cast_to_float8_clamps_keeping_nan():
    (out,), ops = translated("Cast", ((3,), "f32"), to=TensorProto.FLOAT8E4M3FN)
    assert out.node.op == "Convert" and out.data.get_dtype() == "f8e4m3"
    assert {"Clamp", "IsNaN", "Select"} <= ops
    (out,), ops = translated("Cast", ((3,), "f32"), to=TensorProto.FLOAT8E4M3FN, saturate=0)
    assert "Clamp" not in ops


def test_cast_like_of_the_same_type_is_the_input():
    (out,), ops = translated("CastLike", ((3,), "f32"), ((1,), "f32"))
    assert out.node.op == "Parameter" and "Convert" not in ops


def test_bitcast_between_integers_of_one_width():
    out = value("BitCast", np.array([-1, 1], np.int8), to=TensorProto.UINT8)
    np.testing.assert_array_equal(out, [255, 1])
    with pytest.raises(ConversionError, match="no bit reinterpretation"):
        translated("BitCast", ((2, -1), "f32"), to=TensorProto.INT32)


# ---------------------------------------------------------------------------- matmul


def test_det_by_leibniz():
    x = rng.normal(size=(2, 3, 3)).astype(np.float32)
    np.testing.assert_allclose(value("Det", x), np.linalg.det(x), rtol=1e-5)
    (out,), ops = translated("Det", ((-1, 3, 3), "f32"))
    assert out.data.get_shape() == (-1,) and "ReduceProd" in ops
    with pytest.raises(ConversionError, match="static matrix order"):
        translated("Det", ((2, -1, -1), "f32"))


# ---------------------------------------------------------------------------- softmax, hardmax, losses


def _reference(kind, x, axis):
    if kind == "Hardmax":
        first = np.expand_dims(np.argmax(x, axis=axis), axis)
        return (np.arange(x.shape[axis]).reshape((-1,) + (1,) * (x.ndim - axis - 1)) == first).astype(x.dtype)
    shifted = x - x.max(axis=axis, keepdims=True)
    log_prob = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return log_prob if kind == "LogSoftmax" else np.exp(log_prob)


@pytest.mark.parametrize("kind, opset, axis", [("Hardmax", 13, 1), ("Hardmax", 11, 1), ("Softmax", 11, 1),
                                                ("LogSoftmax", 13, 0), ("Hardmax", 13, -1)])
def test_softmax_family(kind, opset, axis):
    x = np.array([[[1, 5], [5, 0]], [[2, 2], [0, 1]]], np.float32)
    expected = _reference(kind, x.reshape(2, 4), 1).reshape(x.shape) if opset < 13 else _reference(kind, x, axis % 3)
    np.testing.assert_allclose(value(kind, x, opset=opset, axis=axis), expected, rtol=1e-6)


def test_hardmax_of_a_dynamic_axis():
    (out,), ops = translated("Hardmax", ((-1, 3), "f32"), opset=13, axis=0)
    assert out.data.get_shape() == (-1, 3) and "ShapeOf" in ops


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss_with_weight_and_ignore_index(reduction):
    log_prob = np.log(np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3], [0.7, 0.2, 0.1]], np.float32))
    target = np.array([2, 0, 1], np.int64)
    weight = np.array([1.0, 2.0, 3.0], np.float32)
    out = value("NegativeLogLikelihoodLoss", log_prob, target, weight, reduction=reduction, ignore_index=0)
    w = np.array([3.0, 0.0, 2.0])
    losses = -log_prob[np.arange(3), target] * w
    expected = {"none": losses, "sum": losses.sum(), "mean": losses.sum() / w.sum()}[reduction]
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_sce_loss_and_its_log_probabilities():
    scores = rng.normal(size=(3, 4, 2)).astype(np.float32)
    labels = np.array([[0, 3], [1, -1], [2, 2]], np.int64)
    (loss, log_prob), _ = translated("SoftmaxCrossEntropyLoss", scores, labels, outputs=2, ignore_index=-1)
    expected_log_prob = _reference("LogSoftmax", scores, 1)
    kept = labels != -1
    picked = np.take_along_axis(expected_log_prob, np.where(kept, labels, 0)[:, None], 1)[:, 0]
    np.testing.assert_allclose(log_prob.data.get_value(), expected_log_prob, rtol=1e-6)
    np.testing.assert_allclose(loss.data.get_value(), -(picked * kept).sum() / kept.sum(), rtol=1e-6)


def test_loss_shapes_per_reduction():
    outs, _ = translated("SoftmaxCrossEntropyLoss", ((2, 5, 3), "f32"), ((2, 3), "i64"), outputs=2,
                         reduction="none")
    assert shapes(outs) == [(2, 3), (2, 5, 3)]
    (out,), _ = translated("NegativeLogLikelihoodLoss", ((2, 5), "f32"), ((2,), "i64"))
    assert out.data.get_shape() == () and out.data.get_dtype() == "f32"


# ---------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("kind, fn", [
    ("ReduceLogSumExp", lambda x: np.log(np.exp(x).sum(1))), ("ReduceSumSquare", lambda x: (x * x).sum(1)),
    ("ReduceL2", lambda x: np.sqrt((x * x).sum(1))), ("ReduceMax", lambda x: x.max(1)),
    ("ReduceL1", lambda x: np.abs(x).sum(1)), ("ReduceProd", lambda x: x.prod(1)),
    ("ReduceMean", lambda x: x.mean(1)), ("ReduceLogSum", lambda x: np.log(np.abs(x).sum(1))),
])
def test_reductions_with_attribute_and_input_axes(kind, fn):
    x = np.array([[1, -2, 3], [0.5, 4, -1]], np.float32)
    x = np.abs(x) if kind == "ReduceLogSum" else x
    np.testing.assert_allclose(value(kind, x, opset=11, axes=[1], keepdims=0), fn(x), rtol=1e-6)
    np.testing.assert_allclose(value(kind, x, np.array([-1]), opset=18, keepdims=0), fn(x), rtol=1e-6)


def test_reduce_axes_forms():
    (out,), _ = translated("ReduceSum", ((2, -1, 4), "f32"), opset=11, axes=[-1])
    assert out.data.get_shape() == (2, -1, 1)
    (out,), _ = translated("ReduceSum", ((2, -1, 4), "f32"), opset=11, axes=[0, 2], keepdims=0)
    assert out.data.get_shape() == (-1,)
    (out,), _ = translated("ReduceMax", ((2, 3), "f32"), np.zeros(0, np.int64), opset=18, keepdims=0)
    assert out.data.get_shape() == ()
    (out,), _ = translated("ReduceMax", ((2, 3), "f32"), opset=18)
    assert out.data.get_shape() == (1, 1)
    (out,), _ = translated("ReduceMax", ((2, 3), "f32"), np.zeros(0, np.int64), opset=18, noop_with_empty_axes=1)
    assert out.node.op == "Identity" and out.data.get_shape() == (2, 3)


def test_reduce_runtime_axes():
    (out,), _ = translated("ReduceMin", ((2, 3), "f32"), ((1,), "i64"), opset=18)
    assert out.data.get_shape() == (-1, -1)
    (out,), _ = translated("ReduceMin", ((2, 3), "f32"), ((1,), "i64"), opset=18, keepdims=0)
    assert out.node.op == "Reshape" and out.data.get_shape() == (-1,)


def test_boolean_reduce_max():
    x = np.array([[True, False], [False, False]])
    np.testing.assert_array_equal(value("ReduceMax", x, np.array([1]), opset=18, keepdims=0), [True, False])


def test_reduce_max_of_infinities_only():
    x = np.array([[-np.inf, -np.inf], [1, -np.inf]], np.float32)
    (out,), ops = translated("ReduceMax", x, np.array([1]), opset=18, keepdims=0)
    np.testing.assert_array_equal(out.data.get_value(), [-np.inf, 1])
    assert "Select" in ops


def test_drop_reduced_dims_targets_the_kept_dims_in_order():
    graph, b = new_graph(data_form=True)
    x = b.Parameter(shape=(2, 3, 4, 5), element_type="f32")
    axes = b.const(np.array([-1, 1]))
    out = drop_reduced_dims(b, b.ReduceSum(x, axes, keep_dims=True), x, axes, 4, 2)
    np.testing.assert_array_equal(out.node.in_port(1).data.get_value(), [2, 4])
    assert out.data.get_shape() == (2, 4)


# ---------------------------------------------------------------------------- normalizations


def test_layer_norm_statistics_shapes():
    outs, _ = translated("LayerNormalization", ((2, -1, 8), "f32"), ((8,), "f32"), outputs=3, axis=-1)
    assert shapes(outs) == [(2, -1, 8), (2, -1, 1), (2, -1, 1)]
    (y, mean, _), _ = translated("LayerNormalization", ((2, 3, 4), "f16"), ((3, 4), "f16"), outputs=3, axis=1)
    assert mean.data.get_shape() == (2, 1, 1) and mean.data.get_dtype() == "f32" and y.data.get_dtype() == "f16"


def test_batch_norm_training_outputs():
    outs, _ = translated("BatchNormalization", ((2, 3, 5), "f32"), *[((3,), "f32")] * 4, opset=15, outputs=3,
                         training_mode=1)
    assert shapes(outs) == [(2, 3, 5), (3,), (3,)]


def test_group_norm_per_group_scale_of_opset_18():
    x = rng.normal(size=(2, 4, 3)).astype(np.float32)
    out = value("GroupNormalization", x, np.array([2, 3], np.float32), np.array([0, 1], np.float32), opset=18,
                num_groups=2, epsilon=0.0)
    groups = x.reshape(2, 2, 6)
    normalized = ((groups - groups.mean(-1, keepdims=True)) / groups.std(-1, keepdims=True)).reshape(x.shape)
    expected = normalized * np.repeat([2, 3], 2)[:, None] + np.repeat([0, 1], 2)[:, None]
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    (out,), _ = translated("GroupNormalization", ((2, -1, 3), "f32"), ((2,), "f32"), ((2,), "f32"), opset=18,
                           num_groups=2)
    assert out.data.get_shape() == (2, -1, 3)


# ---------------------------------------------------------------------------- attention


def test_attention_4d_with_past_shapes():
    outs, _ = translated("Attention", ((2, 9, 4, 8), "f32"), ((2, 3, 6, 8), "f32"), ((2, 3, 6, 10), "f32"), None,
                         ((2, 3, 12, 8), "f32"), ((2, 3, 12, 10), "f32"), opset=23, outputs=4)
    assert shapes(outs) == [(2, 9, 4, 10), (2, 3, 18, 8), (2, 3, 18, 10), (2, 9, 4, 18)]


def test_attention_3d_shapes_with_dynamic_sequence():
    (y, present_k, _, qk), _ = translated("Attention", ((2, -1, 72), "f16"), ((2, 6, 24), "f16"),
                                          ((2, 6, 30), "f16"), opset=23, outputs=4, q_num_heads=9, kv_num_heads=3)
    assert y.data.get_shape() == (2, -1, 90) and y.data.get_dtype() == "f16"
    assert present_k.data.get_shape() == (2, 3, 6, 8) and qk.data.get_shape() == (2, 9, -1, 6)


def test_attention_scale_follows_the_head_size():
    (y,), ops = translated("Attention", ((1, 2, 3, 8), "f32"), ((1, 2, 5, 8), "f32"), ((1, 2, 5, 8), "f32"),
                           opset=23)
    assert y.node.op == "ScaledDotProductAttention" and {"ShapeOf", "Power"} <= ops


def test_rotary_embedding_keeps_the_input_shape():
    (out,), _ = translated("RotaryEmbedding", ((2, -1, 64), "f32"), ((16, 8), "f32"), ((16, 8), "f32"),
                           ((2, -1), "i64"), opset=23, num_heads=4)
    assert out.data.get_shape() == (2, -1, 64) and out.data.get_dtype() == "f32"
    (out,), _ = translated("RotaryEmbedding", ((2, 4, -1, -1), "f32"), ((2, -1, 8), "f32"), ((2, -1, 8), "f32"),
                           opset=23, interleaved=1)
    assert out.data.get_shape() == (2, 4, -1, 16)   # the head size is twice the caches' last dim


def test_linear_attention_shapes_and_state_type():
    (out, state), _ = translated("LinearAttention", ((2, 4, 64), "f16"), ((2, 4, 32), "f16"), ((2, 4, 48), "f16"),
                                 ((2, 4, 8, 12), "f32"), opset=26, outputs=2, q_num_heads=8, kv_num_heads=4,
                                 update_rule="linear")
    assert out.data.get_shape() == (2, 4, 96) and out.data.get_dtype() == "f16"
    assert state.data.get_shape() == (2, 4, 8, 12) and state.data.get_dtype() == "f32"
