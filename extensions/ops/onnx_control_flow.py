"""ONNX Loop and Scan as extracted, until the front phase turns them into Loop and
TensorIterator with port maps."""
from __future__ import annotations

from mo.ops.internal import FrontOnlyOp


class OnnxLoop(FrontOnlyOp):
    """ONNX Loop: inputs M (trip count), cond, loop-carried values, then the tensors the body
    reads from the enclosing graph; body ``body``."""

    op = "onnx::Loop"


class OnnxScan(FrontOnlyOp):
    """ONNX Scan: ``num_scan_inputs``, per scan input/output ``*_axes`` and ``*_directions``;
    ``batched`` for opset 8 (a leading batch axis and an optional sequence_lens input 0)."""

    op = "onnx::Scan"
