"""Sub-graph replacement example: a softmax the model computes by hand under one name scope
(Exp, ReduceSum, Divide named "head/softmax/...") becomes one Softmax op.

Driven by ``--transformations_config examples/transformations_config.json``, whose entry with
id "ManualSoftmax" names the scope and passes the axis as a custom attribute; without that
config the class does nothing (it has no default scope)."""
from mo.pipeline.subgraph import SubgraphReplacement


class ManualSoftmax(SubgraphReplacement):
    replacement_id = "ManualSoftmax"

    def replace_subgraph(self, b, match):
        (logits,) = match.inputs                  # the one tensor the scope reads from outside
        axis = int(match.attrs.get("axis", -1))   # "custom_attributes" of the config entry
        return [b.Softmax(logits, axis=axis)]     # one port per match.outputs
