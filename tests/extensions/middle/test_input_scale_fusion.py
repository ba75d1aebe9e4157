"""FoldInputScaleIntoConvolution: a per-channel scale of the input goes into the first convolution's
weights, a shift into a bias when the convolution does not pad."""
import numpy as np
import pytest

from extensions.middle.input_scale_fusion import FoldInputScaleIntoConvolution
from tests.utils.reference import assert_rewrite, assert_untouched

RNG = np.random.default_rng(11)
W = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
PER_CHANNEL = RNG.uniform(0.5, 2, (1, 3, 1, 1)).astype(np.float32)


def _conv_of(pre, pads=0, auto_pad="explicit"):
    def build(b):
        x = b.Parameter(shape=(2, 3, 8, 8), element_type="f32", name="x")
        return b.Convolution(pre(b, x), W, strides=[1, 1], pads_begin=[pads] * 2, pads_end=[pads] * 2,
                             auto_pad=auto_pad)
    return build


@pytest.mark.parametrize("pre", [
    lambda b, x: b.Multiply(x, PER_CHANNEL), lambda b, x: b.Divide(x, PER_CHANNEL),
    lambda b, x: b.Multiply(np.float32(1 / 255), x), lambda b, x: b.Divide(b.Multiply(x, np.float32(3)), PER_CHANNEL),
], ids=["multiply", "divide", "scalar_first", "two_scales"])
def test_scales_go_into_the_weights_even_with_padding(pre):
    assert_rewrite(_conv_of(pre, pads=1), FoldInputScaleIntoConvolution, expect_ops=["Convolution"], rtol=1e-4)


@pytest.mark.parametrize("op", ["Subtract", "Add"])
@pytest.mark.parametrize("auto_pad", ["explicit", "valid"])
def test_shift_becomes_a_bias_without_padding(op, auto_pad):
    g = assert_rewrite(_conv_of(lambda b, x: b.op(op, x, PER_CHANNEL * 100), auto_pad=auto_pad),
                       FoldInputScaleIntoConvolution, expect_ops=["Convolution", "Add"], rtol=1e-4, atol=1e-3)
    assert g.nodes_by_op("Add")[0].in_port(0).get_source().node.op == "Convolution"


@pytest.mark.parametrize("pre,pads", [
    (lambda b, x: b.Subtract(x, PER_CHANNEL), 1),                       # padding would see the shift
    (lambda b, x: b.Multiply(x, RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)), 0),   # not per channel
    (lambda b, x: b.Multiply(x, b.ReLU(x)), 0),                         # not a constant
    (lambda b, x: b.Subtract(PER_CHANNEL, x), 0),                       # the input is subtracted
], ids=["padded_shift", "per_pixel", "computed", "reversed_subtract"])
def test_what_cannot_move_into_the_convolution_stays(pre, pads):
    assert_untouched(_conv_of(pre, pads=pads), FoldInputScaleIntoConvolution)


def test_scale_read_by_another_op_stays():
    def build(b):
        x = b.Parameter(shape=(2, 3, 8, 8), element_type="f32", name="x")
        scaled = b.Multiply(x, PER_CHANNEL)
        return b.Convolution(scaled, W, strides=[1, 1]), b.ReLU(scaled)
    assert_untouched(build, FoldInputScaleIntoConvolution)
