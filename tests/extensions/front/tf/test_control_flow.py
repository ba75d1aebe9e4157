"""Layer tests of TensorFlow functional control flow: While -> Loop (with TensorList reads and
writes at the iteration counter) and If -> If."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, ir_op_types, random


def test_while_with_carried_values(tmp_path):
    def fn(x):
        def body(i, acc):
            return i + 1, acc * 0.5 + tf.cast(i, tf.float32)
        return tf.while_loop(lambda i, acc: i < 5, body, [tf.constant(0), x])
    xml = check_tf(tmp_path, fn, [random((2, 3))])
    assert "Loop" in ir_op_types(xml)


def test_while_that_does_not_run(tmp_path):
    def fn(x, n):
        return tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc + 1.0), [tf.constant(0), x])[1]
    check_tf(tmp_path, fn, [random((2, 3)), np.array(0, np.int32)])


def test_while_over_a_sequence_with_tensor_arrays(tmp_path):
    """The TensorArray pattern of recurrent layers: read step t of the input, write step t of
    the output; the sequence length is dynamic."""
    w = random((4, 4), seed=1, low=-0.5, high=0.5)

    def fn(x):
        steps = tf.shape(x)[0]
        inputs = tf.TensorArray(tf.float32, size=steps).unstack(x)
        outputs = tf.TensorArray(tf.float32, size=steps)

        def body(t, h, out):
            h = tf.tanh(tf.matmul(inputs.read(t), w) + h)
            return t + 1, h, out.write(t, h)
        _, h, out = tf.while_loop(lambda t, h, out: t < steps, body,
                                  [tf.constant(0), tf.zeros_like(x[0]), outputs])
        return out.stack(), h
    check_tf(tmp_path, fn, [random((6, 2, 4))], dynamic_batch=True)


def test_if(tmp_path):
    def fn(x, flag):
        return tf.cond(flag[0] > 0, lambda: tf.nn.relu(x) * 2.0, lambda: x - 1.0)
    for value in (1, -1):
        check_tf(tmp_path / str(value), fn, [random((2, 3)), np.array([value], np.int32)])


def test_if_inside_while(tmp_path):
    def fn(x):
        def body(i, acc):
            acc = tf.cond(i % 2 == 0, lambda: acc + 1.0, lambda: acc * 2.0)
            return i + 1, acc
        return tf.while_loop(lambda i, acc: i < 4, body, [tf.constant(0), x])[1]
    check_tf(tmp_path, fn, [random((3,))])


def test_while_writing_a_dynamic_size_tensor_array(tmp_path):
    def fn(x):
        def body(t, out):
            return t + 1, out.write(t, x * tf.cast(t, tf.float32))
        _, out = tf.while_loop(lambda t, out: t < 4, body,
                               [tf.constant(0), tf.TensorArray(tf.float32, size=0, dynamic_size=True)])
        return out.stack()
    check_tf(tmp_path, fn, [random((2, 3))])


def test_unsupported_tensor_list_use_is_reported(tmp_path):
    from mo.errors import ConversionError

    def fn(x):
        def body(t, arr):
            return t + 1, arr.write(0, arr.read(0) + x)   # reads and writes a fixed element
        return tf.while_loop(lambda t, arr: t < 3, body, [tf.constant(0), tf.TensorArray(tf.float32, 1).write(0, x)]
                             )[1].stack()
    with pytest.raises(ConversionError, match="TensorList"):
        check_tf(tmp_path, fn, [random((2, 3))])


def _front_graph(tmp_path, fn, inputs):
    """The op-form graph of a frozen tf.function after loading and extraction."""
    from extensions.load.tf.loader import TfLoader
    from mo.cli.options import make_options
    from mo.pipeline.context import ConversionContext
    from mo.pipeline.extract import extract
    from tests.utils.graphs import registry
    from tests.utils.tf_models import freeze, specs_for, write_pb
    path = write_pb(freeze(fn, specs_for(inputs)), tmp_path / "model.pb")
    context = ConversionContext(make_options({"input_model": path}), registry(), "tf")
    graph = TfLoader().load(context)
    extract(graph, "tf")
    return graph


def _translated_outputs(graph, inputs):
    from mo.graph.graph import all_graphs
    from mo.pipeline.translate import translate_graph
    from tests.utils.reference import run_reference
    for g in all_graphs(graph):
        g.to_data_form()
    translate_graph(graph)
    graph.lint_translated()
    return run_reference(graph, inputs)


@pytest.mark.parametrize("rewrite", ["TfWhileToLoop", "TfIfToOpset"])
def test_control_flow_rewrites_on_the_graph(tmp_path, rewrite):
    """The rewrite leaves no tf:While / tf:If, makes a Loop / If, and the graph then computes what
    TensorFlow computes (checked with the reference interpreter)."""
    from extensions.front.tf import control_flow
    from extensions.front.tf.identity import RemoveTfIdentity
    from tests.utils.runtime import assert_close
    if rewrite == "TfWhileToLoop":
        def fn(x):
            return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0 + 1.0), [tf.constant(0), x])[1]
        framework_ops, opset_op = {"tf:While", "tf:StatelessWhile"}, "Loop"
    else:
        def fn(x):
            return tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)
        framework_ops, opset_op = {"tf:If", "tf:StatelessIf"}, "If"
    inputs = [random((2, 3))]
    graph = _front_graph(tmp_path, fn, inputs)
    assert graph.op_types() & framework_ops
    from mo.graph.graph import all_graphs
    for g in list(all_graphs(graph)):        # as the front phase runs it: every graph, bodies too
        RemoveTfIdentity().find_and_replace_pattern(g)
    getattr(control_flow, rewrite)().find_and_replace_pattern(graph)
    for g in list(all_graphs(graph)):
        RemoveTfIdentity().find_and_replace_pattern(g)
    graph.lint()
    assert not graph.op_types() & framework_ops and opset_op in graph.op_types()
    assert_close(_translated_outputs(graph, inputs), [np.asarray(tf.function(fn)(*inputs))])
