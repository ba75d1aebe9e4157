"""EmptyContractions: a MatMul over an empty inner dim becomes zeros of its shape and type."""
import numpy as np
import pytest

from extensions.middle.empty_reductions import EmptyContractions, EmptyReductions
from tests.utils.reference import assert_rewrite, assert_untouched


@pytest.mark.parametrize("a_shape, b_shape, transpose_a, transpose_b, feed", [
    ((2, 0), (0, 3), False, False, None),
    ((0, 2), (3, 0), True, True, None),
    ((0,), (2, 0, 4), False, False, None),
    ((-1, 2, 0), (1, 0, 5), False, False, [(3, 2, 0), (1, 0, 5)]),       # batch known at run time only
    ((-1, 0), (-1, 1, 0), False, True, [(4, 0), (2, 1, 0)]),               # rows and batch at run time
    ((-1, 0), (0,), False, False, [(3, 0), (0,)]),
], ids=["static", "transposed", "vector", "dynamic_batch", "dynamic_rows", "dynamic_vector"])
def test_products_over_an_empty_inner_dim_become_zeros(a_shape, b_shape, transpose_a, transpose_b, feed):
    def build(b):
        x = b.Parameter(shape=a_shape, element_type="f32", name="a")
        y = b.Parameter(shape=b_shape, element_type="f32", name="b")
        return b.ReLU(b.MatMul(x, y, transpose_a=transpose_a, transpose_b=transpose_b))
    inputs = None if feed is None else [np.ones(s, np.float32) for s in feed]
    computed = ["ShapeOf", "Slice", "Slice", "Concat", "Broadcast"]      # one operand's part of the shape
    expect = ["Broadcast"] if feed is None else computed + (["Broadcast"] if b_shape == (0,) else computed)
    graph = assert_rewrite(build, EmptyContractions, inputs, expect_ops=expect + ["ReLU"])
    assert not graph.nodes_by_op("MatMul")


def test_integer_product_keeps_its_type():
    def build(b):
        return b.MatMul(b.Parameter(shape=(2, 0), element_type="i32", name="a"), np.zeros((0, 3), np.int32))
    graph = assert_rewrite(build, EmptyContractions, expect_ops=["Broadcast"])
    assert graph.nodes_by_op("Broadcast")[0].out_port(0).data.get_dtype() == "i32"


@pytest.mark.parametrize("a_shape", [(2, 3), (2, -1)], ids=["nonempty", "dynamic_inner"])
def test_other_products_stay(a_shape):
    def build(b):
        return b.MatMul(b.Parameter(shape=a_shape, element_type="f32", name="a"), np.ones((3, 4), np.float32))
    assert_untouched(build, EmptyContractions, [np.ones((2, 3), np.float32)])


def test_einsum_with_an_empty_operand_becomes_zeros():
    def build(b):
        x = b.Parameter(shape=(3, 0), element_type="f32", name="a")
        return b.Einsum(x, b.Parameter(shape=(0, 4), element_type="f32", name="b"), equation="ij,jk->ik")
    assert_rewrite(build, EmptyContractions, expect_ops=["Broadcast"])


@pytest.mark.parametrize("x_shape, w_shape, pads, out_shape", [((1, 0, 4, 4), (3, 0, 3, 3), 0, (1, 3, 2, 2)),
                                                                ((1, 2, 0, 4), (3, 2, 1, 1), 1, (1, 3, 2, 6))],
                         ids=["no_channels", "padding_only"])
def test_convolution_of_empty_data_becomes_zeros(x_shape, w_shape, pads, out_shape):
    def build(b):
        x = b.Parameter(shape=x_shape, element_type="f32", name="x")
        return b.Convolution(x, np.ones(w_shape, np.float32), strides=[1, 1], dilations=[1, 1],
                             pads_begin=[pads, pads], pads_end=[pads, pads])
    graph = assert_rewrite(build, EmptyContractions, expect_ops=["Broadcast"])
    assert graph.nodes_by_op("Broadcast")[0].out_port(0).data.get_shape() == out_shape


@pytest.mark.parametrize("op, dtype, value", [
    ("ReduceSum", "f32", 0), ("ReduceProd", "f32", 1), ("ReduceMax", "f32", -np.inf), ("ReduceMin", "f32", np.inf),
    ("ReduceMax", "i32", np.iinfo(np.int32).min), ("ReduceMin", "u8", 255), ("ReduceL2", "f32", 0),
])
def test_reductions_over_no_element_become_their_identity(op, dtype, value):
    def build(b):
        return b.op(op, b.Parameter(shape=(2, 0, 3), element_type=dtype, name="x"), np.array([1], np.int64))
    graph = assert_rewrite(build, EmptyReductions, expect_ops=["Broadcast"])
    const = graph.nodes_by_op("Broadcast")[0].in_port(0).get_source().node
    assert const.value == value and graph.nodes_by_op("Broadcast")[0].out_port(0).data.get_shape() == (2, 3)


def test_reductions_over_elements_and_means_stay():
    def build(b):
        x = b.Parameter(shape=(2, 0, 3), element_type="f32", name="x")
        return b.ReduceMax(x, np.array([2], np.int64)), b.ReduceMean(x, np.array([1], np.int64))
    assert_untouched(build, EmptyReductions)
