"""Constants typed like a tensor whose element type the front phase does not know yet.

``scalar_like(b, 0.5, x)`` is ConvertLike(0.5, x): once types are known it becomes a Convert
(``extensions/middle/saturate_cast.py``) and constant folding turns it into a Const of x's type."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder


def scalar_like(b: OpBuilder, value: float, like):
    """A scalar ``value`` with the element type of ``like`` (an output port)."""
    return b.ConvertLike(np.array(value, np.float32), like)
