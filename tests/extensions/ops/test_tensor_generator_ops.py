"""infer of OneHot-16, Eye-9, CumSum-3, DepthToSpace/SpaceToDepth-1, Col2Im-15, Interpolate-11
and the extended Range/Transpose of the shape ops."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from mo.errors import GraphError
from tests.utils.graphs import infer_op


def test_onehot_shape_type_and_normalized_negative_indices():
    (out,) = infer_op("OneHot", ((2, -1), "i64"), np.int64(5), np.float32(1), np.float32(0), axis=1)
    assert out.data.get_shape() == (2, 5, -1) and out.data.get_dtype() == "f32"
    (out,) = infer_op("OneHot", np.array([0, -1]), np.int64(3), np.int32(7), np.int32(0), axis=-1,
                      negative_indices_mode="normalize")
    np.testing.assert_array_equal(out.data.get_value(), [[7, 0, 0], [0, 0, 7]])


def test_eye_folds_with_batch_and_diagonal():
    (out,) = infer_op("Eye", np.int64(2), np.int64(3), np.int64(1), np.array([2]), output_type="i32")
    assert out.data.get_dtype() == "i32"
    np.testing.assert_array_equal(out.data.get_value(), [np.eye(2, 3, k=1)] * 2)
    (out,) = infer_op("Eye", ((), "i64"), np.int64(4), np.int64(0))
    assert out.data.get_shape() == (-1, 4)


def test_cumsum_exclusive_reverse():
    x = np.array([[1, 2, 3]], np.float32)
    (out,) = infer_op("CumSum", x, np.int64(1), exclusive=True, reverse=True)
    np.testing.assert_array_equal(out.data.get_value(), [[5, 3, 0]])


def test_depth_space_round_trip_and_shapes():
    x = np.arange(2 * 8 * 2 * 3, dtype=np.float32).reshape(2, 8, 2, 3)
    for mode in ("blocks_first", "depth_first"):
        (d2s,) = infer_op("DepthToSpace", x, block_size=2, mode=mode)
        assert d2s.data.get_shape() == (2, 2, 4, 6)
        (back,) = infer_op("SpaceToDepth", d2s.data.get_value(), block_size=2, mode=mode)
        np.testing.assert_array_equal(back.data.get_value(), x)
    (shape,) = infer_op("SpaceToDepth", ((1, 3, -1, 4), "f32"), block_size=2)
    assert shape.data.get_shape() == (1, 12, -1, 2)


def test_depth_to_space_matches_onnx_dcr():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2)
    (out,) = infer_op("DepthToSpace", x, block_size=2, mode="blocks_first")
    expected = x.reshape(1, 2, 2, 1, 2, 2).transpose(0, 3, 4, 1, 5, 2).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(out.data.get_value(), expected)


def test_col2im_shape_and_rank_check():
    (out,) = infer_op("Col2Im", ((1, 12, -1), "f32"), np.array([5, 5]), np.array([2, 2]))
    assert out.data.get_shape() == (1, 3, 5, 5)
    with pytest.raises(GraphError, match="2-D"):
        infer_op("Col2Im", ((1, 12, 4), "f32"), ((3,), "i64"), ((3,), "i64"))


def test_interpolate_sizes_scales_and_dynamic():
    (out,) = infer_op("Interpolate", ((1, 3, 10, -1), "f32"), np.array([5, 7]), np.array([2, 3]),
                      shape_calculation_mode="sizes")
    assert out.data.get_shape() == (1, 3, 5, 7)
    (out,) = infer_op("Interpolate", ((1, 3, 10, -1), "f32"), np.array([0.5, 2.0], np.float32), np.array([2, 3]),
                      shape_calculation_mode="scales")
    assert out.data.get_shape() == (1, 3, 5, -1)
    (out,) = infer_op("Interpolate", ((1, 3, 10, 4), "f32"), ((2,), "f32"), np.array([2, 3]),
                      shape_calculation_mode="scales")
    assert out.data.get_shape() == (1, 3, -1, -1)


def test_range_takes_the_type_of_start_and_transpose_reverses_without_order():
    (out,) = infer_op("Range", np.float32(0), np.float32(2), np.float32(0.5), output_type=None)
    assert out.data.get_dtype() == "f32"
    np.testing.assert_array_equal(out.data.get_value(), [0, 0.5, 1, 1.5])
    (out,) = infer_op("Transpose", ((1, 2, 3), "f32"))
    assert out.data.get_shape() == (3, 2, 1)


@pytest.mark.parametrize("size,kernel,stride,dilation,pad", [
    ((6, 7), (2, 3), (1, 1), (1, 1), (0, 0)), ((8, 9), (3, 2), (2, 1), (1, 2), (1, 0)), ((5, 5), (2, 2), (2, 2), (1, 1),
                                                                                          (1, 1))])
@pytest.mark.parametrize("batch", [(2,), ()])
def test_col2im_evaluates_as_torch_fold(size, kernel, stride, dilation, pad, batch):
    blocks = [(s + 2 * p - d * (k - 1) - 1) // st + 1 for s, k, st, d, p in zip(size, kernel, stride, dilation, pad)]
    x = np.random.default_rng(9).standard_normal(batch + (3 * kernel[0] * kernel[1], blocks[0] * blocks[1]))
    x = x.astype(np.float32)
    expected = F.fold(torch.from_numpy(x), size, kernel, dilation, pad, stride).numpy()
    (out,) = infer_op("Col2Im", x, np.array(size), np.array(kernel), strides=list(stride), dilations=list(dilation),
                      pads_begin=list(pad), pads_end=list(pad))
    np.testing.assert_allclose(out.data.get_value(), expected, rtol=1e-5, atol=1e-6)


def test_col2im_asymmetric_pads_crop_the_padded_image():
    """A 1x4 image, kernel 1x2, one pad column before: 4 blocks start at padded columns 0..3
    (image columns -1..2); block l adds a[l] at its first column and b[l] at its second."""
    a, b = np.arange(1, 5, dtype=np.float32), np.arange(5, 9, dtype=np.float32)
    (out,) = infer_op("Col2Im", np.stack([a, b])[None], np.array([1, 4]), np.array([1, 2]), pads_begin=[0, 1],
                      pads_end=[0, 0])
    np.testing.assert_array_equal(out.data.get_value().reshape(-1), [a[1] + b[0], a[2] + b[1], a[3] + b[2], b[3]])
