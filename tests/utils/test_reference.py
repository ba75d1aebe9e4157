"""The numpy reference interpreter: inputs, outputs, bodies, errors, and assert_rewrite failing when a
rewrite changes the values or leaves other ops than expected. Sub-graph ops are also run in the
OpenVINO runtime, the oracle the interpreter must agree with."""
import numpy as np
import pytest

from extensions.ops.control_flow import port_entry
from mo.emit.ir import emit_ir
from mo.graph.graph import Graph
from mo.ops.op import Op
from mo.pipeline.context import ConversionContext
from mo.registry import Registry, builtin_classes
from tests.extensions.ops.test_control_flow import body_graph, build_if, build_loop, build_reverse_tensor_iterator
from tests.utils.graphs import new_graph
from tests.utils.reference import (
    InterpreterError,
    assert_rewrite,
    assert_untouched,
    build_graph,
    live_ops,
    run_reference,
)
from tests.utils.runtime import assert_close, run_ir

RNG = np.random.default_rng(7)


def test_inputs_by_position_name_or_tensor_name_and_outputs_in_result_order():
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=(2, 3), element_type="f32", name="x")
    y = b.Parameter(shape=(3,), element_type="i64", name="y")
    y.add_tensor_names(["y:0"])
    b.Result(b.Add(x, b.Convert(y, destination_type="f32")), name="sum")
    b.Result(b.ShapeOf(x), name="shape")
    xv, yv = RNG.standard_normal((2, 3)), np.array([1, 2, 3])
    for inputs in ([xv, yv], {"x": xv, "y:0": yv}):
        total, shape = run_reference(g, inputs)
        assert total.dtype == np.float32 and shape.dtype == np.int64     # Parameter and output types
        np.testing.assert_allclose(total, xv.astype(np.float32) + yv.astype(np.float32))
        np.testing.assert_array_equal(shape, [2, 3])
    with pytest.raises(InterpreterError, match="no Parameter is called"):
        run_reference(g, {"z": xv})
    with pytest.raises(InterpreterError, match="1 inputs for 2 Parameters"):
        run_reference(g, [xv])


def test_shape_ops_evaluate_on_computed_inputs():
    """ShapeOf, Reshape, Squeeze, Unsqueeze, Transpose and Broadcast of a Parameter: values the
    inference leaves unknown, so the interpreter's evaluate computes them."""
    def build(b):
        x = b.Parameter(shape=(2, 1, 3), element_type="f32", name="x")
        flat = b.Reshape(x, np.array([0, -1], np.int64), special_zero=True)
        squeezed = b.Squeeze(x, np.array([1], np.int64))
        back = b.Unsqueeze(b.Transpose(squeezed, np.array([1, 0], np.int64)), np.array([0, -1], np.int64))
        wide = b.Broadcast(x, np.array([4, 2, 5, 3], np.int64), mode="bidirectional")
        ones = b.Broadcast(b.Squeeze(x), b.ShapeOf(flat), mode="numpy")
        return flat, back, wide, b.Broadcast(np.arange(3, dtype=np.float32), np.array([2, 3], np.int64),
                                             np.array([1], np.int64), mode="explicit"), ones
    g = build_graph(build)
    x = RNG.standard_normal((2, 1, 3)).astype(np.float32)
    flat, back, wide, explicit, same = run_reference(g, [x])
    np.testing.assert_array_equal(flat, x.reshape(2, 3))
    np.testing.assert_array_equal(back, x[:, 0].T[None, :, :, None])
    np.testing.assert_array_equal(wide, np.broadcast_to(x, (4, 2, 5, 3)))
    np.testing.assert_array_equal(explicit, [[0, 1, 2]] * 2)
    np.testing.assert_array_equal(same, x[:, 0])


def test_op_without_evaluate_is_named():
    class Opaque(Op):
        op = "TestOpaque"
    graph = Graph(context=ConversionContext.default(registry=Registry(builtin_classes() + [Opaque])))
    graph.to_data_form()
    from mo.graph.builder import OpBuilder
    b = OpBuilder(graph)
    b.Result(b.TestOpaque(b.Parameter(shape=(2,), element_type="f32"), name="mystery"))
    with pytest.raises(InterpreterError, match="op TestOpaque \\(node 'mystery'\\) has no evaluate"):
        run_reference(graph, [np.zeros(2)])


@pytest.mark.parametrize("cond", [True, False])
def test_if_runs_the_chosen_body_as_the_runtime(tmp_path, cond):
    g, _ = build_if()
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    y = RNG.standard_normal(3).astype(np.float32)
    (out,) = run_reference(g, [np.array(cond), x, y])
    np.testing.assert_allclose(out, x + y if cond else x * x)
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    assert_close([out], run_ir(xml, [np.array(cond), x, y]))


def test_loop_counts_iterations_slices_and_feeds_back_as_the_runtime(tmp_path):
    g, _ = build_loop(trip=4)
    init = np.array([1, -1], np.float32)
    x = RNG.standard_normal((5, 2)).astype(np.float32)
    acc, stacked = init, []
    for i in range(4):
        acc = acc + x[i] + i
        stacked.append(acc)
    outputs = run_reference(g, [init, x])
    assert_close(outputs, [acc, np.stack(stacked)], rtol=1e-6, atol=1e-6)
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    assert_close(outputs, run_ir(xml, [init, x]))


def _countdown_loop():
    """while v > 1 (no trip count): v = v / 2, every v kept; the body computes the condition."""
    g, b = new_graph(data_form=True)
    v0 = b.Parameter(shape=(1,), element_type="f32", name="v0")
    body, bb = body_graph()
    v = bb.Parameter(shape=None, name="v")
    half = bb.Divide(v, np.float32(2))
    res = bb.node("Result", half, name="half")
    cond = bb.node("Result", bb.Squeeze(bb.Greater(half, np.float32(1))), name="cond")
    node = b.node("Loop", b.const(np.array(-1, np.int64)), b.const(np.array(True)), v0, bodies={"body": body},
                  input_port_map=[port_entry(2, v.node)],
                  output_port_map=[port_entry(-1, cond, purpose="execution_condition"), port_entry(0, res),
                                   port_entry(1, res, axis=0)],
                  back_edges=[{"from": res.id, "to": v.node.id}])
    b.Result(node.out_port(0))
    b.Result(node.out_port(1))
    return g


def test_loop_stops_on_the_body_condition_as_the_runtime(tmp_path):
    g = _countdown_loop()
    last, every = run_reference(g, [np.array([20], np.float32)])
    np.testing.assert_array_equal(every, [10, 5, 2.5, 1.25, 0.625])
    np.testing.assert_array_equal(last, [0.625])
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    assert_close([last, every], run_ir(xml, [np.array([20], np.float32)]))


def test_tensor_iterator_reverse_slices_and_concatenation_as_the_runtime(tmp_path):
    """Partial sums of the columns of x [2, 5], last column first, kept in column order."""
    g, _ = build_reverse_tensor_iterator()
    xv = RNG.standard_normal((2, 5)).astype(np.float32)
    sv = np.array([1, 2], np.float32)
    last, every = run_reference(g, [xv, sv])
    expected = sv[:, None] + np.cumsum(xv[:, ::-1], axis=1)[:, ::-1]
    assert_close([last, every], [expected[:, 0], expected], rtol=1e-6, atol=1e-6)
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    assert_close([last, every], run_ir(xml, [xv, sv]))


def _relu_chain(b):
    x = b.Parameter(shape=(2, 4), element_type="f32", name="x")
    return b.Multiply(b.ReLU(x), np.float32(2))


def _relu_to(op):
    def rewrite(graph):
        relu = graph.nodes_by_op("ReLU")[0]
        new = graph.registry.op(op).create(graph, [relu.in_port(0).get_source()], name="new")
        relu.out_port(0).get_connection().set_source(new.out_port(0))
        graph.remove_node(relu.id)
    return rewrite


def test_assert_rewrite_fails_on_changed_values_or_other_ops():
    with pytest.raises(AssertionError, match="values differ"):
        assert_rewrite(_relu_chain, _relu_to("Sigmoid"), expect_ops=["Sigmoid", "Multiply"])
    with pytest.raises(AssertionError, match="ops after the rewrite"):
        assert_rewrite(_relu_chain, _relu_to("ReLU"), expect_ops=["Multiply"])
    with pytest.raises(AssertionError, match="ops after the rewrite"):
        assert_untouched(_relu_chain, _relu_to("Abs"))


def _negated(b):
    return b.Abs(b.Negative(b.Parameter(shape=(2, 4), element_type="f32", name="x")))


def _drop_negative(move_names: bool):
    """Abs(Negative(x)) -> Abs(x): the same output, but the Negative's tensor is gone: moving its
    name onto x would make the name stand for another value."""
    def rewrite(graph):
        negative = graph.nodes_by_op("Negative")[0]
        negative.out_port(0).get_connection().set_source(negative.in_port(0).get_source(), move_names=move_names)
        graph.remove_node(negative.id)
    return rewrite


def test_assert_rewrite_fails_when_a_name_is_left_on_another_value():
    assert_rewrite(_negated, _drop_negative(False), expect_ops=["Abs"])
    with pytest.raises(AssertionError, match="names another value after the rewrite"):
        assert_rewrite(_negated, _drop_negative(True), expect_ops=["Abs"])


def test_live_ops_skip_dead_branches_and_io():
    def build(b):
        x = b.Parameter(shape=(2,), element_type="f32")
        b.Exp(x)     # read by nothing
        return b.Add(b.ReLU(x), np.float32(1))
    assert live_ops(build_graph(build)) == ["ReLU", "Add"]
