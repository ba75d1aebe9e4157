"""infer of ROIAlign, NonMaxSuppression, GridSample and the ONNX AffineGrid; evaluate of
GridSample against torch."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.utils.graphs import infer_op


def test_roi_align_shape():
    (out,) = infer_op("ROIAlign", ((2, 16, -1, -1), "f32"), ((-1, 4), "f32"), ((-1,), "i64"), pooled_h=7, pooled_w=5)
    assert out.data.get_shape() == (-1, 16, 7, 5) and out.data.get_dtype() == "f32"


def test_non_max_suppression_outputs():
    idx, scores, valid = infer_op("NonMaxSuppression", ((1, 6, 4), "f32"), ((1, 2, 6), "f32"), np.int64(3),
                                  output_type="i32")
    assert idx.data.get_shape() == (-1, 3) and idx.data.get_dtype() == "i32"
    assert scores.data.get_shape() == (-1, 3) and scores.data.get_dtype() == "f32"
    assert valid.data.get_shape() == (1,) and valid.data.get_dtype() == "i32"


def test_grid_sample_shape():
    (out,) = infer_op("GridSample", ((2, 3, 8, 8), "f32"), ((2, 5, -1, 2), "f32"))
    assert out.data.get_shape() == (2, 3, 5, -1)
    (out,) = infer_op("GridSample", (None, "f32"), ((2, 5, 6, 2), "f32"))
    assert out.data.get_shape() == (-1, -1, 5, 6)


def test_affine_grid_shape_from_size_value_or_theta():
    (out,) = infer_op("onnx::AffineGrid", ((2, 2, 3), "f32"), np.array([2, 3, 5, 6]), align_corners=False)
    assert out.data.get_shape() == (2, 5, 6, 2)
    (out,) = infer_op("onnx::AffineGrid", ((2, 3, 4), "f32"), ((5,), "i64"), align_corners=True)
    assert out.data.get_shape() == (2, -1, -1, -1, 3)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_evaluates_as_torch(mode, padding, align):
    rng = np.random.default_rng(10)
    x = rng.standard_normal((2, 3, 5, 7)).astype(np.float32)
    grid = rng.uniform(-1.4, 1.4, (2, 4, 6, 2)).astype(np.float32)
    grid[0, 0, :2] = [[0, 0], [1 / 7, -1 / 5]]        # halfway between pixels (nearest: ties to even)
    expected = F.grid_sample(torch.from_numpy(x), torch.from_numpy(grid), mode=mode, padding_mode=padding,
                             align_corners=align).numpy()
    (out,) = infer_op("GridSample", x, grid, mode=mode, padding_mode=padding, align_corners=align)
    np.testing.assert_allclose(out.data.get_value(), expected, rtol=1e-5, atol=1e-5)
