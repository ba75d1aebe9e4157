"""infer of ROIAlign, NonMaxSuppression and GridSample."""
import numpy as np

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
