"""Layer tests of the TensorFlow convolutions, poolings, FusedBatchNorm, resizes and the
depth/space/batch rearrangements, in NHWC (and NCHW where it matters, checked against the NHWC
op between Transposes since TensorFlow runs NCHW convolutions only on GPUs)."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, ir_op_types, random

raw = tf.raw_ops

X = random((1, 9, 10, 3), seed=1)
W = random((3, 3, 3, 4), seed=2, low=-0.5, high=0.5)


def nchw(fn):
    """``fn`` (NHWC) applied to an NCHW tensor."""
    return lambda x: tf.transpose(fn(tf.transpose(x, [0, 2, 3, 1])), [0, 3, 1, 2])


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides,dilations", [(1, 1), (2, 1), (1, 2)])
def test_conv2d(tmp_path, padding, strides, dilations):
    check_tf(tmp_path, lambda x: tf.nn.conv2d(x, W, strides, padding, dilations=dilations), [X])


def test_conv2d_explicit_padding(tmp_path):
    check_tf(tmp_path, lambda x: tf.nn.conv2d(x, W, 2, [[0, 0], [1, 2], [0, 1], [0, 0]]), [X])


def test_conv2d_nchw(tmp_path):
    def conv(x, fmt):
        return raw.Conv2D(input=x, filter=W, strides=[1, 1, 2, 1] if fmt == "NHWC" else [1, 1, 1, 2],
                          padding="SAME", data_format=fmt)
    check_tf(tmp_path, lambda x: conv(x, "NCHW"), [X.transpose(0, 3, 1, 2)],
             reference=nchw(lambda x: conv(x, "NHWC")))


def test_conv3d(tmp_path):
    w = random((2, 3, 3, 3, 2), seed=3, low=-0.5, high=0.5)
    check_tf(tmp_path, lambda x: tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"), [random((1, 4, 6, 7, 3))])


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_depthwise_conv(tmp_path, padding):
    w = random((3, 3, 3, 2), seed=4, low=-0.5, high=0.5)
    check_tf(tmp_path, lambda x: tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], padding), [X])


def test_depthwise_conv_dilated(tmp_path):
    w = random((3, 3, 3, 1), seed=4, low=-0.5, high=0.5)
    check_tf(tmp_path, lambda x: raw.DepthwiseConv2dNative(input=x, filter=w, strides=[1, 1, 1, 1], padding="SAME",
                                                           dilations=[1, 2, 2, 1]), [X])


@pytest.mark.parametrize("padding,stride,out_hw", [("SAME", 2, (18, 20)), ("SAME", 2, (17, 19)), ("VALID", 2, (19, 21)),
                                                   ("VALID", 1, (11, 12)), ("SAME", 1, (9, 10))])
def test_conv2d_transpose(tmp_path, padding, stride, out_hw):
    w = random((3, 3, 2, 3), seed=5, low=-0.5, high=0.5)
    check_tf(tmp_path, lambda x: tf.nn.conv2d_transpose(x, w, (1, *out_hw, 2), stride, padding), [X])


@pytest.mark.parametrize("padding, kernel, out_hw", [("SAME", 3, (18, 20)), ("VALID", 3, (19, 21)),
                                                     ("VALID", 1, (18, 20)), ("VALID", 2, (19, 21))])
def test_conv2d_transpose_dynamic_batch(tmp_path, padding, kernel, out_hw):
    """Output sizes computed from the batch: VALID pads the natural output with zeros at the end
    up to the size asked for (kernel 1, stride 2: one more row and column than the natural)."""
    w = random((kernel, kernel, 2, 3), seed=5, low=-0.5, high=0.5)

    def fn(x):
        size = tf.stack([tf.shape(x)[0], *out_hw, 2])
        return tf.nn.conv2d_transpose(x, w, size, 2, padding)
    check_tf(tmp_path, fn, [X], dynamic_batch=True)


def test_conv3d_transpose(tmp_path):
    w = random((2, 3, 3, 2, 3), seed=5, low=-0.5, high=0.5)
    check_tf(tmp_path, lambda x: tf.nn.conv3d_transpose(x, w, (1, 8, 12, 14, 2), 2, "SAME"),
             [random((1, 4, 6, 7, 3))])


@pytest.mark.parametrize("pool", ["max", "avg"])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_pool2d(tmp_path, pool, padding):
    fn = tf.nn.max_pool2d if pool == "max" else tf.nn.avg_pool2d
    check_tf(tmp_path, lambda x: fn(x, 3, 2, padding), [X])


def test_max_pool_v2(tmp_path):
    check_tf(tmp_path, lambda x: raw.MaxPoolV2(input=x, ksize=[1, 2, 3, 1], strides=[1, 2, 2, 1], padding="SAME"), [X])


@pytest.mark.parametrize("pool", ["max", "avg"])
def test_pool3d(tmp_path, pool):
    fn = tf.nn.max_pool3d if pool == "max" else tf.nn.avg_pool3d
    check_tf(tmp_path, lambda x: fn(x, 2, 2, "SAME"), [random((1, 4, 5, 6, 2))])


def test_fused_batch_norm(tmp_path):
    c = 3
    scale, offset = random((c,), seed=6, low=0.5, high=1.5), random((c,), seed=7)
    mean, var = random((c,), seed=8), random((c,), seed=9, low=0.5, high=2)

    def fn(x):
        return raw.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=mean, variance=var, epsilon=1e-3,
                                    is_training=False)[0]
    check_tf(tmp_path, fn, [X])


@pytest.mark.parametrize("method,flags", [
    ("bilinear", (False, False)), ("bilinear", (True, False)), ("bilinear", (False, True)),
    ("nearest", (False, False)), ("nearest", (True, False)), ("nearest", (False, True)),
    ("bicubic", (False, False)), ("bicubic", (True, False)), ("bicubic", (False, True))])
def test_resize(tmp_path, method, flags):
    op = {"bilinear": raw.ResizeBilinear, "nearest": raw.ResizeNearestNeighbor, "bicubic": raw.ResizeBicubic}[method]
    # TensorFlow's bicubic weights come from a 1024-entry table: 2e-3 apart from the exact kernel
    tol = 5e-3 if method == "bicubic" else 1e-4
    for size in ((15, 7), (4, 21)):
        check_tf(tmp_path / f"{size[0]}", lambda x: op(images=x, size=size, align_corners=flags[0],
                                                       half_pixel_centers=flags[1]), [X], atol=tol)


@pytest.mark.parametrize("op", ["DepthToSpace", "SpaceToDepth"])
def test_depth_space(tmp_path, op):
    x = random((1, 4, 6, 8)) if op == "DepthToSpace" else random((1, 4, 6, 3))
    check_tf(tmp_path, lambda a: getattr(raw, op)(input=a, block_size=2), [x])


def test_space_batch_nd(tmp_path):
    def fn(x):
        y = raw.SpaceToBatchND(input=x, block_shape=[2, 3], paddings=[[1, 0], [1, 1]])
        return y, raw.BatchToSpaceND(input=y * 2, block_shape=[2, 3], crops=[[1, 0], [0, 1]])
    check_tf(tmp_path, fn, [X])


def test_conv_chain_keeps_only_boundary_transposes(tmp_path):
    """Conv -> bias -> relu -> pool -> conv -> residual add: NCHW inside, one Transpose at each
    end, and the scale-shift fusions see channels-first ops."""
    w2 = random((3, 3, 4, 4), seed=11, low=-0.5, high=0.5)
    bias = random((4,), seed=12)

    def fn(x):
        y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, W, 1, "SAME"), bias))
        y = tf.nn.max_pool2d(y, 2, 2, "SAME")
        z = tf.nn.conv2d(y, w2, 1, "SAME") * np.float32(0.5)
        return tf.concat([y + z, tf.reduce_mean(z, axis=[1, 2], keepdims=True) + z], axis=-1)
    xml = check_tf(tmp_path, fn, [X])
    types = ir_op_types(xml)
    assert types.count("Transpose") == 2, types
    assert "Multiply" not in types, types


@pytest.mark.parametrize("op", ["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"])
def test_fused_batch_norm_versions_nchw(tmp_path, op):
    c = 3
    params = [random((c,), seed=s, low=0.5, high=1.5) for s in (6, 7, 8, 9)]

    def bn(x, fmt):
        return getattr(raw, op)(x=x, scale=params[0], offset=params[1], mean=params[2], variance=params[3],
                                epsilon=1e-3, is_training=False, data_format=fmt)[0]
    check_tf(tmp_path, lambda x: bn(x, "NCHW"), [X.transpose(0, 3, 1, 2)], reference=nchw(lambda x: bn(x, "NHWC")))


def test_pool_and_depth_to_space_nchw(tmp_path):
    def fn(x, fmt):
        window = [1, 2, 2, 1] if fmt == "NHWC" else [1, 1, 2, 2]
        y = raw.MaxPool(input=x, ksize=window, strides=window, padding="SAME", data_format=fmt)
        y = raw.AvgPool(value=y, ksize=window, strides=[1, 1, 1, 1], padding="SAME", data_format=fmt)
        return raw.DepthToSpace(input=tf.concat([y] * 4, axis=-1 if fmt == "NHWC" else 1), block_size=2,
                                data_format=fmt)
    check_tf(tmp_path, lambda x: fn(x, "NCHW"), [X.transpose(0, 3, 1, 2)], reference=nchw(lambda x: fn(x, "NHWC")))


def test_grouped_conv2d(tmp_path):
    w = random((3, 3, 2, 6), seed=13, low=-0.5, high=0.5)     # 3 groups of 2 input channels
    check_tf(tmp_path, lambda x: tf.nn.conv2d(x, w, 1, "SAME"), [random((1, 5, 6, 6))])


def test_zero_padding_merges_into_the_window_ops(tmp_path):
    pads = [[0, 0], [1, 2], [2, 1], [0, 0]]

    def fn(x):
        y = tf.nn.relu(tf.nn.conv2d(tf.pad(x, pads), W, 1, "VALID"))
        return tf.nn.max_pool2d(tf.pad(y, pads), 3, 2, "VALID"), tf.nn.avg_pool2d(tf.pad(y, pads), 3, 1, "VALID"), \
            tf.nn.max_pool2d(tf.pad(x, pads), 3, 1, "VALID")
    types = ir_op_types(check_tf(tmp_path, fn, [X]))
    assert types.count("Pad") == 1, types     # only before the max pooling of data that may be negative
    assert types.count("Transpose") == 4, types   # one for the input, one per output


def test_keras_style_flatten_after_convolution(tmp_path):
    """Flatten reads NHWC order: one Transpose stays before it (and one after the input)."""
    dense = random((9 * 10 * 4, 5), seed=14, low=-0.2, high=0.2)

    def fn(x):
        y = tf.nn.relu(tf.nn.conv2d(x, W, 1, "SAME"))
        return tf.matmul(tf.reshape(y, tf.stack([tf.shape(y)[0], -1])), dense)
    types = ir_op_types(check_tf(tmp_path, fn, [np.concatenate([X, X * 2])], dynamic_batch=True))
    assert types.count("Transpose") == 2, types


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("include_batch", [False, True])
@pytest.mark.parametrize("targmax", [tf.int64, tf.int32])
def test_max_pool_with_argmax(tmp_path, padding, include_batch, targmax):
    check_tf(tmp_path, lambda x: raw.MaxPoolWithArgmax(input=x, ksize=[1, 3, 2, 1], strides=[1, 2, 2, 1],
                                                       padding=padding, Targmax=targmax,
                                                       include_batch_in_index=include_batch),
             [np.concatenate([X, X[:, ::-1]])])


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32, np.uint8])
def test_max_pool_with_argmax_types(tmp_path, dtype):
    x = random((2, 5, 6, 3), dtype, seed=3, low=0, high=200)
    check_tf(tmp_path, lambda a: raw.MaxPoolWithArgmax(input=a, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                                       padding="SAME", include_batch_in_index=True), [x])


def test_max_pool_with_argmax_dynamic_batch(tmp_path):
    check_tf(tmp_path, lambda x: raw.MaxPoolWithArgmax(input=x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                                       padding="SAME", include_batch_in_index=True),
             [np.concatenate([X, X * 2])], dynamic_batch=True)


@pytest.mark.parametrize("op", ["ResizeBilinear", "ResizeBicubic", "ResizeNearestNeighbor"])
@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64, np.float16, np.float64])
@pytest.mark.parametrize("half_pixel", [False, True])
def test_resize_types(tmp_path, op, dtype, half_pixel):
    """Bilinear and bicubic give f32 whatever the input type, nearest keeps it."""
    x = random((1, 4, 5, 2), dtype, seed=3, low=0, high=100)
    tol = 5e-2 if op == "ResizeBicubic" or dtype == np.float16 else 1e-3
    check_tf(tmp_path, lambda a: getattr(raw, op)(images=a, size=(7, 3), half_pixel_centers=half_pixel), [x],
             atol=tol, rtol=1e-3)
