"""Layer tests of TensorFlow 1 control flow frames (Switch/Merge/Enter/Exit/NextIteration/
LoopCond) built with tf.compat.v1, frozen and compared with TensorFlow: tf.cond -> If (Select
around loops, the branch taken for a constant predicate), tf.while_loop -> Loop (nested, with
invariants, counters and conditions of several variables)."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf1, ir_op_types, random

v1 = tf.compat.v1


@pytest.mark.parametrize("flag", [1, -1])
def test_cond(tmp_path, flag):
    def build(x, f):
        return v1.cond(f[0] > 0, lambda: tf.nn.relu(x) * 2.0, lambda: x - 1.0)
    xml = check_tf1(tmp_path, build, [random((2, 3)), np.array([flag], np.int32)])
    assert "If" in ir_op_types(xml)


@pytest.mark.parametrize("flag", [True, False])
def test_cond_with_a_constant_branch_and_two_outputs(tmp_path, flag):
    def build(x, f):
        return v1.cond(f, lambda: (x * 3.0, tf.reduce_sum(x)), lambda: (tf.ones_like(x), tf.constant(7.0)))
    xml = check_tf1(tmp_path, build, [random((2, 3)), np.array(flag)])
    assert ir_op_types(xml).count("If") == 1


@pytest.mark.parametrize("a, b", [(1, 1), (1, -1), (-1, 1), (-1, -1)])
def test_nested_cond(tmp_path, a, b):
    def build(x, p, q):
        def outer_true():
            return v1.cond(q[0] > 0, lambda: x + 10.0, lambda: x * x)
        return v1.cond(p[0] > 0, outer_true, lambda: x - 5.0)
    check_tf1(tmp_path, build, [random((3,)), np.array([a], np.int32), np.array([b], np.int32)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_while_with_carried_values(tmp_path, dtype):
    def build(x):
        def body(i, acc):
            return i + 1, acc * 2 + tf.cast(i, x.dtype)
        return v1.while_loop(lambda i, acc: i < 5, body, [tf.constant(0), x])
    xml = check_tf1(tmp_path, build, [random((2, 3), dtype)])
    assert "Loop" in ir_op_types(xml)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_with_a_dynamic_trip_count_and_invariants(tmp_path, n):
    def build(x, limit, scale):
        def body(i, acc):
            return i + 1, acc * scale + x
        return v1.while_loop(lambda i, acc: i < limit, body, [tf.constant(0), tf.zeros_like(x)])[1]
    check_tf1(tmp_path, build, [random((2, 3)), np.array(n, np.int32), np.array(0.5, np.float32)])


def test_while_whose_condition_reads_several_variables(tmp_path):
    def build(x):
        def body(i, total, acc):
            return i + 1, total + tf.reduce_sum(acc), acc * 1.5
        return v1.while_loop(lambda i, total, acc: tf.logical_and(i < 10, total < 50.0), body,
                             [tf.constant(0), tf.constant(0.0), x])
    check_tf1(tmp_path, build, [random((2, 2), low=0.5, high=1.0)])


def test_nested_while(tmp_path):
    def build(x):
        def outer(i, acc):
            inner = v1.while_loop(lambda j, a: j < i, lambda j, a: (j + 1, a + x * tf.cast(j, tf.float32)),
                                  [tf.constant(0), acc])[1]
            return i + 1, inner
        return v1.while_loop(lambda i, acc: i < 4, outer, [tf.constant(0), x])[1]
    xml = check_tf1(tmp_path, build, [random((3,))])
    assert ir_op_types(xml).count("Loop") == 1


def test_cond_inside_while(tmp_path):
    def build(x):
        def body(i, acc):
            acc = v1.cond(tf.equal(i % 2, 0), lambda: acc + 1.0, lambda: acc * 2.0)
            return i + 1, acc
        return v1.while_loop(lambda i, acc: i < 5, body, [tf.constant(0), x])[1]
    check_tf1(tmp_path, build, [random((3,))])


def test_lowered_tf2_control_flow(tmp_path):
    """A tf.function graph frozen with lower_control_flow=True has the same frames."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    from tests.utils.runtime import assert_close, run_ir
    from tests.utils.tf_models import convert_pb, write_pb

    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([], tf.int32)])
    def fn(x, n):
        def body(i, acc):
            acc = tf.cond(i < 2, lambda: acc + 1.0, lambda: acc * 0.5)
            return i + 1, acc
        return tf.while_loop(lambda i, acc: i < n, body, [tf.constant(0), x])[1]
    frozen = convert_variables_to_constants_v2(fn.get_concrete_function(), lower_control_flow=True)
    ops = {n.op for n in frozen.graph.as_graph_def().node}
    assert {"Enter", "Merge", "Switch", "Exit"} <= ops
    path = write_pb(frozen.graph.as_graph_def(), tmp_path / "model.pb")
    names = [t.name.split(":")[0] for t in frozen.inputs]
    xml = convert_pb(path, tmp_path / "ir", input=",".join(names))
    x, n = random((2, 3)), np.array(5, np.int32)
    assert_close(run_ir(xml, [x, n]), [fn(x, n).numpy()])


@pytest.mark.parametrize("flag", [True, False])
def test_cond_of_constants(tmp_path, flag):
    """Constant branches depend on the predicate only by control inputs."""
    def build(x, f):
        return x * v1.cond(f, lambda: tf.constant(0.5), lambda: tf.constant(1.0))
    check_tf1(tmp_path, build, [random((2, 3)), np.array(flag)])


@pytest.mark.parametrize("training", [True, False])
def test_cond_on_a_frozen_flag_keeps_one_branch(tmp_path, training):
    def build(x):
        flag = tf.constant(training)
        return v1.cond(flag, lambda: tf.nn.dropout(x, rate=0.0) * 3.0, lambda: tf.exp(x))
    xml = check_tf1(tmp_path, build, [random((2, 3))])
    types = ir_op_types(xml)
    assert "Select" not in types and ("Exp" in types) != training


@pytest.mark.parametrize("flag", [1, -1])
def test_cond_with_branches_of_different_shapes(tmp_path, flag):
    """Only the branch taken runs (an If), so the branches may disagree on the shape."""
    def build(x, f):
        return v1.cond(f[0] > 0, lambda: tf.reshape(x, [-1]) * 2.0, lambda: tf.reduce_sum(x, keepdims=True)[0])
    check_tf1(tmp_path, build, [random((2, 3)), np.array([flag], np.int32)])


@pytest.mark.parametrize("flag", [1, -1])
def test_while_inside_cond(tmp_path, flag):
    def build(x, f):
        def looped():
            return v1.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [tf.constant(0), x])[1]
        return v1.cond(f[0] > 0, looped, lambda: x + 1.0)
    check_tf1(tmp_path, build, [random((2, 3)), np.array([flag], np.int32)])


def test_cond_on_a_learning_phase_with_a_default(tmp_path):
    """Keras' learning phase: a PlaceholderWithDefault(False) that is not named as an input is
    its default, so only the inference branch is kept."""
    def build(x):
        phase = v1.placeholder_with_default(False, [], name="learning_phase")
        return v1.cond(phase, lambda: x * 0.5, lambda: tf.exp(x))
    xml = check_tf1(tmp_path, build, [random((2, 3))])
    assert "If" not in ir_op_types(xml) and "Exp" in ir_op_types(xml)


@pytest.mark.parametrize("flag", [True, False])
def test_chained_conds_on_one_predicate(tmp_path, flag):
    """Each cond reads the one before it: its predicate is found once the earlier cond is an If."""
    def build(x, f):
        for _ in range(4):
            x = v1.cond(f, lambda: tf.nn.relu(x) * 1.5, lambda: x - 0.5)
            x = tf.tanh(x) + x
        return x
    xml = check_tf1(tmp_path, build, [random((2, 3)), np.array(flag)])
    assert ir_op_types(xml).count("If") == 4


@pytest.mark.parametrize("pred_shape", [None, []])
@pytest.mark.parametrize("flag", [True, False])
def test_switch_on_an_input_of_unknown_rank(tmp_path, pred_shape, flag):
    """A predicate is a scalar: a model input of unknown rank that is one becomes a rank-0 input
    (the CPU plugin compiles no input of dynamic rank)."""
    from tests.utils.runtime import core
    from tests.utils.tf_models import check_tf1_raw

    def build():
        x = v1.placeholder(tf.float32, [3, 2], "x")
        pred = v1.placeholder(tf.bool, pred_shape, "pred")
        when_false, when_true = tf.raw_ops.Switch(data=x, pred=pred)
        merged = tf.raw_ops.Merge(inputs=[when_false + 3.0, when_true - 1.0])[0]
        return [merged + 1.0]
    xml = check_tf1_raw(tmp_path, build, [random((3, 2)), np.array(flag)])
    assert core().read_model(xml).inputs[1].get_partial_shape().to_string() == "[]"
