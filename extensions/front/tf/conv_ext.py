"""Extractors of the TensorFlow convolutions and poolings (attributes kept in TensorFlow's form,
in data_format order; extensions/front/tf/conv_to_opset.py reads them)."""
from __future__ import annotations

from extensions.load.tf.attributes import TfExtractor
from extensions.ops.tf_internal import TfConv, TfConvBackpropInput, TfPool


def window_attrs(ext, node, rank: int) -> dict:
    return {
        "strides": ext.attr(node, "strides") or [1] * rank,
        "dilations": ext.attr(node, "dilations") or [1] * rank,
        "padding": ext.attr(node, "padding", "VALID"),
        "explicit_paddings": ext.attr(node, "explicit_paddings") or [],
        "data_format": ext.data_format(node, "NHWC" if rank == 4 else "NDHWC"),
        "rank": rank,
    }


class ConvExtractor(TfExtractor):
    op_types = ("Conv2D", "Conv3D", "DepthwiseConv2dNative")

    @classmethod
    def extract(cls, node):
        rank = 5 if node.fw_op == "Conv3D" else 4
        TfConv.update_node(node, {**window_attrs(cls, node, rank), "depthwise": node.fw_op == "DepthwiseConv2dNative"})


class ConvBackpropInputExtractor(TfExtractor):
    op_types = ("Conv2DBackpropInput", "Conv3DBackpropInputV2")

    @classmethod
    def extract(cls, node):
        rank = 5 if node.fw_op.startswith("Conv3D") else 4
        TfConvBackpropInput.update_node(node, window_attrs(cls, node, rank))


class PoolExtractor(TfExtractor):
    op_types = ("MaxPool", "MaxPoolV2", "AvgPool", "MaxPool3D", "AvgPool3D")

    @classmethod
    def extract(cls, node):
        rank = 5 if node.fw_op.endswith("3D") else 4
        TfPool.update_node(node, {**window_attrs(cls, node, rank), "ksize": cls.attr(node, "ksize"),
                                  "pool": "max" if node.fw_op.startswith("Max") else "avg"})
