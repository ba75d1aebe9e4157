"""Removal of the TensorFlow pass-through operations (Identity, IdentityN, StopGradient...) and
of NoOp, before anything else looks at the graph."""
from __future__ import annotations

from extensions.front.tf.checks import CheckTfLowered
from mo.pipeline.transform import ReplaceOp


class RemoveTfIdentity(ReplaceOp):
    """Consumers of output i read input i directly; the output's tensor names move there."""

    frameworks = ("tf",)
    op = "tf::Identity"

    def run_before(self):
        return [CheckTfLowered]

    def replace_op(self, graph, node):
        return [node.in_port(i).get_source() for i in sorted(node.in_ports())]


class RemoveTfNoOp(ReplaceOp):
    frameworks = ("tf",)
    op = "tf::NoOp"

    def run_before(self):
        return [CheckTfLowered]

    def replace_op(self, graph, node):
        return []
