"""Operations that only TorchScript records: the loop index helpers ``__derive_index`` /
``__range_length``, ``_set_item`` on a list held as a tensor, ``wait`` of a forked call (scripted
code), and ``prim::PythonOp``, a Python autograd Function called in a traced model, refused with
what to do. The decoder computes them itself when their arguments are Python values (see
``extensions/load/pytorch/torchscript.py``); these translators handle values the model computes.
"""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import scalar_int
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import convert, i64


def _int(a, b, key):
    value = a.value(key)
    return scalar_int(b, int(value) if value is not None else a.tensor(key))


def _floor_divide(b, x, y):
    """Python's // of i64 scalars (the exact quotient of x minus its floor remainder)."""
    return b.Divide(b.Subtract(x, b.FloorMod(x, y)), y)


@aten("aten::__derive_index")
def derive_index(node, a, b):
    """The loop variable of ``for i in range(start, stop, step)`` at iteration ``index``:
    start + index * step."""
    return [b.Add(_int(a, b, "start"), b.Multiply(_int(a, b, "index"), _int(a, b, "step")))]


@aten("aten::__range_length")
def range_length(node, a, b):
    """len(range(lo, hi, step)): ceil((hi - lo) / step), at least 0."""
    lo, hi, step = (_int(a, b, k) for k in ("lo", "hi", "step"))
    count = b.Negative(_floor_divide(b, b.Subtract(lo, hi), step))
    return [b.Maximum(count, b.const(np.int64(0)))]


@aten("aten::_set_item")
def set_item(node, a, b):
    """list[idx] = el of an int list the model computes (a 1-D tensor): ScatterUpdate of one
    element (a negative index counts from the end)."""
    items = a.tensor(0)
    if items.data.get_rank() != 1:
        raise ConversionError("Assigning an item of a list of tensors by a computed index is not supported.")
    index = _int(a, b, 1)
    size = b.Gather(b.ShapeOf(items, output_type="i64"), np.int64(0), np.int64(0))
    index = b.Select(b.Less(index, b.const(np.int64(0))), b.Add(index, size), index)
    value = b.Reshape(convert(b, a.tensor(2), items.data.get_dtype()), i64(1), special_zero=False)
    return [b.ScatterUpdate(items, b.Reshape(index, i64(1), special_zero=False), value, b.const(np.int64(0)))]


@aten("aten::wait", "aten::list")
def wait(node, a, b):
    """wait: the result of a forked call (decoded in place, so already computed); list: a copy
    of an int list the model computes (a 1-D tensor)."""
    return [a.tensor(0)]


@aten("prim::PythonOp")
def python_op(node, a, b):
    """A torch.autograd.Function's forward is Python code TorchScript keeps opaque: refused, naming
    the class and what converts instead (a user translator for prim::PythonOp can read the class
    name from ``python_class``)."""
    name = node.get("python_class") or "?"
    raise ConversionError(
        f"it calls the Python autograd Function {name} (prim::PythonOp), whose forward TorchScript records as "
        f"opaque Python code. Convert the module with torch.export instead of tracing it (export traces through "
        f"the Function's forward), or register the computation as a custom operator with torch.library "
        f"(torch.library.custom_op) and give mo a translator for it with --extensions.")
