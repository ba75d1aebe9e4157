"""ONNX convolution family: the window attributes shared by Conv, ConvTranspose, pooling and the
quantized convolutions."""
from __future__ import annotations


def spatial_rank(node, weights_port=None) -> int | None:
    """Number of spatial dims from the window attributes or constant weights."""
    for key in ("kernel", "strides", "dilations", "pads_begin"):
        if node.get(key):
            return len(node[key])
    if weights_port is not None:
        w = weights_port.data.get_value()
        if w is not None:
            return w.ndim - 2
    return None


def window(node) -> dict:
    return {k: node.get(k) for k in ("strides", "dilations", "pads_begin", "pads_end", "auto_pad")}


def kernel_shape(node, weights_port) -> list[int] | None:
    """Spatial kernel size from ``kernel_shape`` or the constant weights."""
    if node.get("kernel"):
        return list(node.kernel)
    w = weights_port.data.get_value()
    return None if w is None else list(w.shape[2:])
