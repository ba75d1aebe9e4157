"""TransposeIntoLoopSlicing: time-major Transposes around a loop's sliced input and concatenated
output become the loop's slicing axes."""
import numpy as np
import pytest

from extensions.middle.loop_slicing import TransposeIntoLoopSlicing
from extensions.ops.control_flow import new_body, port_entry, sliced_entry
from mo.graph.builder import OpBuilder
from tests.utils.reference import assert_rewrite, assert_untouched

TIME_MAJOR = np.array([1, 0, 2], np.int64)
REVERSED = np.array([2, 1, 0], np.int64)


def _recurrence(op="TensorIterator", perm=TIME_MAJOR, reverse=False, x_shape=(2, 5, 3), shared=False):
    """x [batch 2, time 5, 3] -> per step h = tanh(x_t + h), every h stacked: a recurrent layer
    the TensorFlow way, time-major between Transposes by ``perm`` (``shared``: the input
    Transpose is read by another op too)."""
    def build(b):
        x = b.Parameter(shape=x_shape, element_type="f32", name="x")
        h0 = b.Parameter(shape=(2, 3), element_type="f32", name="h0")
        body = new_body(b.graph)
        bb = OpBuilder(body)
        xt, h = bb.Parameter(shape=None, name="xt"), bb.Parameter(shape=None, name="h")
        new_h = bb.Tanh(bb.Add(bb.Squeeze(xt, np.array([0], np.int64)), h))
        h_res = bb.node("Result", new_h)
        all_res = bb.node("Result", bb.Unsqueeze(new_h, np.array([0], np.int64)))
        time_major = b.Transpose(x, perm)
        inputs = [time_major, h0]
        if op == "Loop":
            inputs = [b.const(np.array(-1, np.int64)), b.const(np.array(True))] + inputs
        first = 2 if op == "Loop" else 0
        node = b.node(op, *inputs, bodies={"body": body},
                      input_port_map=[sliced_entry(first, xt.node, 0, reverse), port_entry(first + 1, h.node)],
                      output_port_map=[port_entry(0, h_res), sliced_entry(1, all_res, 0, reverse)],
                      back_edges=[{"from": h_res.id, "to": h.node.id}])
        outputs = (node.out_port(0), b.Transpose(node.out_port(1), perm))
        return outputs + (b.ReLU(time_major),) if shared else outputs
    return build


@pytest.mark.parametrize("op", ["TensorIterator", "Loop"])
@pytest.mark.parametrize("reverse", [False, True])
def test_transposes_become_slicing_axes(op, reverse):
    g = assert_rewrite(_recurrence(op, reverse=reverse), TransposeIntoLoopSlicing, expect_ops=[op])
    loop = g.nodes_by_op(op)[0]
    assert [e["axis"] for e in loop.input_port_map + loop.output_port_map if e.get("axis") is not None] == [1, 1]
    assert loop.out_port(1).data.get_shape() == (2, 5, 3)


def test_transposes_that_also_reorder_other_dims_stay():
    assert_untouched(_recurrence(perm=REVERSED, x_shape=(3, 2, 5)), TransposeIntoLoopSlicing)


def test_input_transpose_read_by_another_op_stays():
    g = assert_rewrite(_recurrence(shared=True), TransposeIntoLoopSlicing,
                       expect_ops=["Transpose", "TensorIterator", "ReLU"])
    loop = g.nodes_by_op("TensorIterator")[0]
    assert [e.get("axis") for e in loop.input_port_map] == [0, None]      # only the output moved
