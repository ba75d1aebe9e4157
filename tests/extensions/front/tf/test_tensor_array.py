"""Layer tests of TensorArray (V3, TF1 graphs) and TensorList ops, inside tf.while_loop frames
(the dynamic_rnn pattern: read step t, write step t) and outside loops, compared with TensorFlow."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, check_tf1, check_tf1_raw, ir_op_types, random

v1 = tf.compat.v1
W = random((4, 4), seed=1, low=-0.5, high=0.5)


def rnn(x, reverse=False):
    """A recurrent loop over axis 0 of x with TensorArrays, as tf.nn.dynamic_rnn builds it."""
    steps = tf.shape(x)[0]
    inputs = tf.TensorArray(tf.float32, size=steps).unstack(x)
    outputs = tf.TensorArray(tf.float32, size=steps)

    def body(t, h, out):
        step = steps - 1 - t if reverse else t
        h = tf.tanh(tf.matmul(inputs.read(step), W) + h)
        return t + 1, h, out.write(t, h)
    _, h, out = v1.while_loop(lambda t, h, out: t < steps, body, [tf.constant(0), tf.zeros_like(x[0]), outputs])
    return out.stack(), h, out.size()


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("steps", [1, 5])
def test_tensor_array_loop(tmp_path, reverse, steps):
    xml = check_tf1(tmp_path, lambda x: rnn(x, reverse), [random((steps, 2, 4))], dynamic_batch=True)
    assert "Loop" in ir_op_types(xml)


def test_lstm_loop_with_variables(tmp_path):
    """An LSTM over time written as dynamic_rnn does (time-major TensorArrays, a while_loop
    carrying the state, weights in variables that freezing makes constants)."""
    def build(x):
        w = v1.get_variable("kernel", initializer=random((4 + 3, 12), seed=2, low=-0.5, high=0.5))
        b = v1.get_variable("bias", initializer=np.zeros(12, np.float32))
        steps = tf.shape(x)[0]
        inputs = tf.TensorArray(tf.float32, size=steps).unstack(x)
        outputs = tf.TensorArray(tf.float32, size=steps)
        zeros = tf.zeros([tf.shape(x)[1], 3])

        def body(t, c, h, out):
            i, j, f, o = tf.split(tf.matmul(tf.concat([inputs.read(t), h], 1), w) + b, 4, axis=1)
            c = tf.sigmoid(f + 1.0) * c + tf.sigmoid(i) * tf.tanh(j)
            h = tf.tanh(c) * tf.sigmoid(o)
            return t + 1, c, h, out.write(t, h)
        _, c, h, out = v1.while_loop(lambda t, *_: t < steps, body, [tf.constant(0), zeros, zeros, outputs])
        return tf.transpose(out.stack(), [1, 0, 2]), h
    check_tf1(tmp_path, build, [random((6, 2, 4))], dynamic_batch=True)


def test_tensor_array_concat_after_a_loop(tmp_path):
    def build(x):
        arr = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
        _, arr = v1.while_loop(lambda t, a: t < 3, lambda t, a: (t + 1, a.write(t, x * tf.cast(t + 1, tf.float32))),
                               [tf.constant(0), arr])
        return arr.concat(), arr.gather([2, 0])
    check_tf1(tmp_path, build, [random((2, 3))])


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_tensor_array_outside_loops(tmp_path, dtype):
    def build(x):
        arr = tf.TensorArray(x.dtype, size=4, element_shape=[3], clear_after_read=False)
        arr = arr.write(1, x[0]).write(3, x[1])
        split = tf.TensorArray(x.dtype, size=2).split(tf.concat([x, x], 0), [2, 2])
        scattered = tf.TensorArray(x.dtype, size=2).scatter([1, 0], x)
        return arr.stack(), arr.read(3), arr.size(), split.read(1), scattered.stack()
    check_tf1(tmp_path, build, [random((2, 3), dtype)])


def test_tensor_array_without_element_shape_is_refused(tmp_path):
    from mo.errors import ConversionError

    def build(x):
        return tf.TensorArray(tf.float32, size=2).write(0, x).write(1, x).stack()
    with pytest.raises(ConversionError, match="no fully known element shape"):
        check_tf1(tmp_path, build, [random((2, 3))])


def test_tensor_list_unstack_stack(tmp_path):
    check_tf(tmp_path, lambda x: tf.TensorArray(tf.float32, size=2).unstack(x).stack() * 2.0, [random((2, 3))])


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_tensor_list_ops(tmp_path, dtype):
    def fn(x):
        shape = tf.constant([3], tf.int32)
        lst = tf.raw_ops.TensorListFromTensor(tensor=x, element_shape=shape)
        pushed = tf.raw_ops.TensorListPushBack(input_handle=lst, tensor=x[0])
        longer = tf.raw_ops.TensorListResize(input_handle=pushed, size=5)
        shorter = tf.raw_ops.TensorListResize(input_handle=pushed, size=1)
        joined, lengths = tf.raw_ops.TensorListConcatV2(input_handle=pushed, element_shape=shape,
                                                        leading_dims=tf.constant([], tf.int64), element_dtype=x.dtype)
        changed = tf.raw_ops.TensorListSetItem(input_handle=lst, index=1, item=x[0] * 2)
        empty = tf.raw_ops.EmptyTensorList(element_shape=shape, max_num_elements=-1, element_dtype=x.dtype)
        grown = tf.raw_ops.TensorListPushBack(input_handle=empty, tensor=x[1])
        return (tf.raw_ops.TensorListLength(input_handle=pushed),
                tf.raw_ops.TensorListStack(input_handle=longer, element_shape=shape, element_dtype=x.dtype),
                tf.raw_ops.TensorListStack(input_handle=shorter, element_shape=shape, element_dtype=x.dtype),
                joined, lengths,
                tf.raw_ops.TensorListGetItem(input_handle=changed, index=1, element_shape=shape, element_dtype=x.dtype),
                tf.raw_ops.TensorListGather(input_handle=changed, indices=[1, 0], element_shape=shape,
                                            element_dtype=x.dtype),
                tf.raw_ops.TensorListElementShape(input_handle=lst, shape_type=tf.int32),
                tf.raw_ops.TensorListStack(input_handle=grown, element_shape=shape, element_dtype=x.dtype))
    check_tf(tmp_path, fn, [random((2, 3), dtype)])


@pytest.mark.parametrize("element_shape", [-1, [-1, 3], [2, 3]])
@pytest.mark.parametrize("max_elements", [-1, 5])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_push_back_onto_an_empty_list(tmp_path, element_shape, max_elements, dtype):
    """The element shape of the pushed tensors, whatever the empty list declares: nothing (-1),
    part of it or all of it."""
    def build():
        x = tf.compat.v1.placeholder(dtype, [2, 3], "x")
        y = tf.compat.v1.placeholder(dtype, [2, 3], "y")
        shape = tf.constant(element_shape, tf.int32)
        empty = tf.raw_ops.EmptyTensorList(element_shape=shape, max_num_elements=max_elements, element_dtype=dtype)
        first = tf.raw_ops.TensorListPushBack(input_handle=empty, tensor=x)
        both = tf.raw_ops.TensorListPushBack(input_handle=first, tensor=y)
        return [tf.raw_ops.TensorListStack(input_handle=both, element_shape=shape, element_dtype=dtype),
                tf.raw_ops.TensorListLength(input_handle=first)]
    xml = check_tf1_raw(tmp_path, build, [random((2, 3), dtype), random((2, 3), dtype, seed=1)])
    assert "ScatterUpdate" not in ir_op_types(xml)


def test_tensor_list_reserve_with_known_element_shape(tmp_path):
    def fn(x):
        lst = tf.raw_ops.TensorListReserve(element_shape=[3], num_elements=3, element_dtype=tf.float32)
        lst = tf.raw_ops.TensorListSetItem(input_handle=lst, index=2, item=x)
        return tf.raw_ops.TensorListStack(input_handle=lst, element_shape=[3], element_dtype=tf.float32)
    check_tf(tmp_path, fn, [random((3,))])


def test_tensor_lists_in_a_lowered_tf2_loop(tmp_path):
    """A tf.function frozen with lower_control_flow=True: the TensorArrays are TensorLists in
    a Switch/Merge frame (read at the counter from a list made from a tensor, written at it)."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    from tests.utils.runtime import assert_close, run_ir
    from tests.utils.tf_models import convert_pb, write_pb

    @tf.function(input_signature=[tf.TensorSpec([None, 2, 4], tf.float32)])
    def fn(x):
        steps = tf.shape(x)[0]
        inputs = tf.TensorArray(tf.float32, size=steps).unstack(x)
        outputs = tf.TensorArray(tf.float32, size=steps)

        def body(t, h, out):
            h = tf.tanh(tf.matmul(inputs.read(t), W) + h)
            return t + 1, h, out.write(t, h)
        _, h, out = tf.while_loop(lambda t, h, out: t < steps, body, [tf.constant(0), tf.zeros_like(x[0]), outputs])
        return out.stack(), h
    frozen = convert_variables_to_constants_v2(fn.get_concrete_function(), lower_control_flow=True)
    graph_def = frozen.graph.as_graph_def()
    assert {"Enter", "TensorListSetItem", "TensorListGetItem"} <= {n.op for n in graph_def.node}
    xml = convert_pb(write_pb(graph_def, tmp_path / "model.pb"), tmp_path / "ir",
                     input=frozen.inputs[0].name.split(":")[0])
    x = random((5, 2, 4))
    assert_close(run_ir(xml, [x]), [r.numpy() for r in fn(x)])


def test_tensor_lists_carried_through_a_functional_while(tmp_path):
    """Lists used otherwise than read or written at the counter are carried as their contents:
    an element rewritten on every iteration, a sequence read backwards, a list that grows."""
    def fn(x):
        steps = tf.shape(x)[0]
        seq = tf.TensorArray(tf.float32, size=steps, element_shape=[3]).unstack(x)
        acc = tf.TensorArray(tf.float32, size=1, element_shape=[3], clear_after_read=False).write(0, tf.zeros([3]))
        grown = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[3])

        def body(t, acc, grown):
            item = seq.read(steps - 1 - t)
            return t + 1, acc.write(0, acc.read(0) * 0.5 + item), grown.write(grown.size(), item * 2.0)
        _, acc, grown = tf.while_loop(lambda t, *_: t < steps, body, [tf.constant(0), acc, grown])
        return acc.stack(), grown.stack(), grown.size()
    check_tf(tmp_path, fn, [random((4, 3))])


def test_tensor_list_pop_scatter_split(tmp_path):
    def fn(x):
        shape = tf.constant([3], tf.int32)
        lst = tf.raw_ops.TensorListFromTensor(tensor=x, element_shape=shape)
        rest, last = tf.raw_ops.TensorListPopBack(input_handle=lst, element_shape=shape, element_dtype=tf.float32)
        scattered = tf.raw_ops.TensorListScatter(tensor=x, indices=[2, 0], element_shape=shape)
        scattered2 = tf.raw_ops.TensorListScatterV2(tensor=x, indices=[1, 0], element_shape=shape, num_elements=4)
        split = tf.raw_ops.TensorListSplit(tensor=tf.reshape(x, [6]), element_shape=shape,
                                           lengths=tf.constant([3, 3], tf.int64))
        stack = lambda t: tf.raw_ops.TensorListStack(input_handle=t, element_shape=shape,  # noqa: E731
                                                     element_dtype=tf.float32)
        return stack(rest), last, stack(scattered), stack(scattered2), stack(split)
    check_tf(tmp_path, fn, [random((2, 3))])


class TanhCell:
    """A minimal RNN cell for tf.compat.v1.nn.dynamic_rnn (Keras 3 has no v1 cells)."""

    output_size = 4
    state_size = 4

    def zero_state(self, batch_size, dtype):
        return tf.zeros([batch_size, 4], dtype)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        return self.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        h = tf.tanh(tf.matmul(inputs, W) + state)
        return h, h


@pytest.mark.parametrize("lengths", [False, True])
def test_dynamic_rnn(tmp_path, lengths):
    """tf.compat.v1.nn.dynamic_rnn itself: batch-major input, optional sequence lengths (the
    loop then copies the state through for finished sequences)."""
    def build(x, *n):
        return v1.nn.dynamic_rnn(TanhCell(), x, sequence_length=n[0] if n else None, dtype=tf.float32)
    inputs = [random((3, 5, 4))] + ([np.array([5, 2, 0], np.int32)] if lengths else [])
    check_tf1(tmp_path, build, inputs, dynamic_batch=True)


def test_tensor_array_written_backwards_in_a_loop(tmp_path):
    """Written at steps-1-t (not the counter): the array is carried through the loop as its
    contents, which its element shape lets the converter create."""
    def build(x):
        steps = tf.shape(x)[0]
        out = tf.TensorArray(tf.float32, size=steps, element_shape=[2, 4])
        _, out = v1.while_loop(lambda t, o: t < steps, lambda t, o: (t + 1, o.write(steps - 1 - t, x[t] * 2.0)),
                               [tf.constant(0), out])
        return out.stack()
    check_tf1(tmp_path, build, [random((3, 2, 4))], dynamic_batch=True)
