"""Inputs and attributes an op does not take are refused while inferring, naming what is wrong,
instead of an IR that the runtime refuses (Op.input_ranks / input_types and per-op checks)."""
import numpy as np
import pytest

from mo.errors import GraphError
from tests.utils.graphs import infer_op, new_graph

X = ((1, 4, 5), "f32")


@pytest.mark.parametrize("op, inputs, message", [
    ("Slice", [X, np.array([0]), np.array([2]), np.array([1]), np.array(1)], "input 4 has rank 0; Slice takes rank 1"),
    ("Range", [np.zeros((2,), np.float32), ((), "f32"), ((), "f32")], "input 0 has rank 1; Range takes rank 0"),
    ("CumSum", [X, ((1,), "i64")], "input 1 has rank 1; CumSum takes rank 0"),
    ("CumSum", [X, ((), "f32")], "input 1 has element type f32; CumSum takes i32 or i64"),
    ("TopK", [X, ((1,), "i64")], "input 1 has rank 1; TopK takes rank 0"),
    ("Transpose", [X, ((), "i64")], "input 1 has rank 0; Transpose takes rank 1"),
    ("Reshape", [X, ((2,), "f32")], "input 1 has element type f32; Reshape takes"),
    ("Transpose", [X, ((2,), "i64")], "the order has 2 entries but the input has rank 3"),
    ("Transpose", [X, np.array([0, 0, 1])], "not a permutation of the 3 dimensions"),
    ("Reshape", [X, ((0,), "i64")], "cannot reshape \\[1, 4, 5\\] to \\[\\]"),
    ("Interpolate", [X, ((1, 3), "f32"), np.array([0, 1, 2])], "input 1 has rank 2; Interpolate takes rank 1"),
    ("Interpolate", [((1, 4, 5), "u16"), np.array([1, 4, 5]), np.array([0, 1, 2])],
     "input 0 has element type u16; Interpolate takes"),
    ("MVN", [((), "f32"), np.array([0])], "1 axes for data of rank 0"),
    ("MVN", [X, np.array([3])], "axis 3 is out of range for rank 3"),
    ("NonMaxSuppression", [((), "f32"), ((1, 1, 3), "f32")], "input 0 has rank 0; NonMaxSuppression takes rank 3"),
    ("ReLU", [((2,), "string")], "input 0 is a string tensor; ReLU does not compute on strings"),
])
def test_inputs_of_a_rank_or_type_the_op_does_not_take_are_refused(op, inputs, message):
    with pytest.raises(GraphError, match=message):
        infer_op(op, *inputs)


def test_split_of_a_scalar_is_refused():
    with pytest.raises(GraphError, match="out of range for rank 0"):
        infer_op("Split", ((), "f32"), np.array(0), num_splits=2)


def test_softmax_axis_out_of_range_is_refused():
    with pytest.raises(GraphError, match="axis 7 is out of range for rank 3"):
        infer_op("Softmax", X, axis=7)
    (out,) = infer_op("Softmax", X, axis=-1)
    assert out.data.get_shape() == (1, 4, 5)


def test_concat_of_inputs_that_do_not_fit_is_refused():
    with pytest.raises(GraphError, match="ranks \\[2, 3\\]"):
        infer_op("Concat", ((8, 5), "f32"), ((8, 5, 1), "f32"), axis=1)
    with pytest.raises(GraphError, match="differ in dimension 0"):
        infer_op("Concat", ((8, 5), "f32"), ((3, 2), "f32"), axis=1)
    (out,) = infer_op("Concat", ((-1, 5), "f32"), ((3, 2), "f32"), axis=1)
    assert out.data.get_shape() == (3, 7)


@pytest.mark.parametrize("attrs, message", [
    ({"pads_begin": [1], "pads_end": [1, 1]}, "'pads_begin' has 1 values for 2 spatial dimensions"),
    ({"strides": [1, 1, 1]}, "'strides' has 3 values for 2 spatial dimensions"),
    ({"strides": [0, 1]}, "'strides' is \\[0, 1\\]; each value must be at least 1"),
])
def test_convolution_window_lists_must_fit_the_spatial_rank(attrs, message):
    with pytest.raises(GraphError, match=message):
        infer_op("Convolution", ((1, 3, 8, 8), "f32"), np.zeros((4, 3, 3, 3), np.float32), **attrs)


def test_pooling_kernel_must_fit_the_data_rank():
    with pytest.raises(GraphError, match="a kernel of 2 dims"):
        infer_op("AvgPool", ((1, 3, 8), "f32"), kernel=[2, 2], strides=[1, 1])


def test_lstm_weights_must_fit_input_and_hidden_size():
    x, h, c, lengths = ((2, 3, 5), "f32"), ((2, 1, 4), "f32"), ((2, 1, 4), "f32"), ((2,), "i64")
    w, r, b = ((1, 16, 5), "f32"), ((1, 16, 4), "f32"), ((1, 16), "f32")
    (y, _, _) = infer_op("LSTMSequence", x, h, c, lengths, w, r, b, hidden_size=4)
    assert y.data.get_shape() == (2, 1, 3, 4)
    with pytest.raises(GraphError, match="W has shape \\[1, 16, 6\\]"):
        infer_op("LSTMSequence", x, h, c, lengths, ((1, 16, 6), "f32"), r, b, hidden_size=4)
    with pytest.raises(GraphError, match="input 6 has rank 3; LSTMSequence takes rank 2"):
        infer_op("LSTMSequence", x, h, c, lengths, w, r, ((1, 16, 1), "f32"), hidden_size=4)


def test_pooling_window_larger_than_the_padded_input_is_refused():
    with pytest.raises(GraphError, match="window of 5 along spatial dimension 1 is larger than the padded input"):
        infer_op("MaxPool", ((1, 3, 8, 4), "f32"), kernel=[2, 5], strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0],
                 auto_pad="explicit")
    (out, _) = infer_op("MaxPool", ((1, 3, 8, 4), "f32"), kernel=[2, 5], strides=[1, 1], pads_begin=[0, 1],
                        pads_end=[0, 0], auto_pad="explicit")
    assert out.data.get_shape() == (1, 3, 7, 1)


def test_group_convolution_channels_must_match_the_groups():
    with pytest.raises(GraphError, match="input has 6 channels but 2 groups of filters expect 4"):
        infer_op("GroupConvolution", ((1, 6, 8, 8), "f32"), np.zeros((2, 3, 2, 3, 3), np.float32))


def test_convolution_kernel_larger_than_the_padded_input_is_refused():
    with pytest.raises(GraphError, match="kernel reaches 3 along spatial dimension 0, more than the padded input"):
        infer_op("Convolution", ((1, 3, 0, 8), "f32"), np.zeros((4, 3, 3, 3), np.float32), pads_begin=[1, 1],
                 pads_end=[1, 1], auto_pad="explicit")
    (out,) = infer_op("Convolution", ((1, 3, 1, 8), "f32"), np.zeros((4, 3, 3, 3), np.float32), pads_begin=[1, 1],
                      pads_end=[1, 1], auto_pad="explicit")
    assert out.data.get_shape() == (1, 4, 1, 8)


@pytest.mark.parametrize("trip, cond, message", [
    (((), "f32"), ((), "boolean"), "input 0 has element type f32; Loop takes i32 or i64"),
    (((5,), "i64"), ((), "boolean"), "the trip count \\(input 0\\) has 5 elements; Loop takes one"),
    (((), "i64"), ((2, 1), "boolean"), "input 1 has rank 2; Loop takes rank 0 or 1"),
])
def test_loop_trip_count_and_condition_are_single_values_of_their_types(trip, cond, message):
    from extensions.ops.control_flow import new_body
    graph, b = new_graph(data_form=True)
    body = new_body(graph)
    with pytest.raises(GraphError, match=message):
        b.node("Loop", b.Parameter(shape=trip[0], element_type=trip[1]),
               b.Parameter(shape=cond[0], element_type=cond[1]), bodies={"body": body}, num_outputs=0)
