"""infer and evaluate of the convolution and pooling ops."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.utils.graphs import infer_op


def test_convolution_backprop_data_shapes():
    (out,) = infer_op("ConvolutionBackpropData", ((1, 4, 3, -1), "f32"), ((4, 2, 3, 3), "f32"), strides=[2, 2],
                      pads_begin=[0, 1], pads_end=[0, 1], output_padding=[1, 0])
    assert out.data.get_shape() == (1, 2, 8, -1)
    (out,) = infer_op("ConvolutionBackpropData", ((1, 4, 3, 3), "f32"), ((4, 2, 3, 3), "f32"), np.array([10, 8]),
                      strides=[3, 2], auto_pad="same_upper")
    assert out.data.get_shape() == (1, 2, 10, 8)


def test_group_convolution_backprop_data_channels_and_ir_type():
    (out,) = infer_op("GroupConvolutionBackpropData", ((2, 4, 5, 5), "f32"), ((2, 2, 3, 3, 3), "f32"),
                      strides=[1, 1])
    assert out.data.get_shape() == (2, 6, 7, 7)
    assert out.node.type == "GroupConvolutionBackpropData"


def test_deformable_convolution_and_group_convolution_shapes():
    (out,) = infer_op("DeformableConvolution", ((1, 4, 6, 6), "f32"), ((1, 18, 4, 4), "f32"), ((8, 4, 3, 3), "f32"),
                      pads_begin=[0, 0], pads_end=[0, 0])
    assert out.data.get_shape() == (1, 8, 4, 4)
    (out,) = infer_op("GroupConvolution", ((1, 4, 6, 6), "f32"), ((2, 3, 2, 3, 3), "f32"), strides=[2, 2],
                      pads_begin=[1, 1], pads_end=[1, 1])
    assert out.data.get_shape() == (1, 6, 3, 3)


def test_pooling_shapes_with_indices_and_ceil():
    values, indices = infer_op("MaxPool", ((1, 3, 5, 5), "f32"), kernel=[2, 2], strides=[2, 2],
                               rounding_type="ceil_torch")
    assert values.data.get_shape() == (1, 3, 3, 3) and indices.data.get_dtype() == "i64"
    (out,) = infer_op("AvgPool", ((1, 3, -1, 8), "f32"), kernel=[3, 3], strides=[1, 1], pads_begin=[1, 1],
                      pads_end=[1, 1])
    assert out.data.get_shape() == (1, 3, -1, 8)


# ---------------------------------------------------------------------------------- evaluate
# Each evaluate is compared with torch.nn.functional on the same input; torch pads symmetrically,
# so asymmetric or automatic pads are applied with F.pad before the torch op.
RNG = np.random.default_rng(0)
CONV = {1: "conv1d", 2: "conv2d", 3: "conv3d"}
CONV_T = {1: "conv_transpose1d", 2: "conv_transpose2d", 3: "conv_transpose3d"}


def folded(op, *inputs, index=0, **attrs):
    """Output ``index`` of ``op`` with constant inputs: the value constant folding computes."""
    return infer_op(op, *inputs, **attrs)[index].data.get_value()


def torch_pads(begin, end):
    """F.pad's argument for per-dim begin/end pads (it lists the last dim first)."""
    return [p for b, e in zip(reversed(begin), reversed(end)) for p in (b, e)]


def auto_pads(size, kernel, stride, dilation, auto_pad):
    """The pads of one dim that auto_pad same_upper / same_lower / valid stand for."""
    if auto_pad == "valid":
        return 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + dilation * (kernel - 1) + 1 - size, 0)
    return (total // 2, total - total // 2) if auto_pad == "same_upper" else (total - total // 2, total // 2)


WINDOWS = [   # strides, dilations, pads_begin, pads_end, auto_pad
    (1, 1, 0, 0, "explicit"), (2, 1, 1, 0, "explicit"), (2, 2, 1, 2, "explicit"), (3, 1, 0, 0, "same_upper"),
    (2, 2, 0, 0, "same_lower"), (2, 1, 3, 3, "valid"),
]


def _window_case(dims, stride, dilation, begin, end, auto_pad, size=7, kernel=3):
    attrs = dict(strides=[stride] * dims, dilations=[dilation] * dims, pads_begin=[begin] * dims,
                 pads_end=[end] * dims, auto_pad=auto_pad)
    if auto_pad != "explicit":
        begin, end = auto_pads(size, kernel, stride, dilation, auto_pad)
    return attrs, [begin] * dims, [end] * dims


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("stride,dilation,begin,end,auto_pad", WINDOWS)
def test_convolution_and_group_convolution_evaluate_as_torch(dims, stride, dilation, begin, end, auto_pad):
    x = RNG.standard_normal((2, 4) + (7,) * dims).astype(np.float32)
    w = RNG.standard_normal((6, 4) + (3,) * dims).astype(np.float32)
    attrs, pb, pe = _window_case(dims, stride, dilation, begin, end, auto_pad)
    padded = F.pad(torch.from_numpy(x), torch_pads(pb, pe))
    conv = getattr(F, CONV[dims])
    expected = conv(padded, torch.from_numpy(w), stride=stride, dilation=dilation).numpy()
    np.testing.assert_allclose(folded("Convolution", x, w, **attrs), expected, rtol=1e-4, atol=1e-4)
    groups = 2
    wg = w[:, :2]        # [6, 4 / groups, k...]
    expected = conv(padded, torch.from_numpy(wg), stride=stride, dilation=dilation, groups=groups).numpy()
    grouped = wg.reshape((groups, 3) + wg.shape[1:])
    np.testing.assert_allclose(folded("GroupConvolution", x, grouped, **attrs), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("stride,dilation,begin,end,out_pad", [
    (1, 1, 0, 0, 0), (2, 1, 1, 1, 1), (2, 2, 1, 0, 0), (3, 1, 2, 1, 2), (2, 1, 0, 2, 1)])
def test_convolution_backprop_data_evaluates_as_torch(dims, stride, dilation, begin, end, out_pad):
    x = RNG.standard_normal((2, 4) + (5,) * dims).astype(np.float32)
    w = RNG.standard_normal((4, 3) + (3,) * dims).astype(np.float32)
    attrs = dict(strides=[stride] * dims, dilations=[dilation] * dims, pads_begin=[begin] * dims,
                 pads_end=[end] * dims, output_padding=[out_pad] * dims)
    transposed = getattr(F, CONV_T[dims])
    full = transposed(torch.from_numpy(x), torch.from_numpy(w), stride=stride, dilation=dilation,
                      output_padding=out_pad).numpy()
    # pads crop the full transposed convolution (output padding extends its end)
    expected = full[(Ellipsis,) + (slice(begin, full.shape[-1] - end),) * dims]
    np.testing.assert_allclose(folded("ConvolutionBackpropData", x, w, **attrs), expected, rtol=1e-4, atol=1e-4)
    wg = RNG.standard_normal((4, 2) + (3,) * dims).astype(np.float32)     # groups 2: [4, 4 / 2 -> 2 each]
    full = transposed(torch.from_numpy(x), torch.from_numpy(wg), stride=stride, dilation=dilation,
                      output_padding=out_pad, groups=2).numpy()
    expected = full[(Ellipsis,) + (slice(begin, full.shape[-1] - end),) * dims]
    grouped = wg.reshape((2, 2) + wg.shape[1:])
    np.testing.assert_allclose(folded("GroupConvolutionBackpropData", x, grouped, **attrs), expected,
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("auto_pad,size", [("same_upper", 8), ("same_lower", 8), ("same_upper", 9),
                                           ("explicit", 8), ("explicit", 13), ("valid", 9)])
def test_convolution_backprop_data_output_shape_sets_the_padding(auto_pad, size):
    """With an output shape the pads are what it leaves of the full result (odd part first for
    same_upper, last for same_lower); explicit pads still crop the start; valid crops nothing;
    beyond the full result the output is zero."""
    x = RNG.standard_normal((1, 2, 5)).astype(np.float32)
    w = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    full = F.conv_transpose1d(torch.from_numpy(x), torch.from_numpy(w), stride=2).numpy()   # 11 wide
    total = full.shape[-1] - size
    begin = {"same_upper": total - total // 2, "same_lower": total // 2, "explicit": 1, "valid": 0}[auto_pad]
    expected = np.zeros((1, 3, size), np.float32)
    kept = full[..., begin:begin + size]
    expected[..., :kept.shape[-1]] = kept
    out = folded("ConvolutionBackpropData", x, w, np.array([size], np.int64), strides=[2], pads_begin=[1],
                 pads_end=[1], auto_pad=auto_pad)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_convolution_backprop_data_same_pads_need_an_output_shape():
    x = RNG.standard_normal((1, 2, 5)).astype(np.float32)
    w = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    full = F.conv_transpose1d(torch.from_numpy(x), torch.from_numpy(w), stride=2).numpy()
    (out,) = infer_op("ConvolutionBackpropData", x, w, strides=[2], auto_pad="same_upper")
    assert out.data.get_shape() == (1, 3, 11)
    np.testing.assert_allclose(out.data.get_value(), full, rtol=1e-5, atol=1e-5)


POOLS = {1: ("max_pool1d", "avg_pool1d", "adaptive_max_pool1d", "adaptive_avg_pool1d"),
         2: ("max_pool2d", "avg_pool2d", "adaptive_max_pool2d", "adaptive_avg_pool2d"),
         3: ("max_pool3d", "avg_pool3d", "adaptive_max_pool3d", "adaptive_avg_pool3d")}


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("kernel,stride,dilation,pad,ceil", [
    (3, 1, 1, 0, False), (3, 2, 1, 1, False), (2, 2, 1, 1, True), (3, 2, 2, 1, True), (2, 3, 1, 0, True)])
def test_max_pool_evaluates_as_torch_with_indices_from_any_axis(dims, kernel, stride, dilation, pad, ceil):
    x = RNG.standard_normal((2, 3) + (8,) * dims).astype(np.float32)
    values, indices = getattr(F, POOLS[dims][0])(torch.from_numpy(x), kernel, stride, pad, dilation, ceil_mode=ceil,
                                                 return_indices=True)
    attrs = dict(kernel=[kernel] * dims, strides=[stride] * dims, dilations=[dilation] * dims, pads_begin=[pad] * dims,
                 pads_end=[pad] * dims, rounding_type="ceil_torch" if ceil else "floor")
    plane = int(np.prod(x.shape[2:]))
    offset = {2: 0, 1: np.arange(3).reshape((1, 3) + (1,) * dims) * plane,
              0: np.arange(6).reshape((2, 3) + (1,) * dims) * plane}
    for axis in (2, 1, 0):
        out, idx = infer_op("MaxPool", x, axis=axis, **attrs)
        np.testing.assert_array_equal(out.data.get_value(), values.numpy())
        np.testing.assert_array_equal(idx.data.get_value(), indices.numpy() + offset[axis])


def test_max_pool_auto_pads_and_asymmetric_pads_never_pick_the_padding():
    x = -np.abs(RNG.standard_normal((1, 2, 7, 7))).astype(np.float32)    # all negative: zero padding would win
    for auto_pad, stride, begin, end in (("same_upper", 2, [0, 0], [1, 1]), ("same_lower", 2, [1, 1], [0, 0]),
                                         ("explicit", 1, [0, 1], [1, 0])):
        padded = F.pad(torch.from_numpy(x), torch_pads(begin, end), value=-np.inf)
        expected = F.max_pool2d(padded, 2, stride).numpy()
        explicit = auto_pad == "explicit"
        out = folded("MaxPool", x, kernel=[2, 2], strides=[stride] * 2, auto_pad=auto_pad,
                     pads_begin=begin if explicit else [0, 0], pads_end=end if explicit else [0, 0])
        np.testing.assert_array_equal(out, expected)


def test_max_pool_window_in_the_padding_gives_the_lowest_value_and_index_of_the_plane():
    """rounding_type ceil (unlike ceil_torch) keeps a last window that lies in the end padding."""
    x = np.arange(1, 9, dtype=np.float32).reshape(1, 1, 8) * np.ones((2, 1, 1), np.float32)
    values, indices = infer_op("MaxPool", x, kernel=[2], strides=[2], pads_end=[1], rounding_type="ceil", axis=0)
    lowest = np.finfo(np.float32).min
    np.testing.assert_array_equal(values.data.get_value()[:, 0], [[2, 4, 6, 8, lowest]] * 2)
    np.testing.assert_array_equal(indices.data.get_value()[:, 0], [[1, 3, 5, 7, 0], [9, 11, 13, 15, 8]])
    (torch_like,) = infer_op("MaxPool", x, kernel=[2], strides=[2], pads_end=[1], rounding_type="ceil_torch")[:1]
    assert torch_like.data.get_shape() == (2, 1, 4)


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("kernel,stride,pad,ceil,exclude", [
    (3, 1, 0, False, True), (3, 2, 1, False, True), (3, 2, 1, False, False), (2, 2, 1, True, True),
    (3, 2, 1, True, True), (2, 3, 0, True, True)])
def test_avg_pool_evaluates_as_torch(dims, kernel, stride, pad, ceil, exclude):
    x = RNG.standard_normal((2, 3) + (8,) * dims).astype(np.float32)
    expected = getattr(F, POOLS[dims][1])(torch.from_numpy(x), kernel, stride, pad, ceil_mode=ceil,
                                          count_include_pad=not exclude).numpy()
    out = folded("AvgPool", x, kernel=[kernel] * dims, strides=[stride] * dims, pads_begin=[pad] * dims,
                 pads_end=[pad] * dims, rounding_type="ceil_torch" if ceil else "floor", **{"exclude-pad": exclude})
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_avg_pool_counting_padding_divides_by_the_kernel_and_dilates():
    """exclude-pad false with some padding divides by the kernel size even where a ceil window
    overhangs the padded input (OpenVINO CPU); without padding only the covered values count."""
    x = np.arange(1, 8, dtype=np.float32).reshape(1, 1, 7)
    out = folded("AvgPool", x, kernel=[3], strides=[2], pads_begin=[1], pads_end=[0], rounding_type="ceil",
                 **{"exclude-pad": False})
    np.testing.assert_allclose(out.reshape(-1), [1, 3, 5, 13 / 3], rtol=1e-6)   # (6 + 7 + overhang) / 3
    out = folded("AvgPool", x, kernel=[2], strides=[3], rounding_type="ceil", **{"exclude-pad": False})
    np.testing.assert_allclose(out.reshape(-1), [1.5, 4.5, 7], rtol=1e-6)
    y = RNG.standard_normal((1, 2, 9, 9)).astype(np.float32)
    windows = F.unfold(torch.from_numpy(y), 3, dilation=2, padding=1, stride=2).reshape(1, 2, 9, 4, 4)
    out = folded("AvgPool", y, kernel=[3, 3], strides=[2, 2], dilations=[2, 2], pads_begin=[1, 1], pads_end=[1, 1],
                 **{"exclude-pad": False})
    np.testing.assert_allclose(out, windows.mean(dim=2).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("size", [1, 3, 5, 8])
def test_adaptive_pools_evaluate_as_torch(dims, size):
    x = RNG.standard_normal((2, 3) + (7,) * dims).astype(np.float32)
    target = np.array([size] * dims, np.int64)
    values, indices = getattr(F, POOLS[dims][2])(torch.from_numpy(x), size, return_indices=True)
    out, idx = infer_op("AdaptiveMaxPool", x, target)
    np.testing.assert_array_equal(out.data.get_value(), values.numpy())
    np.testing.assert_array_equal(idx.data.get_value(), indices.numpy())
    expected = getattr(F, POOLS[dims][3])(torch.from_numpy(x), size).numpy()
    np.testing.assert_allclose(folded("AdaptiveAvgPool", x, target), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("group,deformable_group", [(1, 1), (2, 1), (1, 2), (2, 2)])
def test_deformable_convolution_evaluates_as_shifted_convolutions(group, deformable_group):
    """Zero offsets: a convolution; whole-pixel offsets: a convolution of the shifted padded
    input (zeros shifted in); half-pixel offsets with zero padding: the mean of the two
    neighbouring shifts; a mask scales every tap."""
    x = RNG.standard_normal((2, 4, 6, 7)).astype(np.float32)
    w = RNG.standard_normal((6, 4 // group, 3, 3)).astype(np.float32)
    attrs = dict(strides=[1, 1], dilations=[1, 1], pads_begin=[1, 1], pads_end=[1, 1], group=group,
                 deformable_group=deformable_group, bilinear_interpolation_pad=True)

    def conv(padded):
        return F.conv2d(torch.from_numpy(padded), torch.from_numpy(w), groups=group).numpy()

    def shifted_down(data):        # data[y + 1] at row y, zeros at the end
        return np.concatenate([data[:, :, 1:], np.zeros_like(data[:, :, :1])], axis=2)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))

    def offsets(dy, dx):
        value = np.zeros((2, deformable_group, 9, 2, 6, 7), np.float32)
        value[:, :, :, 0], value[:, :, :, 1] = dy, dx
        return value.reshape(2, -1, 6, 7)
    np.testing.assert_allclose(folded("DeformableConvolution", x, offsets(0, 0), w, **attrs), conv(padded),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(folded("DeformableConvolution", x, offsets(1, 0), w, **attrs),
                               conv(shifted_down(padded)), rtol=1e-4, atol=1e-4)
    half = folded("DeformableConvolution", x, offsets(0.5, 0), w, **attrs)
    np.testing.assert_allclose(half, conv((padded + shifted_down(padded)) / 2), rtol=1e-4, atol=1e-4)
    mask = np.full((2, deformable_group * 9, 6, 7), 0.5, np.float32)
    np.testing.assert_allclose(folded("DeformableConvolution", x, offsets(0, 0), w, mask, **attrs),
                               conv(padded) / 2, rtol=1e-4, atol=1e-4)


def test_deformable_convolution_without_padding_reads_the_edge_past_the_last_row():
    """bilinear_interpolation_pad false: a position in [H - 1, H) reads the last row, one below 0
    or from H on reads zero."""
    x = (np.arange(4)[:, None] * 10.0 + np.arange(5) + 1).astype(np.float32).reshape(1, 1, 4, 5)
    w = np.ones((1, 1, 1, 1), np.float32)
    offsets = np.zeros((1, 2, 4, 5), np.float32)
    offsets[0, 0] = 0.5
    out = folded("DeformableConvolution", x, offsets, w, strides=[1, 1])[0, 0]
    np.testing.assert_allclose(out[:, 0], [6, 16, 26, 31])
    offsets[0, 0] = -0.25
    out = folded("DeformableConvolution", x, offsets, w, strides=[1, 1])[0, 0]
    np.testing.assert_allclose(out[:, 0], [0, 8.5, 18.5, 28.5])
