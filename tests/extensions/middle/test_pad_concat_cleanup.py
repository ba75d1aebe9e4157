"""PadIntoConvolution and FlattenConcats: zero Pads become the padding of the convolution or
pooling reading them; nested Concats along one axis become one."""
import numpy as np
import pytest

from extensions.middle.pad_concat_cleanup import FlattenConcats, PadIntoConvolution
from tests.utils.reference import assert_rewrite, assert_untouched

RNG = np.random.default_rng(12)
W = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
W_GROUPED = RNG.standard_normal((3, 2, 1, 3, 3)).astype(np.float32)    # depthwise, two outputs per channel
BEGIN = np.array([0, 0, 1, 2], np.int64)
END = np.array([0, 0, 2, 0], np.int64)
WINDOW = dict(strides=[1, 1], pads_begin=[1, 0], pads_end=[0, 1])


def _padded(reader, begin=BEGIN, end=END, value=None, before=None):
    def build(b):
        x = b.Parameter(shape=(2, 3, 7, 7), element_type="f32", name="x")
        source = before(b, x) if before else x
        pad = b.Pad(source, begin, end, *([] if value is None else [np.float32(value)]), pad_mode="constant")
        return reader(b, pad)
    return build


READERS = {
    "conv": (lambda b, y: b.Convolution(y, W, **WINDOW), "Convolution"),
    "group_conv": (lambda b, y: b.GroupConvolution(y, W_GROUPED, **WINDOW), "GroupConvolution"),
    "avg_pool_counting": (lambda b, y: b.AvgPool(y, kernel=[3, 3], **WINDOW, **{"exclude-pad": False}), "AvgPool"),
    "avg_pool_valid": (lambda b, y: b.AvgPool(y, kernel=[2, 2], strides=[2, 2], auto_pad="valid"), "AvgPool"),
}


@pytest.mark.parametrize("name", list(READERS))
def test_zero_pad_becomes_the_readers_padding(name):
    reader, op = READERS[name]
    g = assert_rewrite(_padded(reader), PadIntoConvolution, expect_ops=[op])
    node = g.nodes_by_op(op)[0]
    assert node.auto_pad == "explicit" and node.pads_begin[0] >= 1


def test_max_pool_of_non_negative_values_takes_the_pad():
    build = _padded(lambda b, y: b.MaxPool(y, kernel=[3, 3], **WINDOW)[0], before=lambda b, x: b.ReLU(x))
    assert_rewrite(build, PadIntoConvolution, expect_ops=["ReLU", "MaxPool"])


def test_pad_read_by_two_convolutions_goes_into_both():
    build = _padded(lambda b, y: (b.Convolution(y, W, **WINDOW), b.Convolution(y, W[:2], strides=[2, 2])))
    assert_rewrite(build, PadIntoConvolution, expect_ops=["Convolution", "Convolution"])


def test_transpose_between_pad_and_convolution_moves_first():
    """A channels-last input padded, transposed to channels-first and convolved."""
    def build(b):
        x = b.Parameter(shape=(2, 7, 7, 3), element_type="f32", name="x")
        pad = b.Pad(x, np.array([0, 1, 1, 0], np.int64), np.array([0, 1, 1, 0], np.int64), pad_mode="constant")
        return b.Convolution(b.Transpose(pad, np.array([0, 3, 1, 2], np.int64)), W, strides=[1, 1])
    assert_rewrite(build, PadIntoConvolution, expect_ops=["Transpose", "Convolution"])


@pytest.mark.parametrize("build", [
    _padded(READERS["conv"][0], value=1.0),                                          # not zeros
    _padded(READERS["avg_pool_counting"][0], begin=np.array([0, 1, 0, 0], np.int64)),  # pads channels
    _padded(READERS["conv"][0], end=np.array([0, 0, -1, 0], np.int64)),              # crops
    _padded(lambda b, y: b.MaxPool(y, kernel=[3, 3], **WINDOW)[0]),                   # negative values win
    _padded(lambda b, y: b.AvgPool(y, kernel=[3, 3], **WINDOW)),                      # excludes its own pads
    _padded(lambda b, y: (b.Convolution(y, W, **WINDOW), b.ReLU(y))),                 # another reader
], ids=["value", "channels", "negative", "max_pool", "avg_pool_excluding", "shared"])
def test_pads_the_reader_cannot_take_stay(build):
    assert_untouched(build, PadIntoConvolution)


def _nested(inner_axis=1, shared=False):
    """Concat along axis 1 of x [2, 3, 4] and a Concat (along ``inner_axis``) of ReLU(x) and ones."""
    def build(b):
        x = b.Parameter(shape=(2, 3, 4), element_type="f32", name="x")
        if inner_axis == 1:
            inner = b.Concat(b.ReLU(x), np.ones((2, 1, 4), np.float32), axis=1)
            outer = b.Concat(b.Exp(x), inner, x, axis=-2)
        else:
            inner = b.Concat(b.ReLU(x), np.ones((2, 3, 2), np.float32), axis=inner_axis)
            outer = b.Concat(np.ones((2, 1, 6), np.float32), inner, axis=1)
        return (outer, b.Sigmoid(inner)) if shared else outer
    return build


def test_nested_concats_along_one_axis_become_one():
    g = assert_rewrite(_nested(), FlattenConcats, expect_ops=["ReLU", "Exp", "Concat"])
    assert len(g.nodes_by_op("Concat")[0].in_ports()) == 4


@pytest.mark.parametrize("build", [_nested(inner_axis=2), _nested(shared=True)], ids=["other_axis", "shared"])
def test_concats_that_cannot_merge_stay(build):
    assert_untouched(build, FlattenConcats)
