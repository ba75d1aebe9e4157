"""Moving data between depth and space: DepthToSpace-1, SpaceToDepth-1, Col2Im-15."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import DYN


def depth_to_space(x: np.ndarray, bs: int, mode: str) -> np.ndarray:
    """[N, C * bs^K, D1..DK] -> [N, C, D1 * bs, ..., DK * bs]."""
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    k = len(spatial)
    depth = c // bs ** k
    if mode == "blocks_first":
        x = x.reshape((n,) + (bs,) * k + (depth,) + spatial)
        order = [0, k + 1] + [j for i in range(k) for j in (k + 2 + i, 1 + i)]
    else:
        x = x.reshape((n, depth) + (bs,) * k + spatial)
        order = [0, 1] + [j for i in range(k) for j in (2 + k + i, 2 + i)]
    return x.transpose(order).reshape((n, depth) + tuple(d * bs for d in spatial))


def space_to_depth(x: np.ndarray, bs: int, mode: str) -> np.ndarray:
    """[N, C, D1..DK] -> [N, C * bs^K, D1 / bs, ..., DK / bs]."""
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    k = len(spatial)
    x = x.reshape((n, c) + tuple(v for d in spatial for v in (d // bs, bs)))
    blocks = [3 + 2 * i for i in range(k)]
    reduced = [2 + 2 * i for i in range(k)]
    order = [0] + blocks + [1] + reduced if mode == "blocks_first" else [0, 1] + blocks + reduced
    return x.transpose(order).reshape((n, c * bs ** k) + tuple(d // bs for d in spatial))


class _BlockRearrange(Op):
    abstract = True
    defaults = {"mode": "blocks_first", "block_size": 1}
    ir_attrs = ("block_size", "mode")
    to_space = True

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None]
        bs = node.block_size
        k = len(shape) - 2
        n, c, spatial = shape[0], shape[1], shape[2:]
        if cls.to_space:
            if c >= 0 and c % bs ** k:
                raise ValueError(f"channels {c} do not divide by block_size^{k}")
            return [(n, DYN if c < 0 else c // bs ** k) + tuple(DYN if d < 0 else d * bs for d in spatial)]
        if any(d >= 0 and d % bs for d in spatial):
            raise ValueError(f"spatial dims {spatial} do not divide by block_size {bs}")
        return [(n, DYN if c < 0 else c * bs ** k) + tuple(DYN if d < 0 else d // bs for d in spatial)]


class DepthToSpace(_BlockRearrange):
    """Moves blocks of channels into spatial blocks (``mode`` blocks_first = ONNX DCR,
    depth_first = CRD)."""

    op = "DepthToSpace"

    @classmethod
    def evaluate(cls, node, x):
        return depth_to_space(x, node.block_size, node.mode)


class SpaceToDepth(_BlockRearrange):
    """Moves spatial blocks into channels; the inverse of DepthToSpace."""

    op = "SpaceToDepth"
    to_space = False

    @classmethod
    def evaluate(cls, node, x):
        return space_to_depth(x, node.block_size, node.mode)


class Col2Im(Op):
    """Sums sliding 2-D blocks ([N, C * kh * kw, L]) into an image [N, C, H, W] of output_size
    (input 1) with kernel_size (input 2), strides, dilations and pads."""

    op = "Col2Im"
    version = "opset15"
    defaults = {"strides": [1, 1], "dilations": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0]}
    ir_attrs = ("strides", "dilations", "pads_begin", "pads_end")

    @classmethod
    def evaluate(cls, node, x, size, kernel):
        """Block l (row-major over the block grid) of column c * kh * kw + i * kw + j adds to
        padded image position (row * stride + i * dilation, col * stride + j * dilation)."""
        (h, w), (kh, kw) = [int(v) for v in size.reshape(-1)], [int(v) for v in kernel.reshape(-1)]
        (sh, sw), (dh, dw) = node.strides, node.dilations
        (bh, bw), (eh, ew) = node.pads_begin, node.pads_end
        rows = (h + bh + eh - dh * (kh - 1) - 1) // sh + 1
        cols = (w + bw + ew - dw * (kw - 1) - 1) // sw + 1
        blocks = x.reshape(x.shape[:-2] + (-1, kh, kw, rows, cols))
        image = np.zeros(x.shape[:-2] + (blocks.shape[-5], h + bh + eh, w + bw + ew), np.float64)
        for i in range(kh):
            for j in range(kw):
                image[..., i * dh:i * dh + (rows - 1) * sh + 1:sh, j * dw:j * dw + (cols - 1) * sw + 1:sw] += \
                    blocks[..., i, j, :, :]
        return image[..., bh:bh + h, bw:bw + w].astype(x.dtype)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        size, kernel = node.in_value(1), node.in_value(2)
        for port in (1, 2):
            if node.in_shape(port) not in (None, (2,)):
                raise ValueError(f"input {port} has shape {list(node.in_shape(port))}: Col2Im makes 2-D images only")
        if shape is None:
            return [None]
        spatial = (DYN, DYN) if size is None else tuple(int(s) for s in size.reshape(-1))
        c = shape[-2]
        if kernel is not None and c >= 0:
            c //= int(np.prod(kernel))
        elif kernel is None:
            c = DYN
        return [tuple(shape[:-2]) + (c,) + spatial]
