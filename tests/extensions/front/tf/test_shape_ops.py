"""Layer tests of the TensorFlow shape and data movement operations."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, ir_op_types, random

raw = tf.raw_ops

X = random((2, 3, 4, 5), seed=1)


@pytest.mark.parametrize("dynamic", [False, True])
def test_reshape_squeeze_expand_transpose(tmp_path, dynamic):
    def fn(x):
        y = tf.reshape(x, [-1, 20])
        z = tf.expand_dims(y, 1)
        return tf.squeeze(z, [1]), tf.squeeze(tf.reshape(x, [2, 1, 60, 1])), tf.transpose(x, [3, 0, 2, 1])
    check_tf(tmp_path, fn, [X], dynamic_batch=dynamic)


def test_shape_size_rank(tmp_path):
    def fn(x):
        return (tf.shape(x), tf.shape(x, out_type=tf.int64), tf.size(x), tf.rank(x),
                tf.reshape(x, tf.stack([tf.shape(x)[0], -1])))
    check_tf(tmp_path, fn, [X], dynamic_batch=True)


@pytest.mark.parametrize("axis", [0, 2, -1])
def test_concat_pack_unpack(tmp_path, axis):
    def fn(x):
        parts = tf.unstack(x, axis=axis)
        return tf.concat([x, x * 2], axis), tf.stack(parts[::-1], axis=axis), parts[0]
    check_tf(tmp_path, fn, [X])


def test_concat_v1(tmp_path):
    check_tf(tmp_path, lambda x: raw.Concat(concat_dim=1, values=[x, x + 1]), [X])


def test_split_and_split_v(tmp_path):
    def fn(x):
        a, b = tf.split(x, 2, axis=3 - 1)
        c, d, e = tf.split(x, [1, -1, 2], axis=-1)
        return a, b, c, d, e
    check_tf(tmp_path, fn, [X])


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
def test_pad(tmp_path, mode):
    check_tf(tmp_path, lambda x: tf.pad(x, [[0, 1], [1, 2], [2, 0], [1, 1]], mode=mode), [X])


def test_pad_v2_constant_value(tmp_path):
    check_tf(tmp_path, lambda x: raw.PadV2(input=x, paddings=[[1, 0], [0, 1], [0, 0], [2, 1]],
                                           constant_values=np.float32(-3)), [X])


def test_pad_dynamic_paddings(tmp_path):
    check_tf(tmp_path, lambda x, p: tf.pad(x, p), [X, np.array([[0, 1], [1, 0], [0, 0], [2, 2]], np.int32)])


@pytest.mark.parametrize("index", [
    "x[1:, :2]", "x[..., 1]", "x[:, None, ::2]", "x[::-1, 1:-1, ..., ::-2]", "x[0, ..., 1:3, tf.newaxis]",
    "x[-1:, 2, :, 3:]"])
def test_strided_slice_masks(tmp_path, index):
    check_tf(tmp_path, lambda x: eval(index, {"x": x, "tf": tf}), [X])


def test_strided_slice_dynamic_bounds(tmp_path):
    check_tf(tmp_path, lambda x, n: x[:, n[0]:n[1]], [X, np.array([1, 3], np.int32)])


def test_slice(tmp_path):
    def fn(x, b):
        return tf.slice(x, [1, 0, 1, 2], [1, -1, 2, -1]), tf.slice(x, b, [-1, 2, 2, 2])
    check_tf(tmp_path, fn, [X, np.array([0, 1, 1, 0], np.int32)])


@pytest.mark.parametrize("batch_dims", [0, 1])
def test_gather_v2(tmp_path, batch_dims):
    idx = np.array([[2, 0], [1, 1]], np.int32)
    check_tf(tmp_path, lambda x: tf.gather(x, idx, axis=2, batch_dims=batch_dims), [X])


def test_gather_v1_and_gather_nd(tmp_path):
    def fn(x):
        return raw.Gather(params=x, indices=[1, 0, 1]), tf.gather_nd(x, [[0, 2], [1, 1]])
    check_tf(tmp_path, fn, [X])


def test_fill_range_tile_broadcast(tmp_path):
    def fn(x, n):
        return (tf.fill(tf.shape(x), np.float32(2.5)) + x, tf.range(n[0], 10, 3), tf.range(0.5, 3.0, 0.5),
                tf.tile(x, [1, 2, 1, 3]), tf.broadcast_to(x[:, :1], [2, 6, 4, 5]))
    check_tf(tmp_path, fn, [X, np.array([2], np.int32)])


def test_cumsum_onehot(tmp_path):
    def fn(x, i):
        return tf.cumsum(x, axis=1, exclusive=True, reverse=True), tf.one_hot(i, 4, 5.0, -1.0)
    check_tf(tmp_path, fn, [X, np.array([[0, 3], [2, -1]], np.int32)])


def test_space_to_depth_inside_nhwc_chain(tmp_path):
    w = random((1, 1, 12, 2), seed=3)

    def fn(x):
        y = tf.nn.space_to_depth(tf.nn.relu(x), 2)
        return tf.nn.conv2d(y, w, 1, "VALID")
    check_tf(tmp_path, fn, [random((1, 4, 6, 3))])


def test_reverse(tmp_path):
    check_tf(tmp_path, lambda x: (tf.reverse(x, [1]), tf.reverse(x, [0, -1])), [X])


def test_pass_through_ops(tmp_path):
    def fn(x):
        a, b = tf.raw_ops.IdentityN(input=[x, x * 2])
        c = tf.raw_ops.Snapshot(input=tf.stop_gradient(a))
        return tf.raw_ops.EnsureShape(input=c + b, shape=[2, 3, 4, 5]), tf.identity(b)
    check_tf(tmp_path, fn, [X])


def test_where_coordinates(tmp_path):
    check_tf(tmp_path, lambda x: tf.where(x > 0.5), [X])


def test_nested_concats_with_a_shared_part(tmp_path):
    def fn(x):
        inner = tf.concat([x, x * 2], axis=-1)
        return tf.concat([inner, tf.concat([x + 1, x], axis=-1), inner], axis=-1)
    check_tf(tmp_path, fn, [X])


def test_slice_and_pad_sizes_from_a_shape_stay_computed(tmp_path):
    """Sizes read from an input's shape (static through --input) are known at conversion but stay
    ShapeOf computations, so the IR stays reshapeable."""
    def fn(x, y):
        size = tf.shape(y)
        return tf.slice(x, [0, 1, 0, 0], size), tf.pad(y, tf.stack([size - size + 1, size * 0], 1))
    y = random((1, 2, 3, 4), seed=2)
    xml = check_tf(tmp_path, fn, [X, y], dynamic_batch=True, input="x0[2,3,4,5],x1[1,2,3,4]")
    types = ir_op_types(xml)
    assert {"ShapeOf", "Select", "Gather"} <= set(types), types     # Slice's stop and the pads computed


def test_pad_with_paddings_that_are_not_rank_by_2_is_refused(tmp_path):
    from tensorflow.core.framework.graph_pb2 import GraphDef

    from mo.errors import ConversionError
    from tests.utils.tf_models import convert_pb, write_pb
    graph_def = GraphDef()
    x = graph_def.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = tf.float32.as_datatype_enum
    x.attr["shape"].shape.CopyFrom(tf.TensorShape([1, 8, 8, 4]).as_proto())
    pads = graph_def.node.add(name="paddings", op="Const")
    pads.attr["dtype"].type = tf.int32.as_datatype_enum
    pads.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(np.array([1, 1, 1, 1], np.int32)))
    pad = graph_def.node.add(name="pad", op="Pad", input=["x", "paddings"])
    pad.attr["T"].type = tf.float32.as_datatype_enum
    pad.attr["Tpaddings"].type = tf.int32.as_datatype_enum
    with pytest.raises(ConversionError, match=r"'pad' \(tf Pad\).*paddings have shape \[4\]; Pad takes \[rank, 2\]"):
        convert_pb(write_pb(graph_def, tmp_path / "m.pb"), tmp_path / "ir")
