"""TensorFlow pass-through operations (Identity, IdentityN, StopGradient...).

The pass-through ops are removed by a front rewrite, not translated: the control-flow rewrites
(extensions/front/tf/control_flow.py) read loop bodies and the TensorLists around loops
structurally and must not find an Identity in between. Their extractor leaves them framework ops
(``tf:Identity``...) for that rewrite."""
from __future__ import annotations

from extensions.load.tf.attributes import TfExtractor
from mo.pipeline.extract import framework_op_name, mark_framework_op
from mo.pipeline.transform import Transform, replace_outputs

PASS_THROUGH = ("Identity", "IdentityN", "StopGradient", "Snapshot", "PreventGradient", "EnsureShape",
                "CheckNumerics", "CheckNumericsV2", "PlaceholderWithDefault", "ReadVariableOp", "Assert")


class PassThroughExtractor(TfExtractor):
    """Output i is input i; PlaceholderWithDefault is its default value (name it with --input to
    make it a model input); ReadVariableOp reads a variable that freezing made a constant; Assert
    has no outputs and goes (the loader seldom builds it: only control dependencies read it)."""

    op_types = PASS_THROUGH

    @classmethod
    def extract(cls, node):
        mark_framework_op(node, "tf", node.fw_op)


class RemoveTfIdentity(Transform):
    """Consumers of output i read input i directly; the output's tensor names move there."""

    frameworks = ("tf",)
    ops = tuple(framework_op_name("tf", t) for t in PASS_THROUGH)

    def find_and_replace_pattern(self, graph) -> None:
        for op in self.ops:
            for node in graph.nodes_by_op(op):
                replace_outputs(node, [node.in_port(i).get_source() for i in sorted(node.in_ports())])
