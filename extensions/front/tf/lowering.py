"""Base class of the TensorFlow front lowerings: they run after control flow is converted, so
they also lower what the loop and branch bodies hold."""
from __future__ import annotations

from extensions.front.tf.control_flow import TfIfToOpset, TfWhileToLoop
from mo.pipeline.transform import ReplaceOp


class TfLowering(ReplaceOp):
    """A front ReplaceOp of a TensorFlow op, for TensorFlow graphs only."""

    abstract = True
    frameworks = ("tf",)

    def run_after(self):
        return [TfWhileToLoop, TfIfToOpset]
