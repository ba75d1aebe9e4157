"""Lowering of the ATen operations that create tensors or change their type: to / type_as and
the scalar conversions, copies and fills, zeros / ones / full / empty (and their _like and new_
forms), arange, and the size queries (size, dim, numel, len, list indexing)."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import (
    AtenOp,
    category,
    const,
    convert,
    dim_size,
    int_list_port,
    norm_axis,
    rank_of,
    shape_of,
)
from extensions.load.pytorch.schema import is_dtype_type
from extensions.load.pytorch.types import element_type_of_dtype, scalar_type_code
from mo.errors import ConversionError

# tensor methods that convert to a fixed type
FIXED_TYPES = {"aten::float": "f32", "aten::double": "f64", "aten::half": "f16", "aten::long": "i64",
               "aten::int": "i32", "aten::short": "i16", "aten::char": "i8", "aten::byte": "u8",
               "aten::bool": "boolean", "aten::bfloat16": "bf16", "aten::Int": "i64", "aten::Float": "f32",
               "aten::Bool": "boolean", "aten::IntImplicit": "i64", "aten::FloatImplicit": "f32"}
IDENTITIES = ("aten::contiguous", "aten::clone", "aten::detach", "aten::alias", "aten::lift_fresh",
              "aten::lift_fresh_copy", "aten::dropout", "aten::feature_dropout", "aten::alpha_dropout",
              "aten::ScalarImplicit", "aten::lift", "aten::_unsafe_view_as", "aten::resolve_conj",
              "aten::resolve_neg", "aten::positive", "prim::data", "aten::cpu", "aten::cuda", "aten::pin_memory",
              "aten::requires_grad_", "aten::set_grad_enabled", "aten::native_dropout", "aten::item",
              "aten::_local_scalar_dense")
FILLS = {"aten::zeros": 0, "aten::ones": 1, "aten::empty": 0, "aten::full": None, "aten::zeros_like": 0,
         "aten::ones_like": 1, "aten::empty_like": 0, "aten::full_like": None, "aten::new_zeros": 0,
         "aten::new_ones": 1, "aten::new_empty": 0, "aten::new_full": None, "aten::empty_strided": 0,
         "aten::new_empty_strided": 0, "aten::scalar_tensor": None, "aten::rand_like": 0}


def _given_dtype(a) -> str | None:
    """The element type a ``dtype`` argument names, if any."""
    for i, t in enumerate(a.types):
        if is_dtype_type(t):
            value = a.const(i, None)
            if value is not None:
                return value if isinstance(value, str) else element_type_of_dtype(value)
    return None


class AtenConvert(AtenOp):
    """to / _to_copy / type_as / .float() ... and the scalar conversions Int, Float, Bool."""

    op = "pytorch::Convert"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        kind = node.fw_op
        if kind in FIXED_TYPES:
            et = FIXED_TYPES[kind]
        elif kind == "aten::type_as" or (len(a.types) > 1 and a.types[1] == "Tensor"):
            et = a.tensor(1).data.get_dtype()
        else:
            et = _given_dtype(a)
        if et is None or et == x.data.get_dtype():
            return [x]
        return [convert(b, x, et)]


class AtenIdentity(AtenOp):
    """Operations that give their input's values: copies, views for layout, dropout at inference."""

    op = "pytorch::Identity"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        if node.fw_op == "aten::native_dropout":
            return [x, b.Broadcast(b.const(np.array(True)), shape_of(b, x))]
        if node.fw_op in ("aten::item", "aten::_local_scalar_dense") and x.data.get_rank() != 0:
            return [b.Reshape(x, b.const(np.array([], np.int64)), special_zero=False)]
        return [x]


class AtenCopy(AtenOp):
    """Functional forms of the in-place writes: copy(self, src), fill(self, value), zero(self):
    the new value in self's type and shape."""

    op = "pytorch::Copy"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        et = x.data.get_dtype()
        if node.fw_op == "aten::zero":
            value = const(b, 0, et)
        else:
            value = convert(b, a.tensor(1), et)
        return [b.Broadcast(value, shape_of(b, x))]


class AtenFull(AtenOp):
    """zeros / ones / full / empty (empty as zeros) of a size or of another tensor's shape."""

    op = "pytorch::Full"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        fill = FILLS[kind]
        et = _given_dtype(a)
        if kind == "aten::scalar_tensor":
            value = a.tensor(0)
            return [convert(b, value, et or "f32")]
        like = kind.endswith("_like") or kind.startswith("aten::new_")
        if fill is None and et is None and not like:
            value = a.tensor("fill_value")
            et = value.data.get_dtype()
            if a.is_weak("fill_value"):
                et = {0: "boolean", 1: "i64", 2: "f32"}[category(et)]
        if et is None:
            et = a.tensor(0).data.get_dtype() if like else "f32"
        value = const(b, fill, et) if fill is not None else convert(b, a.tensor("fill_value"), et)
        if kind.endswith("_like"):
            shape = shape_of(b, a.tensor(0))
        else:
            size = a.int_list("size")
            shape = int_list_port(b, size)
        return [b.Broadcast(value, shape)]


class AtenTensor(AtenOp):
    """torch.tensor(data) of numbers (constant or computed)."""

    op = "pytorch::Tensor"

    @classmethod
    def build(cls, node, a, b):
        et = _given_dtype(a)
        data = a.value(0)
        if data is not None:
            if et is None:
                et = {"b": "boolean", "i": "i64", "u": "i64", "f": "f32"}[data.dtype.kind]
            return [const(b, data, et)]
        items = a.tensors(0)
        if not items:
            raise ConversionError(f"torch.tensor of computed data is not supported ({node.name}).")
        if et is None:
            et = "f32" if any(p.data.get_dtype() in ("f32", "f64", "f16") for p in items) else "i64"
        parts = [b.Reshape(convert(b, p, et), b.const(np.array([1], np.int64)), special_zero=False) for p in items]
        return [parts[0] if len(parts) == 1 else b.Concat(*parts, axis=0)]


class AtenArange(AtenOp):
    """arange(end), arange(start, end[, step]): i64 unless a bound is a float or dtype says."""

    op = "pytorch::Arange"

    @classmethod
    def build(cls, node, a, b):
        names = set(a.names)
        start = a.tensor("start") if "start" in names else None
        end = a.tensor("end")
        step = a.tensor("step") if "step" in names and not a.is_none("step") else None
        et = _given_dtype(a)
        bounds = [p for p in (start, end, step) if p is not None]
        if et is None:
            et = "f32" if any(p.data.get_dtype() in ("f32", "f64", "f16", "bf16") for p in bounds) else "i64"
        compute = "f32" if any(p.data.get_dtype() in ("f32", "f64", "f16", "bf16") for p in bounds) else "i64"
        start = convert(b, start, compute) if start is not None else const(b, 0, compute)
        step = convert(b, step, compute) if step is not None else const(b, 1, compute)
        seq = b.Range(start, convert(b, end, compute), step, output_type=compute)
        return [convert(b, seq, et)]


class AtenDtype(AtenOp):
    """prim::dtype(x): x's type as the ScalarType code TorchScript passes as a dtype argument."""

    op = "pytorch::Dtype"

    @classmethod
    def build(cls, node, a, b):
        return [b.const(np.int64(scalar_type_code(a.tensor(0).data.get_dtype())))]


class AtenSize(AtenOp):
    """size(self[, dim]) / sym_size, dim, numel, len, and indexing of computed int lists."""

    op = "pytorch::Size"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        if kind in ("aten::size", "aten::sym_size"):
            if a.has("dim") and not a.is_none("dim"):
                dim = a.const("dim")
                return [dim_size(b, x, norm_axis(dim, rank_of(x, node), node))]
            return [shape_of(b, x)]
        if kind == "aten::dim":
            return [b.const(np.int64(rank_of(x, node)))]
        if kind in ("aten::numel", "aten::sym_numel"):
            return [b.ReduceProd(shape_of(b, x), b.const(np.array([0], np.int64)), keep_dims=False)]
        if kind == "aten::len":
            return [dim_size(b, x, 0)]
        # __getitem__ of a computed int list (a 1-D tensor)
        index = a.tensor(1)
        return [b.Gather(x, convert(b, index, "i64"), b.const(np.int64(0)))]
