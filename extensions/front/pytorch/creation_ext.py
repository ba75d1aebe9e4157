"""Extractors of the ATen operations that create tensors, change their type or read sizes."""
from __future__ import annotations

from extensions.front.pytorch.creation import (
    FILLS,
    FIXED_TYPES,
    IDENTITIES,
    AtenArange,
    AtenConvert,
    AtenCopy,
    AtenFull,
    AtenIdentity,
    AtenSize,
    AtenTensor,
)
from extensions.load.pytorch.arguments import PyTorchExtractor


class ConvertExtractor(PyTorchExtractor):
    op_types = ("aten::to", "aten::_to_copy", "aten::type_as") + tuple(FIXED_TYPES)
    op_class = AtenConvert


class IdentityExtractor(PyTorchExtractor):
    op_types = IDENTITIES
    op_class = AtenIdentity


class CopyExtractor(PyTorchExtractor):
    op_types = ("aten::copy", "aten::fill", "aten::zero")
    op_class = AtenCopy


class FullExtractor(PyTorchExtractor):
    op_types = tuple(FILLS)
    op_class = AtenFull


class TensorExtractor(PyTorchExtractor):
    op_types = ("aten::tensor", "aten::as_tensor")
    op_class = AtenTensor


class ArangeExtractor(PyTorchExtractor):
    op_types = ("aten::arange",)
    op_class = AtenArange


class SizeExtractor(PyTorchExtractor):
    op_types = ("aten::size", "aten::sym_size", "aten::dim", "aten::numel", "aten::sym_numel", "aten::len",
                "aten::__getitem__")
    op_class = AtenSize
