"""Layer tests of TensorFlow's LRN and of FusedBatchNorm (V1-V3) in training mode, NHWC and NCHW,
over their attributes and element types."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

raw = tf.raw_ops

X = random((2, 5, 6, 7), seed=1)


@pytest.mark.parametrize("radius,bias,alpha,beta", [(5, 1.0, 1.0, 0.5), (2, 2.0, 1e-3, 0.75), (0, 0.5, 0.2, 1.0),
                                                    (1, 1.0, 0.5, 0.3)])
def test_lrn(tmp_path, radius, bias, alpha, beta):
    check_tf(tmp_path, lambda x: raw.LRN(input=x, depth_radius=radius, bias=bias, alpha=alpha, beta=beta), [X])


def test_lrn_half(tmp_path):
    check_tf(tmp_path, lambda x: raw.LRN(input=x, depth_radius=2, bias=1.0, alpha=0.1, beta=0.75),
             [X.astype(np.float16)], atol=2e-3, rtol=2e-3)


def nchw(fn):
    """``fn`` (NHWC, one tensor out and four more) applied to an NCHW tensor."""
    def run(x):
        y, *rest = fn(tf.transpose(x, [0, 2, 3, 1]))
        return (tf.transpose(y, [0, 3, 1, 2]), *rest)
    return run


C = 7
SCALE, OFFSET = random((C,), seed=6, low=0.5, high=1.5), random((C,), seed=7)
MEAN, VAR = random((C,), seed=8), random((C,), seed=9, low=0.5, high=2)


def training_bn(op, x, fmt, factor):
    """The normalised data, the running mean and variance, and the batch mean and variance."""
    given = (MEAN, VAR) if factor != 1.0 else ([], [])
    out = getattr(raw, op)(x=x, scale=SCALE, offset=OFFSET, mean=given[0], variance=given[1], epsilon=1e-3,
                           exponential_avg_factor=factor, data_format=fmt, is_training=True)
    return tuple(out[:5])


@pytest.mark.parametrize("op", ["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"])
@pytest.mark.parametrize("factor", [1.0, 0.25])
def test_fused_batch_norm_training(tmp_path, op, factor):
    check_tf(tmp_path, lambda x: training_bn(op, x, "NHWC", factor), [X])


@pytest.mark.parametrize("op", ["FusedBatchNorm", "FusedBatchNormV3"])
def test_fused_batch_norm_training_nchw(tmp_path, op):
    check_tf(tmp_path, lambda x: training_bn(op, x, "NCHW", 1.0), [X.transpose(0, 3, 1, 2)],
             reference=nchw(lambda x: training_bn(op, x, "NHWC", 1.0)))


def test_fused_batch_norm_training_half(tmp_path):
    check_tf(tmp_path, lambda x: training_bn("FusedBatchNormV3", x, "NHWC", 1.0)[0], [X.astype(np.float16)],
             atol=5e-3, rtol=5e-3)


def test_fused_batch_norm_training_dynamic_batch(tmp_path):
    check_tf(tmp_path, lambda x: training_bn("FusedBatchNormV3", x, "NHWC", 0.5), [X], dynamic_batch=True)


def test_fused_batch_norm_training_3d(tmp_path):
    check_tf(tmp_path, lambda x: training_bn("FusedBatchNormV3", x, "NDHWC", 1.0), [random((2, 3, 4, 5, C), seed=3)])


@pytest.mark.parametrize("op", ["FusedBatchNormV2", "FusedBatchNormV3"])
def test_fused_batch_norm_inference_half(tmp_path, op):
    """f16 data with f32 statistics."""
    def fn(x):
        return getattr(raw, op)(x=x, scale=SCALE, offset=OFFSET, mean=MEAN, variance=VAR, epsilon=1e-3,
                                is_training=False)[0]
    check_tf(tmp_path, fn, [X.astype(np.float16)], atol=5e-3, rtol=5e-3)
