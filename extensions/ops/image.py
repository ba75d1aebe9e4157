"""Image operations: ExtractImagePatches."""
from __future__ import annotations

from extensions.ops.convolution import conv_output_dim, window_pads, windows
from mo.ops.op import Op


class ExtractImagePatches(Op):
    """Patches of ``sizes`` [rows, cols], ``strides`` apart, sampled every ``rates`` pixels, of
    data [N, C, H, W] -> [N, rows * cols * C, out_rows, out_cols], each patch's values ordered
    (row, col, channel); ``auto_pad`` valid, same_upper or same_lower (zeros)."""

    op = "ExtractImagePatches"
    version = "opset3"
    defaults = {"sizes": None, "strides": None, "rates": None, "auto_pad": "valid"}
    ir_attrs = ("sizes", "strides", "rates", "auto_pad")

    @classmethod
    def infer_shapes(cls, node):
        x = node.in_shape(0)
        if x is None:
            return [None]
        if len(x) != 4:
            raise ValueError(f"ExtractImagePatches takes data of rank 4, not {len(x)}")
        rows, cols = node.sizes
        depth = -1 if x[1] < 0 else rows * cols * x[1]
        out = [conv_output_dim(x[2 + i], node.sizes[i], node.strides[i], node.rates[i], 0, 0, node.auto_pad)
               for i in range(2)]
        return [(x[0], depth, *out)]

    @classmethod
    def evaluate(cls, node, x):
        out = cls.infer_shapes(node)[0][2:]
        pads_begin, _ = window_pads(node, x.shape[2:], node.sizes, node.strides, node.rates)
        win = windows(x, out, node.sizes, node.strides, node.rates, pads_begin)      # [N, C, oh, ow, kh, kw]
        n, c, oh, ow, kh, kw = win.shape
        return win.transpose(0, 4, 5, 1, 2, 3).reshape(n, kh * kw * c, oh, ow)
