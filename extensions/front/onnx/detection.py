"""Front lowering of ONNX NonMaxSuppression."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp

# Values of absent optional inputs: no box selected, any overlap suppresses, no score filter.
NMS_DEFAULTS = {2: np.array(0, np.int64), 3: np.array(0, np.float32), 4: np.array(np.finfo(np.float32).min)}


class NonMaxSuppressionToOpset(ReplaceOp):
    """NonMaxSuppression -> NonMaxSuppression-9 (its selected_indices output), boxes kept in
    batch, class, score order; absent optional inputs get ONNX's defaults. ONNX suppresses a box
    whose IoU is above the threshold and the opset op one whose IoU reaches it, so the threshold
    is raised by a few ulps (and 0 to the smallest normal float)."""

    op = "onnx::NonMaxSuppression"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        inputs = [node.in_port(i).get_source() if node.is_in_port_connected(i) else NMS_DEFAULTS[i]
                  for i in range(5)]
        inputs[3] = b.Add(b.Multiply(inputs[3], np.float32(1 + 2 ** -22)), np.float32(np.finfo(np.float32).tiny))
        selected, _, _ = b.NonMaxSuppression(*inputs, name=node.name, sort_result_descending=False, output_type="i64",
                                             box_encoding="center" if node.center_point_box else "corner")
        return [selected]
