"""Base class of the TensorFlow front lowerings: they run after control flow is converted, so
they also lower what the loop and branch bodies hold."""
from __future__ import annotations

from extensions.front.tf.checks import CheckTfLowered
from extensions.front.tf.control_flow import TfIfToOpset, TfWhileToLoop
from mo.pipeline.transform import ReplaceOp


class TfLowering(ReplaceOp):
    """A front ReplaceOp of a ``tf::`` op, for TensorFlow graphs only; the check that nothing is
    left unlowered comes after every one of them."""

    abstract = True
    frameworks = ("tf",)

    def run_after(self):
        return [TfWhileToLoop, TfIfToOpset]

    def run_before(self):
        return [CheckTfLowered]
