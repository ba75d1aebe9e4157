"""Extractors of ONNX DFT, STFT, the window functions and MelWeightMatrix."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import element_type_of
from extensions.ops.onnx_signal_internal import OnnxDFT, OnnxMelWeightMatrix, OnnxSTFT, OnnxWindow

# Cosine-sum coefficients (a0, a1, a2) of the ONNX windows.
WINDOWS = {"HannWindow": (0.5, 0.5, 0.0), "HammingWindow": (25 / 46, 21 / 46, 0.0),
           "BlackmanWindow": (0.42, 0.5, 0.08)}


def output_type(ext, node) -> str:
    return element_type_of(int(ext.attr(node, "output_datatype", 1)), f" of node '{node.name}'")


class DFTExtractor(OnnxExtractor):
    op_types = ("DFT",)

    @classmethod
    def extract(cls, node):
        OnnxDFT.update_node(node, {"inverse": bool(cls.attr(node, "inverse", 0)),
                                   "onesided": bool(cls.attr(node, "onesided", 0)),
                                   "axis": int(cls.attr(node, "axis", 1)) if node.opset < 20 else None})


class STFTExtractor(OnnxExtractor):
    op_types = ("STFT",)

    @classmethod
    def extract(cls, node):
        OnnxSTFT.update_node(node, {"onesided": bool(cls.attr(node, "onesided", 1))})


class WindowExtractor(OnnxExtractor):
    op_types = tuple(WINDOWS)

    @classmethod
    def extract(cls, node):
        OnnxWindow.update_node(node, {"coefficients": WINDOWS[node.fw_op],
                                      "periodic": bool(cls.attr(node, "periodic", 1)),
                                      "output_type": output_type(cls, node)})


class MelWeightMatrixExtractor(OnnxExtractor):
    op_types = ("MelWeightMatrix",)

    @classmethod
    def extract(cls, node):
        OnnxMelWeightMatrix.update_node(node, {"output_type": output_type(cls, node)})
