"""Pooling: MaxPool (opset14, with indices), AvgPool (opset16), AdaptiveAvgPool, AdaptiveMaxPool."""
from __future__ import annotations

from extensions.ops.convolution import conv_output_dim, fill_window_defaults
from mo.ops.op import Op
from mo.utils.shape import DYN


class PoolBase(Op):
    abstract = True
    defaults = {"kernel": None, "strides": None, "pads_begin": None, "pads_end": None,
                "rounding_type": "floor", "auto_pad": "explicit", "dilations": None}

    @classmethod
    def node_attrs(cls, attrs):
        result = super().node_attrs(attrs)
        if result.get("dilations") is None and result.get("kernel") is not None:
            result["dilations"] = [1] * len(result["kernel"])
        return result

    @classmethod
    def ir_data(cls, node):
        return fill_window_defaults(node, {k: node.get(k) for k in cls.ir_attrs}, len(node.kernel))

    @classmethod
    def _out_shape(cls, node):
        x = node.in_shape(0)
        if x is None:
            return None
        kernel = node.kernel
        n = len(kernel)
        strides = node.strides or [1] * n
        dilations = node.dilations or [1] * n
        pb = node.pads_begin or [0] * n
        pe = node.pads_end or [0] * n
        ceil = node.rounding_type in ("ceil", "ceil_torch")
        spatial = []
        for i in range(n):
            d = conv_output_dim(x[2 + i], kernel[i], strides[i], dilations[i], pb[i], pe[i], node.auto_pad, ceil)
            if node.rounding_type == "ceil" and x[2 + i] >= 0 and node.auto_pad == "explicit":
                eff = dilations[i] * (kernel[i] - 1) + 1
                d = -(-(x[2 + i] + pb[i] + pe[i] - eff) // strides[i]) + 1
            spatial.append(d)
        return (x[0], x[1], *spatial)


class MaxPool(PoolBase):
    """Max pooling with a second output: flat indices of the maxima (``index_element_type``)."""

    op = "MaxPool"
    version = "opset14"
    defaults = {**PoolBase.defaults, "index_element_type": "i64", "axis": 0}
    ir_attrs = ("strides", "dilations", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad",
                "index_element_type", "axis")
    num_outputs = 2

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(0))
        node.out_port(1).data.set_dtype(node.index_element_type)

    @classmethod
    def infer_shapes(cls, node):
        shape = cls._out_shape(node)
        return [shape, shape]


class AvgPool(PoolBase):
    op = "AvgPool"
    version = "opset16"
    defaults = {**PoolBase.defaults, "exclude-pad": True}
    ir_attrs = ("kernel", "strides", "pads_begin", "pads_end", "exclude-pad", "auto_pad", "rounding_type",
                "dilations")

    @classmethod
    def infer_shapes(cls, node):
        return [cls._out_shape(node)]


class AdaptiveAvgPool(Op):
    op = "AdaptiveAvgPool"
    version = "opset8"

    @classmethod
    def infer_shapes(cls, node):
        x = node.in_shape(0)
        size = node.in_value(1)
        if x is None:
            return [None]
        if size is None:
            return [(x[0], x[1]) + (DYN,) * (len(x) - 2)]
        return [(x[0], x[1], *[int(s) for s in size.reshape(-1)])]


class AdaptiveMaxPool(AdaptiveAvgPool):
    op = "AdaptiveMaxPool"
    version = "opset8"
    defaults = {"index_element_type": "i64"}
    ir_attrs = ("index_element_type",)
    num_outputs = 2

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(0))
        node.out_port(1).data.set_dtype(node.index_element_type)

    @classmethod
    def infer_shapes(cls, node):
        shape = super().infer_shapes(node)[0]
        return [shape, shape]
