"""Extractors of TensorFlow's functional control flow (While, If) and of the TensorList
operations loops over sequences use."""
from __future__ import annotations

from extensions.load.tf.attributes import TfExtractor
from extensions.ops.tf_internal import TfIf, TfTensorList, TfWhile


class WhileExtractor(TfExtractor):
    op_types = ("While", "StatelessWhile")

    @classmethod
    def extract(cls, node):
        TfWhile.update_node(node, {"num_outputs": len(node.in_ports())})


class IfExtractor(TfExtractor):
    op_types = ("If", "StatelessIf")

    @classmethod
    def extract(cls, node):
        TfIf.update_node(node, {"num_outputs": len(cls.attr(node, "Tout", []) or [])})


class TensorListExtractor(TfExtractor):
    op_types = ("TensorListReserve", "TensorListFromTensor", "TensorListStack", "TensorListGetItem",
                "TensorListSetItem", "EmptyTensorList")

    @classmethod
    def extract(cls, node):
        TfTensorList.update_node(node)
