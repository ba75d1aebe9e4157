"""TensorFlow 1 graphs that assign their own variables (extensions/load/tf/variables.py), built
with tf.compat.v1 and not frozen, run in TensorFlow (only what the outputs need, as a session
does) and in OpenVINO: a read takes the value the graph assigns before it; a variable whose value
the graph does not tell is refused, naming it and saying why."""
import numpy as np
import pytest
import tensorflow as tf

from mo.errors import ConversionError
from tests.utils.tf_models import check_tf1_raw, convert_pb, random, tf1_raw_graph, write_pb

v1 = tf.compat.v1
raw = tf.raw_ops


def values(shape, dtype, seed: int, unsigned_from: int = 0):
    """Values of ``dtype`` that a sum of two neither overflows nor rounds differently in
    TensorFlow and OpenVINO: -8 to 8, unsigned ones from ``unsigned_from`` to 8 above it."""
    if np.issubdtype(dtype, np.unsignedinteger):
        return random(shape, dtype, seed, unsigned_from, unsigned_from + 8)
    return random(shape, dtype, seed, -8, 8)


def refusal(tmp_path, build) -> str:
    """The message converting the graph of ``build`` is refused with."""
    graph_def, names, outputs, _ = tf1_raw_graph(build, None)
    with pytest.raises(ConversionError) as error:
        convert_pb(write_pb(graph_def, tmp_path / "model.pb"), tmp_path / "ir", input=",".join(names),
                   output=",".join(outputs))
    return str(error.value)


@pytest.mark.parametrize("shape", [(), (2,), (3, 2, 1, 4)])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32,
                                   np.float64])
def test_assign_then_read(tmp_path, shape, dtype):
    """Assign runs before the read that depends on it by control."""
    def build():
        x = v1.placeholder(dtype, [], "x")
        variable = raw.VariableV2(shape=shape, dtype=dtype)
        assign = raw.Assign(ref=variable, value=values(shape, dtype, 1, unsigned_from=200))
        with tf.control_dependencies([assign]):
            return [raw.AddV2(x=x, y=variable)]
    check_tf1_raw(tmp_path, build, [values((), dtype, 2)])


@pytest.mark.parametrize("update", [raw.AssignAdd, raw.AssignSub])
@pytest.mark.parametrize("shape", [(), (3, 4)])
def test_update_after_a_read(tmp_path, update, shape):
    """A read ordered after Assign sees its value, one ordered after the update that follows it
    sees the updated value."""
    def build():
        x = v1.placeholder(tf.float32, [], "x")
        variable = raw.VariableV2(shape=shape, dtype=tf.float32)
        assign = raw.Assign(ref=variable, value=random(shape, seed=1))
        with tf.control_dependencies([assign]):
            first = raw.Mul(x=variable, y=x, name="first")
        with tf.control_dependencies([first]):
            updated = update(ref=assign, value=random(shape, seed=2))
        with tf.control_dependencies([updated]):
            return [raw.Sub(x=variable, y=first)]
    check_tf1_raw(tmp_path, build, [np.float32(1.5)])


@pytest.mark.parametrize("kind", ["reference", "resource"])
def test_a_read_and_an_assignment_in_no_set_order_are_refused(tmp_path, kind):
    """Nothing orders the first read and the update: TensorFlow runs them in either order (the
    update first for a resource variable, the read first for a reference one, as it happens)."""
    def build():
        x = v1.placeholder(tf.float32, [], "x")
        if kind == "reference":
            variable = raw.VariableV2(shape=[2], dtype=tf.float32, name="v")
            assign = raw.Assign(ref=variable, value=np.ones(2, np.float32))
            with tf.control_dependencies([assign]):
                first = raw.Mul(x=variable, y=x, name="first")
            updated = raw.AssignAdd(ref=assign, value=np.ones(2, np.float32), name="update")
            with tf.control_dependencies([updated]):
                return [raw.Sub(x=variable, y=first)]
        handle = raw.VarHandleOp(shape=[2], dtype=tf.float32, name="v")
        assign = raw.AssignVariableOp(resource=handle, value=np.ones(2, np.float32))
        with tf.control_dependencies([assign]):
            first = raw.ReadVariableOp(resource=handle, dtype=tf.float32, name="first")
            updated = raw.AssignAddVariableOp(resource=handle, value=np.ones(2, np.float32), name="update")
        with tf.control_dependencies([updated]):
            return [raw.ReadVariableOp(resource=handle, dtype=tf.float32) * first * x]
    assert "variable 'v' ('update' may assign it before or after 'first' reads it" in refusal(tmp_path, build)


@pytest.mark.parametrize("update", [raw.AssignAdd, raw.AssignSub])
def test_update_read_through_its_output(tmp_path, update):
    """The output of an assignment is the variable: reading it, or reading the variable after
    it by data, gives the value after the assignment."""
    def build():
        x = v1.placeholder(tf.float32, [], "x")
        variable = raw.VariableV2(shape=[2, 3], dtype=tf.float32)
        assign = raw.Assign(ref=variable, value=random((2, 3), seed=1))
        updated = update(ref=assign, value=random((2, 3), seed=2))
        difference = raw.Sub(x=updated, y=x)
        return [raw.Mul(x=variable, y=difference), updated]
    check_tf1_raw(tmp_path, build, [np.float32(0.5)])


@pytest.mark.parametrize("shape", [(), (2,), (3, 4)])
def test_resource_variable(tmp_path, shape):
    """AssignVariableOp, AssignAddVariableOp and AssignSubVariableOp in a chain of control
    dependencies, then ReadVariableOp; the handle also passes an Identity."""
    def build():
        x = v1.placeholder(tf.float32, [], "x")
        handle = raw.VarHandleOp(shape=shape, dtype=tf.float32)
        assign = raw.AssignVariableOp(resource=handle, value=random(shape, seed=1))
        with tf.control_dependencies([assign]):
            added = raw.AssignAddVariableOp(resource=tf.identity(handle), value=random(shape, seed=2))
        with tf.control_dependencies([added]):
            before = raw.ReadVariableOp(resource=handle, dtype=tf.float32)
        with tf.control_dependencies([before]):
            subtracted = raw.AssignSubVariableOp(resource=handle, value=random(shape, seed=3))
        with tf.control_dependencies([subtracted]):
            after = raw.ReadVariableOp(resource=handle, dtype=tf.float32)
        return [raw.Mul(x=x, y=after), before]
    check_tf1_raw(tmp_path, build, [np.float32(1.5)])


def test_values_computed_from_inputs(tmp_path):
    """The assigned values are tensors of the graph, read variables among them."""
    def build():
        x = v1.placeholder(tf.float32, [2], "x")
        a = raw.VariableV2(shape=[2], dtype=tf.float32, shared_name="a", container="", name="a")
        b = v1.Variable(tf.zeros([2]), use_resource=True, name="b")
        set_a = raw.Assign(ref=a, value=x * 2.0)
        with tf.control_dependencies([set_a]):
            set_b = b.assign(a * x)
        with tf.control_dependencies([set_b]):
            grown = raw.AssignAdd(ref=a, value=b.read_value())
        with tf.control_dependencies([grown]):
            return [tf.identity(a), b.read_value()]
    check_tf1_raw(tmp_path, build, [np.array([1.0, -2.0], np.float32)])


def test_initializer_run_before_the_read(tmp_path):
    """A tf.Variable read after its own initializer has the initial value."""
    def build():
        x = v1.placeholder(tf.float32, [3], "x")
        w = v1.Variable(np.array([1.0, 2.0, 3.0], np.float32), use_resource=False, name="w")
        r = v1.Variable(np.array([4.0, 5.0, 6.0], np.float32), use_resource=True, name="r")
        with tf.control_dependencies([w.initializer, r.initializer]):
            return [tf.identity(x * w.read_value() + r.read_value())]
    check_tf1_raw(tmp_path, build, [random((3,))])


def test_a_training_step_the_outputs_do_not_need(tmp_path):
    """An optimizer's update does not run when the outputs are computed: it does not stop the
    conversion."""
    def build():
        x = v1.placeholder(tf.float32, [2], "x")
        w = v1.Variable(np.array([1.0, 2.0], np.float32), use_resource=False, name="w")
        with tf.control_dependencies([w.initializer]):
            y = tf.identity(x * w.read_value())
        v1.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y * y))
        return [y]
    check_tf1_raw(tmp_path, build, [random((2,))])


def test_assignment_inside_a_function_call(tmp_path):
    """A call's control inputs order every node inlined from its function, and a control
    dependency on the call orders after all of them."""
    @tf.function
    def add_to(handle, y):
        raw.AssignAddVariableOp(resource=handle, value=y * 3.0)
        return y + 1.0

    def build():
        x = v1.placeholder(tf.float32, [2], "x")
        handle = raw.VarHandleOp(shape=[2], dtype=tf.float32, name="v")
        assign = raw.AssignVariableOp(resource=handle, value=np.ones(2, np.float32))
        with tf.control_dependencies([assign]):
            returned = add_to(handle, x)
        with tf.control_dependencies([returned]):
            return [raw.ReadVariableOp(resource=handle, dtype=tf.float32) * returned]
    check_tf1_raw(tmp_path, build, [random((2,))])


def test_a_read_before_any_assignment_is_refused(tmp_path):
    def build():
        x = v1.placeholder(tf.float32, [2], "x")
        w = v1.Variable(np.ones(2, np.float32), use_resource=False, name="w")
        return [tf.identity(x * w, name="y")]
    message = refusal(tmp_path, build)
    assert "VariableV2 (w)" in message
    assert "variable 'w' ('w/read' reads it before the graph assigns it" in message and "checkpoint" in message


def test_assignments_in_no_set_order_are_refused(tmp_path):
    def build():
        x = v1.placeholder(tf.float32, [2], "x")
        variable = raw.VariableV2(shape=[2], dtype=tf.float32, name="v")
        first = raw.Assign(ref=variable, value=np.ones(2, np.float32), name="first")
        second = raw.Assign(ref=variable, value=np.zeros(2, np.float32), name="second")
        with tf.control_dependencies([first, second]):
            return [raw.Mul(x=variable, y=x, name="y")]
    assert "'first' and 'second' assign it in no set order before 'y' reads it" in refusal(tmp_path, build)


def test_an_update_the_outputs_need_is_refused(tmp_path):
    def build():
        x = v1.placeholder(tf.float32, [2], "x")
        variable = raw.VariableV2(shape=[2], dtype=tf.float32, name="v")
        assign = raw.Assign(ref=variable, value=np.ones(2, np.float32))
        step = raw.ApplyGradientDescent(var=assign, alpha=np.float32(0.5), delta=np.ones(2, np.float32), name="step")
        with tf.control_dependencies([step]):
            return [raw.Mul(x=variable, y=x, name="y")]
    assert "variable 'v' (ApplyGradientDescent 'step' uses it)" in refusal(tmp_path, build)


@pytest.mark.parametrize("form", ["functional", "switch"])
def test_an_assignment_in_a_cond_branch_is_refused(tmp_path, form):
    """It runs only when the branch does: a tf.cond (an If carrying the handle) or a branch of
    Switch/Merge whose assignment takes the handle itself and depends on the branch by control."""
    def build():
        x = v1.placeholder(tf.float32, [2], "x")
        flag = v1.placeholder(tf.bool, [], "flag")
        handle = raw.VarHandleOp(shape=[2], dtype=tf.float32, name="v")
        assign = raw.AssignVariableOp(resource=handle, value=np.ones(2, np.float32))
        with tf.control_dependencies([assign]):
            x = tf.identity(x)
        if form == "functional":
            def set_it():
                with tf.control_dependencies([raw.AssignVariableOp(resource=handle, value=x * 2.0)]):
                    return tf.identity(x)
            chosen = v1.cond(flag, set_it, lambda: tf.identity(x))
        else:
            when_false, when_true = raw.Switch(data=x, pred=flag)
            with tf.control_dependencies([tf.identity(when_true)]):
                set_it = raw.AssignVariableOp(resource=handle, value=np.full(2, 2.0, np.float32), name="set_it")
            with tf.control_dependencies([set_it]):
                when_true = tf.identity(when_true)
            chosen = raw.Merge(inputs=[when_false, when_true])[0]
        with tf.control_dependencies([chosen]):
            return [raw.ReadVariableOp(resource=handle, dtype=tf.float32) * x]
    message = refusal(tmp_path, build)
    assert "variable 'v' (" + ("If 'cond' uses it" if form == "functional" else
                               "'set_it' assigns it inside a tf.cond branch") in message


def test_ops_with_reference_inputs_are_tensorflows():
    """REF_INPUT_OPS lists the op types TensorFlow's registry gives a reference input, but for
    those whose references are queues, readers, barriers, stacks, tensor arrays, accumulators
    and tables (no variable reaches them)."""
    from tensorflow.python.framework import op_def_registry

    from extensions.load.tf.variables import REF_INPUT_OPS
    others = ("Accumulator", "SparseAccumulator", "Barrier", "Queue", "Reader", "Stack", "TensorArray", "Lookup",
              "InitializeTable")
    with_refs = {name for name in dir(raw) if not name.startswith("_") and op_def_registry.get(name) is not None
                 and any(arg.is_ref for arg in op_def_registry.get(name).input_arg)}
    assert {name for name in with_refs if not name.startswith(others)} == REF_INPUT_OPS


@pytest.mark.parametrize("ordered", [True, False])
@pytest.mark.parametrize("use_resource", [False, True])
def test_checkpoint_value_until_the_graph_assigns(tmp_path, ordered, use_resource):
    """A MetaGraph with its checkpoint: a read before the graph's assignment has the checkpoint's
    value, one after it the assigned value; a read that nothing orders with the assignment is
    refused although the checkpoint gives a value."""
    from tests.utils.runtime import assert_close, run_ir
    x_value = random((3,), seed=3)
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [3], name="x")
        w = v1.get_variable("w", initializer=random((3,), seed=1), use_resource=use_resource)
        before = tf.identity(x * w.read_value(), name="before")
        with tf.control_dependencies([before] if ordered else []):
            grown = w.assign_add(random((3,), seed=2), read_value=False)
        with tf.control_dependencies([grown]):
            after = tf.identity(x * w.read_value(), name="after")
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())
            prefix = v1.train.Saver().save(session, str(tmp_path / "ckpt" / "model"))
            expected = session.run([before, after], {x: x_value})
    if not ordered:
        with pytest.raises(ConversionError, match=r"variable 'w' \('.*' may assign it before or after"):
            convert_pb(prefix + ".meta", tmp_path / "ir", output="before,after")
        return
    xml = convert_pb(prefix + ".meta", tmp_path / "ir", output="before,after")
    assert_close(run_ir(xml, [x_value]), expected)
