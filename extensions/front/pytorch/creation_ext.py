"""Extractor of the ATen operations that create tensors, change their type or read sizes."""
from __future__ import annotations

from extensions.front.pytorch import creation as cr
from extensions.load.pytorch.arguments import PyTorchExtractor


class CreationExtractor(PyTorchExtractor):
    """Tensor creation, type conversion, copies and size queries."""

    lowerings = {
        cr.AtenConvert: ("aten::to", "aten::_to_copy", "aten::type_as") + tuple(cr.FIXED_TYPES),
        cr.AtenIdentity: cr.IDENTITIES,
        cr.AtenCopy: ("aten::copy", "aten::fill", "aten::zero"),
        cr.AtenFull: tuple(cr.FILLS),
        cr.AtenTensor: ("aten::tensor", "aten::as_tensor"),
        cr.AtenArange: ("aten::arange",),
        cr.AtenDtype: ("prim::dtype",),
        cr.AtenSize: ("aten::size", "aten::sym_size", "aten::dim", "aten::numel", "aten::sym_numel", "aten::len",
                      "aten::__getitem__"),
    }
