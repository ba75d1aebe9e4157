"""Detection and sampling operations: ROIAlign, NonMaxSuppression, GridSample."""
from __future__ import annotations

import numpy as np

from extensions.ops.interpolate import cubic_weights
from mo.ops.op import Op
from mo.utils.shape import DYN


class ROIAlign(Op):
    """Pools each region of interest (rois [R, 4], batch_indices [R]) of data [N, C, H, W] to
    [R, C, pooled_h, pooled_w]."""

    op = "ROIAlign"
    version = "opset9"
    defaults = {"pooled_h": 1, "pooled_w": 1, "sampling_ratio": 0, "spatial_scale": 1.0, "mode": "avg",
                "aligned_mode": "asymmetric"}
    ir_attrs = ("pooled_h", "pooled_w", "sampling_ratio", "spatial_scale", "mode", "aligned_mode")

    @classmethod
    def evaluate(cls, node, x, rois, batch_indices):
        """Each bin of a box averages or takes the maximum (at least 0, as the OpenVINO CPU plugin
        computes it) of sampling_ratio^2 (default: ceil(bin size)) bilinear samples at the centres
        of a regular grid in the bin. Box coordinates are scaled (asymmetric: boxes at least 1
        wide), shifted by -0.5 after the scaling (half_pixel_for_nn) or with the pixel centres
        (half_pixel: (c + 0.5) * s - 0.5)."""
        height, width = x.shape[2:]
        data = x.astype(np.float64)
        out = np.zeros((rois.shape[0], x.shape[1], node.pooled_h, node.pooled_w))
        before = 0.5 if node.aligned_mode == "half_pixel" else 0.0
        after = 0.0 if node.aligned_mode == "asymmetric" else -0.5
        for r, (roi, index) in enumerate(zip(rois.astype(np.float64), np.asarray(batch_indices).reshape(-1))):
            x1, y1, x2, y2 = (roi + before) * node.spatial_scale + after
            roi_w, roi_h = x2 - x1, y2 - y1
            if node.aligned_mode == "asymmetric":
                roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
            bin_h, bin_w = roi_h / node.pooled_h, roi_w / node.pooled_w
            count_h = node.sampling_ratio or int(np.ceil(bin_h))
            count_w = node.sampling_ratio or int(np.ceil(bin_w))
            ys = y1 + (np.arange(node.pooled_h)[:, None] + (np.arange(count_h) + 0.5) / count_h) * bin_h
            xs = x1 + (np.arange(node.pooled_w)[:, None] + (np.arange(count_w) + 0.5) / count_w) * bin_w
            samples = cls.bilinear(data[int(index)], ys.reshape(-1), xs.reshape(-1), height, width)
            samples = samples.reshape(x.shape[1], node.pooled_h, count_h, node.pooled_w, count_w)
            out[r] = np.maximum(samples.max(axis=(2, 4)), 0) if node.mode == "max" else samples.mean(axis=(2, 4))
        return out.astype(x.dtype)

    @staticmethod
    def bilinear(image: np.ndarray, ys: np.ndarray, xs: np.ndarray, height: int, width: int) -> np.ndarray:
        """image [C, H, W] interpolated at every (ys[i], xs[j]) -> [C, len(ys), len(xs)]: zero
        beyond one pixel outside the image, the edge value within it."""
        def taps(coord, size):
            outside = (coord < -1) | (coord > size)
            coord = np.clip(coord, 0, None)
            low = np.minimum(np.floor(coord), size - 1).astype(np.int64)
            high = np.minimum(low + 1, size - 1)
            frac = np.where(low >= size - 1, 0.0, coord - low)
            return low, high, frac, outside
        y_low, y_high, fy, y_out = taps(ys, height)
        x_low, x_high, fx, x_out = taps(xs, width)
        rows = [(y_low, 1 - fy), (y_high, fy)]
        cols = [(x_low, 1 - fx), (x_high, fx)]
        value = sum(image[:, r][:, :, c] * (wr[:, None] * wc[None, :]) for r, wr in rows for c, wc in cols)
        return np.where(y_out[:, None] | x_out[None, :], 0.0, value)

    @classmethod
    def infer_shapes(cls, node):
        x, rois = node.in_shape(0), node.in_shape(1)
        rois_count = DYN if rois is None else rois[0]
        channels = DYN if x is None else x[1]
        return [(rois_count, channels, node.pooled_h, node.pooled_w)]


class NonMaxSuppression(Op):
    """Boxes [B, N, 4] and scores [B, C, N] -> selected_indices [?, 3] (batch, class, box),
    selected_scores [?, 3] (f32) and valid_outputs [1]; the number selected is known at run time."""

    op = "NonMaxSuppression"
    version = "opset9"
    defaults = {"box_encoding": "corner", "sort_result_descending": True, "output_type": "i64"}
    ir_attrs = ("box_encoding", "sort_result_descending", "output_type")
    num_outputs = 3
    foldable = False
    input_ranks = {0: (3,), 1: (3,), 2: (0, 1), 3: (0, 1), 4: (0, 1), 5: (0, 1)}

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.output_type)
        node.out_port(1).data.set_dtype("f32")      # whatever the boxes' type, as the runtime does
        node.out_port(2).data.set_dtype(node.output_type)

    @classmethod
    def infer_shapes(cls, node):
        return [(DYN, 3), (DYN, 3), (1,)]

    @classmethod
    def evaluate(cls, node, boxes, scores, max_per_class=None, iou_threshold=None, score_threshold=None,
                 sigma=None):
        """Per batch and class: boxes over ``score_threshold`` (default 0) by descending score,
        each kept unless it overlaps a kept one by more than ``iou_threshold`` (soft NMS, with
        ``sigma``: the scores decay by exp(-iou^2 / (2 sigma)) instead, whatever the overlap, as
        the OpenVINO CPU plugin computes it), at most ``max_per_class`` (default 0); rows
        (batch, class, box) in batch and class order, or by descending score across all."""
        def scalar(value, default):
            return default if value is None else float(np.asarray(value).reshape(-1)[0])
        limit = int(scalar(max_per_class, 0))
        iou_limit, floor, sigma = scalar(iou_threshold, 0.0), scalar(score_threshold, 0.0), scalar(sigma, 0.0)
        corners = box_corners(boxes.astype(np.float64), node.box_encoding)
        rows, kept_scores = [], []
        for b in range(scores.shape[0]):
            overlap = iou_matrix(corners[b])
            for c in range(scores.shape[1]):
                for box, score in select_boxes(scores[b, c].astype(np.float64), overlap, limit, iou_limit, floor,
                                               sigma):
                    rows.append((b, c, box))
                    kept_scores.append(score)
        if node.sort_result_descending:
            order = sorted(range(len(rows)), key=lambda i: -kept_scores[i])
            rows, kept_scores = [rows[i] for i in order], [kept_scores[i] for i in order]
        index_type = np.int64 if node.output_type == "i64" else np.int32
        selected = np.array(rows, index_type).reshape(-1, 3)
        selected_scores = np.array([(b, c, v) for (b, c, _), v in zip(rows, kept_scores)], np.float32).reshape(-1, 3)
        return selected, selected_scores, np.array([len(rows)], index_type)


def box_corners(boxes: np.ndarray, encoding: str) -> np.ndarray:
    """[..., 4] boxes as (y_min, x_min, y_max, x_max); ``corner`` boxes give two opposite
    corners in any order, ``center`` ones (x_center, y_center, width, height)."""
    if encoding == "center":
        xc, yc, w, h = np.moveaxis(boxes, -1, 0)
        return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=-1)
    y1, x1, y2, x2 = np.moveaxis(boxes, -1, 0)
    return np.stack([np.minimum(y1, y2), np.minimum(x1, x2), np.maximum(y1, y2), np.maximum(x1, x2)], axis=-1)


def iou_matrix(corners: np.ndarray) -> np.ndarray:
    """Intersection over union of every pair of [N, 4] boxes (0 where a box is empty)."""
    y1, x1, y2, x2 = corners.T
    area = (y2 - y1) * (x2 - x1)
    height = np.clip(np.minimum(y2[:, None], y2[None]) - np.maximum(y1[:, None], y1[None]), 0, None)
    width = np.clip(np.minimum(x2[:, None], x2[None]) - np.maximum(x1[:, None], x1[None]), 0, None)
    inter = height * width
    union = area[:, None] + area[None] - inter
    valid = (area[:, None] > 0) & (area[None] > 0)
    return np.where(valid, inter / np.where(union > 0, union, 1), 0.0)


def select_boxes(scores: np.ndarray, overlap: np.ndarray, limit: int, iou_limit: float, floor: float,
                 sigma: float) -> list[tuple[int, float]]:
    """(box, score) pairs one class keeps, in the order they are selected."""
    candidates = {i: s for i, s in enumerate(scores) if s > floor}
    kept: list[tuple[int, float]] = []
    while candidates and len(kept) < limit:
        best = min(candidates, key=lambda i: (-candidates[i], i))
        kept.append((best, candidates.pop(best)))
        for i in list(candidates):
            iou = overlap[best, i]
            if sigma > 0:
                candidates[i] *= np.exp(-0.5 * iou * iou / sigma)
            elif iou > iou_limit:
                candidates[i] = -np.inf
            if candidates[i] <= floor:
                del candidates[i]
    return kept


class GridSample(Op):
    """Samples data [N, C, H, W] at the normalized (x, y) points of grid [N, H_out, W_out, 2]."""

    op = "GridSample"
    version = "opset9"
    defaults = {"align_corners": False, "mode": "bilinear", "padding_mode": "zeros"}
    ir_attrs = ("align_corners", "mode", "padding_mode")

    @classmethod
    def evaluate(cls, node, x, grid):
        """Grid point (x, y) in [-1, 1] maps to the pixel centres (``align_corners``: to the
        corner pixels), in the grid's precision; bilinear, nearest (ties to even) or bicubic
        (A = -0.75) sampling, with the positions outside the image zero, clamped to the border or
        reflected at it."""
        height, width = x.shape[2:]
        gx, gy = (cls.unnormalize(node, grid[..., i], size) for i, size in ((0, width), (1, height)))
        data = x.astype(np.float64)
        if node.mode == "bicubic":
            bx, by = np.floor(gx), np.floor(gy)
            wx, wy = (cubic_weights((g - f).reshape(-1), -0.75).reshape(g.shape + (4,))
                      for g, f in ((gx, bx), (gy, by)))
            out = sum(wy[..., i][:, None] * wx[..., j][:, None] *
                      cls.sample(node, data, by + i - 1, bx + j - 1) for i in range(4) for j in range(4))
        else:
            gx, gy = cls.padded(node, gx, width), cls.padded(node, gy, height)
            if node.mode == "nearest":
                out = cls.sample(node, data, np.rint(gy), np.rint(gx))
            else:
                bx, by = np.floor(gx), np.floor(gy)
                fx, fy = (gx - bx)[:, None], (gy - by)[:, None]
                out = sum(wy * wx * cls.sample(node, data, by + i, bx + j)
                          for i, wy in ((0, 1 - fy), (1, fy)) for j, wx in ((0, 1 - fx), (1, fx)))
        return out.astype(x.dtype)

    @staticmethod
    def unnormalize(node, coord: np.ndarray, size: int) -> np.ndarray:
        one, two = np.ones((), coord.dtype), np.asarray(2, coord.dtype)
        if node.align_corners:
            return (coord + one) / two * np.asarray(size - 1, coord.dtype)
        return ((coord + one) * np.asarray(size, coord.dtype) - one) / two

    @staticmethod
    def padded(node, coord: np.ndarray, size: int) -> np.ndarray:
        """A coordinate moved into the image by the border or reflection padding."""
        if node.padding_mode == "border":
            return np.clip(coord, 0, size - 1)
        if node.padding_mode == "reflection":
            low, high = (0.0, size - 1.0) if node.align_corners else (-0.5, size - 0.5)
            span = high - low
            if span <= 0:
                return np.zeros_like(coord)
            distance = np.abs(coord - low)
            flips = np.floor(distance / span)
            rest = distance - flips * span
            return np.clip(np.where(flips % 2 == 0, low + rest, high - rest), 0, size - 1)
        return coord

    @classmethod
    def sample(cls, node, data: np.ndarray, row: np.ndarray, col: np.ndarray) -> np.ndarray:
        """data [N, C, H, W] at integral positions [N, Ho, Wo] -> [N, C, Ho, Wo] (after the
        padding mode; zero outside the image)."""
        height, width = data.shape[2:]
        row, col = cls.padded(node, row, height), cls.padded(node, col, width)
        inside = (row >= 0) & (row < height) & (col >= 0) & (col < width)
        rows, cols = np.clip(row, 0, height - 1).astype(np.int64), np.clip(col, 0, width - 1).astype(np.int64)
        values = data[np.arange(data.shape[0])[:, None, None], :, rows, cols]       # [N, Ho, Wo, C]
        return np.moveaxis(np.where(inside[..., None], values, 0), -1, 1)

    @classmethod
    def infer_shapes(cls, node):
        x, grid = node.in_shape(0), node.in_shape(1)
        batch, channels = (DYN, DYN) if x is None else x[:2]
        spatial = (DYN, DYN) if grid is None else tuple(grid[1:-1])
        return [(batch, channels, *spatial)]
