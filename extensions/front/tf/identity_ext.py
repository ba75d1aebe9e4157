"""Extractors of the TensorFlow operations that pass their inputs through (Identity, IdentityN,
StopGradient, PlaceholderWithDefault...) or do nothing with data (NoOp)."""
from __future__ import annotations

from extensions.load.tf.attributes import TfExtractor
from extensions.ops.tf_internal import TfIdentity, TfNoOp


class IdentityExtractor(TfExtractor):
    """Output i is input i; PlaceholderWithDefault is its default value (name it with --input to
    make it a model input); ReadVariableOp reads a variable that freezing made a constant."""

    op_types = ("Identity", "IdentityN", "StopGradient", "Snapshot", "PreventGradient", "EnsureShape",
                "CheckNumerics", "PlaceholderWithDefault", "ReadVariableOp")

    @classmethod
    def extract(cls, node):
        TfIdentity.update_node(node, {"num_outputs": max(len(node.in_ports()), 1)})


class NoOpExtractor(TfExtractor):
    op_types = ("NoOp",)

    @classmethod
    def extract(cls, node):
        TfNoOp.update_node(node)
