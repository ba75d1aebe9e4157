"""infer of the convolution and pooling ops."""
import numpy as np

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
