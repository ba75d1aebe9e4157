"""infer of ROIAlign, NonMaxSuppression and GridSample; evaluate of GridSample against torch, of
ROIAlign and NonMaxSuppression on cases known by hand."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.utils.graphs import infer_op, new_graph


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


# A linear ramp is interpolated exactly: a bin's average is the ramp at the bin centre, its maximum
# the ramp at the last sample (largest row and column).
RAMP = (np.arange(8)[:, None] * 10.0 + np.arange(10)[None, :]).astype(np.float32)   # value = 10 * y + x


@pytest.mark.parametrize("aligned_mode,scale,start", [
    ("asymmetric", 1.0, lambda c: c), ("asymmetric", 0.5, lambda c: c * 0.5),
    ("half_pixel_for_nn", 0.5, lambda c: c * 0.5 - 0.5), ("half_pixel", 0.5, lambda c: (c + 0.5) * 0.5 - 0.5)])
@pytest.mark.parametrize("sampling_ratio", [0, 2, 3])
def test_roi_align_of_a_ramp(aligned_mode, scale, start, sampling_ratio):
    x = np.stack([RAMP, RAMP * 2])[None]                      # [1, 2, 8, 10]
    box = np.array([[1.0, 1.5, 8.0, 6.5]], np.float32)        # x1, y1, x2, y2 before scaling, inside
    (avg,) = infer_op("ROIAlign", x, box, np.array([0], np.int32), pooled_h=3, pooled_w=2,
                      sampling_ratio=sampling_ratio, spatial_scale=scale, aligned_mode=aligned_mode)
    (mx,) = infer_op("ROIAlign", x, box, np.array([0], np.int32), pooled_h=3, pooled_w=2,
                     sampling_ratio=sampling_ratio, spatial_scale=scale, aligned_mode=aligned_mode, mode="max")
    x1, y1, x2, y2 = (start(c) for c in box[0])
    bin_h, bin_w = (y2 - y1) / 3, (x2 - x1) / 2
    count_h = sampling_ratio or int(np.ceil(bin_h))
    count_w = sampling_ratio or int(np.ceil(bin_w))
    centre_y, centre_x = y1 + (np.arange(3) + 0.5) * bin_h, x1 + (np.arange(2) + 0.5) * bin_w
    last_y = y1 + (np.arange(3) + 1 - 0.5 / count_h) * bin_h
    last_x = x1 + (np.arange(2) + 1 - 0.5 / count_w) * bin_w
    expected_avg = 10 * centre_y[:, None] + centre_x[None, :]
    expected_max = 10 * last_y[:, None] + last_x[None, :]
    np.testing.assert_allclose(avg.data.get_value()[0], [expected_avg, 2 * expected_avg], rtol=1e-5)
    np.testing.assert_allclose(mx.data.get_value()[0], [expected_max, 2 * expected_max], rtol=1e-5)


def test_roi_align_edges_and_outside():
    """Samples within one pixel outside take the edge value, farther ones are zero; the box of
    the second image reads that image."""
    x = np.stack([RAMP, -RAMP])[:, None]                     # [2, 1, 8, 10]
    boxes = np.array([[-1.0, -0.8, -0.6, -0.4], [20, 20, 24, 24], [0, 0, 1, 1]], np.float32)
    (out,) = infer_op("ROIAlign", x, boxes, np.array([0, 0, 1], np.int32), sampling_ratio=1)
    np.testing.assert_allclose(out.data.get_value().reshape(-1), [0.0, 0.0, -(10 * 0.5 + 0.5)], atol=1e-6)
    (out,) = infer_op("ROIAlign", x, boxes[:1], np.array([0], np.int32), sampling_ratio=1,
                      aligned_mode="half_pixel")     # the centre moves in range: edge value RAMP[0, 0]
    np.testing.assert_allclose(out.data.get_value().reshape(-1), [0.0], atol=1e-6)


# A and B overlap with IoU 81 / 119; C is apart.
NMS_BOXES = np.array([[[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]]], np.float32)      # y1, x1, y2, x2
NMS_SCORES = np.array([[[0.9, 0.8, 0.7], [0.1, 0.95, 0.2]]], np.float32)                    # two classes
A_B_IOU = 81 / 119


def _evaluated(**kwargs):
    """NonMaxSuppression is never folded: its values come from evaluate."""
    g, b = new_graph(data_form=True)
    args = dict(boxes=NMS_BOXES, scores=NMS_SCORES, max_boxes=10, iou=0.5, score=0.0, sigma=0.0)
    args.update({k: kwargs.pop(k) for k in list(kwargs) if k in args})
    node = b.node("NonMaxSuppression", args["boxes"], args["scores"], np.array(args["max_boxes"], np.int64),
                  np.float32(args["iou"]), np.float32(args["score"]), np.float32(args["sigma"]), **kwargs)
    assert node.out_port(0).data.get_value() is None
    return node.op_class.evaluate(node, *[node.in_value(i) for i in range(6)])


def test_nms_suppresses_overlaps_per_class():
    selected, scores, valid = _evaluated(sort_result_descending=False)
    np.testing.assert_array_equal(selected, [[0, 0, 0], [0, 0, 2], [0, 1, 1], [0, 1, 2]])
    np.testing.assert_allclose(scores[:, 2], [0.9, 0.7, 0.95, 0.2])
    assert valid.tolist() == [4]
    selected, _, _ = _evaluated(sort_result_descending=True)
    np.testing.assert_array_equal(selected[:, 2], [1, 0, 2, 2])          # by score: .95, .9, .7, .2
    selected, _, _ = _evaluated(iou=0.7, sort_result_descending=False)   # the overlap is allowed
    np.testing.assert_array_equal(selected[:3, 2], [0, 1, 2])
    selected, _, _ = _evaluated(max_boxes=1, score=0.15, sort_result_descending=False)
    np.testing.assert_array_equal(selected, [[0, 0, 0], [0, 1, 1]])


def test_nms_center_encoding_and_soft_suppression():
    centres = np.array([[[5, 5, 10, 10], [6, 6, 10, 10], [25, 25, 10, 10]]], np.float32)     # x, y, w, h
    selected, _, _ = _evaluated(boxes=centres, box_encoding="center", sort_result_descending=False)
    np.testing.assert_array_equal(selected[:, 2], [0, 2, 1, 2])
    selected, scores, _ = _evaluated(scores=NMS_SCORES[:, :1], sigma=0.5, sort_result_descending=False)
    np.testing.assert_array_equal(selected[:, 2], [0, 2, 1])       # B decays below C
    np.testing.assert_allclose(scores[:, 2], [0.9, 0.7, 0.8 * np.exp(-0.5 * A_B_IOU ** 2 / 0.5)], rtol=1e-5)
