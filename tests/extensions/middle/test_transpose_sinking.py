"""The layout step: Transposes pushed through layout-agnostic ops (the rules of transpose_rules),
merged and cancelled, on small graphs; the reference interpreter checks every result keeps the
values."""
import numpy as np
import pytest

from extensions.middle.transpose_sinking import TransposeSinking, TransposeToReshape
from tests.utils.reference import assert_rewrite, assert_untouched

TO_LAST = np.array([0, 2, 3, 1], np.int64)    # NCHW -> NHWC
TO_FIRST = np.array([0, 3, 1, 2], np.int64)   # NHWC -> NCHW
X = np.random.default_rng(0).standard_normal((1, 3, 4, 5)).astype(np.float32)   # NCHW


def sunk(build, expect_ops, inputs=None):
    """TransposeSinking of ``build(b, x)`` (x: an NCHW Parameter) keeps the reference values and
    leaves ``expect_ops``."""
    def graph(b):
        return build(b, b.Parameter(shape=X.shape, element_type="f32", name="x"))
    return assert_rewrite(graph, TransposeSinking, [X] if inputs is None else inputs, expect_ops=expect_ops,
                          framework="tf")


def test_elementwise_chain_between_inverse_transposes_cancels():
    bias = np.arange(3, dtype=np.float32)

    def build(b, x):
        y = b.ReLU(b.Add(b.Transpose(x, TO_LAST), bias))
        return b.Transpose(b.Multiply(y, np.float32(2)), TO_FIRST)
    sunk(build, ["Add", "ReLU", "Multiply"])


def test_names_of_the_channels_last_tensors_stay_as_permuted_names():
    """The Transposes go, the channels-last tensors they made with them: their names stay on the
    channels-first tensors, with the permutation that gives them back (--validate_layers)."""
    def build(b, x):
        nhwc = b.Transpose(x, TO_LAST)
        nhwc.add_tensor_names(["nhwc"])
        relu = b.ReLU(nhwc)
        relu.add_tensor_names(["relu"])
        return b.Transpose(relu, TO_FIRST)
    g = sunk(build, ["ReLU"])
    relu = g.nodes_by_op("ReLU")[0]
    assert relu.out_port(0).get_permuted_names() == {"relu": (0, 2, 3, 1)}
    assert relu.in_port(0).get_source().get_permuted_names() == {"nhwc": (0, 2, 3, 1)}


def test_residual_add_of_two_transposed_tensors():
    def build(b, x):
        a, c = b.Transpose(b.Sigmoid(x), TO_LAST), b.Transpose(b.Tanh(x), TO_LAST)
        return b.Transpose(b.Add(a, c), TO_FIRST)
    sunk(build, ["Sigmoid", "Tanh", "Add"])


@pytest.mark.parametrize("keep_dims,expect", [(False, ["ReduceMean"]), (True, ["ReduceMean", "Transpose"])])
def test_reduction_maps_its_axes(keep_dims, expect):
    def build(b, x):
        return b.ReduceMean(b.Transpose(x, TO_LAST), np.array([1, 2], np.int64), keep_dims=keep_dims)
    sunk(build, expect)


def test_reduction_without_keep_dims_restores_the_order_of_what_is_left():
    def build(b, x):
        return b.ReduceSum(b.Transpose(x, TO_LAST), np.array([0], np.int64), keep_dims=False)
    sunk(build, ["ReduceSum", "Transpose"])


def test_concat_pad_split_and_softmax_remap_their_axes():
    def build(b, x):
        y = b.Transpose(x, TO_LAST)
        y = b.Concat(y, b.Transpose(b.Negative(x), TO_LAST), axis=3)
        y = b.Pad(y, np.array([0, 1, 0, 2], np.int64), np.array([0, 0, 2, 0], np.int64), pad_mode="constant")
        first, _ = b.Split(y, np.int64(-1), num_splits=2)
        return b.Transpose(b.Softmax(first, axis=-1), TO_FIRST)
    sunk(build, ["Negative", "Concat", "Pad", "Split", "Softmax"])


def test_variadic_split_log_softmax_and_interpolate_follow():
    def build(b, x):
        y = b.Transpose(x, TO_LAST)
        a, c = b.VariadicSplit(y, np.int64(1), np.array([1, 3], np.int64))
        resized = b.Interpolate(b.LogSoftmax(c, axis=3), np.array([6, 10], np.int64), np.array([1, 2], np.int64),
                                mode="linear_onnx", shape_calculation_mode="sizes")
        return b.Transpose(a, TO_FIRST), b.Transpose(resized, TO_FIRST)
    sunk(build, ["VariadicSplit", "LogSoftmax", "Interpolate"])


def test_constant_operands_are_transposed_and_scalars_kept():
    per_pixel = np.random.default_rng(1).standard_normal((4, 5, 3)).astype(np.float32)   # NHWC without N

    def build(b, x):
        y = b.Multiply(b.Transpose(x, TO_LAST), per_pixel)
        y = b.Select(b.Greater(y, np.float32(0)), y, np.float32(0.1))
        y = b.PRelu(b.Convert(y, destination_type="f16"), np.array([0.25], np.float16))
        return b.Transpose(b.Subtract(np.float16(1), y), TO_FIRST)
    sunk(build, ["Multiply", "Greater", "Select", "Convert", "PRelu", "Subtract"])


def test_reader_that_waits_for_its_sibling():
    """x -> mean over channels (keep_dims) -> x - mean: the Subtract takes the Transpose once
    the ReduceMean has."""
    def build(b, x):
        y = b.Transpose(x, TO_LAST)
        return b.Transpose(b.Subtract(y, b.ReduceMean(y, np.array([3], np.int64), keep_dims=True)), TO_FIRST)
    sunk(build, ["ReduceMean", "Subtract"])


def test_shared_transpose_is_not_pushed_past_an_op_that_needs_the_layout():
    def build(b, x):
        y = b.Transpose(x, TO_LAST)
        flat = b.Reshape(y, np.array([1, -1], np.int64))
        return b.Concat(flat, b.Reshape(b.ReLU(y), np.array([1, -1], np.int64)), axis=1)
    sunk(build, ["Transpose", "Reshape", "ReLU", "Reshape", "Concat"])


def test_shape_of_a_transposed_tensor_is_gathered():
    def build(b, x):
        return b.Broadcast(np.float32(1), b.ShapeOf(b.Exp(b.Transpose(x, TO_LAST))), mode="numpy")
    sunk(build, ["Exp", "ShapeOf", "Gather", "Broadcast"])


@pytest.mark.parametrize("build,inputs", [
    (lambda b, x: b.MatMul(b.Transpose(x, TO_LAST), np.ones((3, 2), np.float32)), [X]),
    (lambda b, x: b.Add(b.Transpose(x, TO_LAST), b.Parameter(shape=(1, 4, 5, 3), element_type="f32", name="y")),
     [X, np.ones((1, 4, 5, 3), np.float32)]),
    (lambda b, x: b.Add(b.Transpose(x, TO_LAST), np.ones((2, 1, 1, 1, 3), np.float32)), [X]),
], ids=["matmul", "other_input_not_transposed", "constant_of_higher_rank"])
def test_transposes_before_a_layout_boundary_stay(build, inputs):
    assert_untouched(lambda b: build(b, b.Parameter(shape=X.shape, element_type="f32", name="x")), TransposeSinking,
                     inputs, framework="tf")


def test_transpose_of_unit_dims_becomes_reshape():
    def build(b):
        return b.Transpose(b.Parameter(shape=(-1, 1, 1, 7), element_type="f32"), TO_FIRST)
    g = assert_rewrite(build, TransposeToReshape, [np.ones((2, 1, 1, 7), np.float32)], expect_ops=["Reshape"],
                       framework="tf")
    assert g.nodes_by_op("Reshape")[0].in_value(1).tolist() == [-1, 7, 1, 1]


def test_transpose_moving_real_dims_stays():
    assert_untouched(lambda b: b.Transpose(b.Parameter(shape=(2, 1, 3, 7), element_type="f32"), TO_FIRST),
                     TransposeToReshape, framework="tf")
