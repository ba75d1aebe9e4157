"""Internal op of ONNX TensorScatter (KV-cache update), lowered in the middle phase."""
from __future__ import annotations

from mo.ops.op import Op


class OnnxTensorScatter(Op):
    """present = past_cache with ``update`` written along ``axis`` at write_indices[batch] (+ i),
    modulo the cache length in ``circular`` mode. Same shape and type as the cache."""

    op = "onnx::TensorScatter"
    type = None
    defaults = {"axis": -2, "mode": "linear"}

    @classmethod
    def infer_shapes(cls, node):
        return [node.in_shape(0)]
