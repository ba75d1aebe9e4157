"""ATen operations that create tensors or change their type: to / type_as and the scalar
conversions, copies and fills, zeros / ones / full / empty (and their _like and new_ forms),
arange, eye, linspace, tril_indices / triu_indices, and the size queries (size, dim, numel, len, list indexing,
_shape_as_tensor): their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import category, const, dim_size, scalar_int
from extensions.load.pytorch.arguments import aten
from extensions.load.pytorch.schema import is_dtype_type
from extensions.load.pytorch.types import COMPLEX_PARTS, element_type_of_dtype, scalar_type_code
from mo.errors import ConversionError
from mo.graph.building import as_scalar, convert, i64, int_list_port, norm_axis, rank_of, shape_of, to_complex

# tensor methods that convert to a fixed type
FIXED_TYPES = {"aten::float": "f32", "aten::double": "f64", "aten::half": "f16", "aten::long": "i64",
               "aten::int": "i32", "aten::short": "i16", "aten::char": "i8", "aten::byte": "u8",
               "aten::bool": "boolean", "aten::bfloat16": "bf16", "aten::Int": "i64", "aten::Float": "f32",
               "aten::Bool": "boolean", "aten::IntImplicit": "i64", "aten::FloatImplicit": "f32",
               "aten::chalf": "complex32", "aten::cfloat": "complex64", "aten::cdouble": "complex128"}
# operations that give their input's values: copies, views for layout, dropout at inference
IDENTITIES = ("aten::contiguous", "aten::clone", "aten::detach", "aten::alias", "aten::lift_fresh",
              "aten::lift_fresh_copy", "aten::dropout", "aten::feature_dropout", "aten::alpha_dropout",
              "aten::ScalarImplicit", "aten::lift", "aten::_unsafe_view_as", "aten::resolve_conj",
              "aten::resolve_neg", "aten::positive", "prim::data", "aten::cpu", "aten::cuda", "aten::pin_memory",
              "aten::requires_grad_", "aten::set_grad_enabled", "aten::alias_copy", "aten::feature_alpha_dropout")
# tensors of a size filled with a constant (empty as zeros)
FILLED = {"aten::zeros": 0, "aten::ones": 1, "aten::empty": 0, "aten::empty_strided": 0, "aten::empty_permuted": 0}
# the same of another tensor's shape and type (rand_like: extensions/front/pytorch/random.py)
FILLED_LIKE = {"aten::zeros_like": 0, "aten::ones_like": 1, "aten::empty_like": 0}
# the same of a size in another tensor's type
FILLED_NEW = {"aten::new_zeros": 0, "aten::new_ones": 1, "aten::new_empty": 0, "aten::new_empty_strided": 0}
_FLOATS = ("f32", "f64", "f16", "bf16")


def _given_dtype(a) -> str | None:
    """The element type a ``dtype`` argument names, if any."""
    for i, t in enumerate(a.types):
        if is_dtype_type(t):
            value = a.const(i, None)
            if value is not None:
                return value if isinstance(value, str) else element_type_of_dtype(value)
    return None


# ---------------------------------------------------------------------------- conversions, copies


def _as_type(b, x, et: str | None):
    if et in COMPLEX_PARTS:      # to a complex type: [..., 2] pairs (extensions/front/pytorch/complex.py)
        return to_complex(b, x, COMPLEX_PARTS[et])
    return x if et is None or et == x.data.get_dtype() else convert(b, x, et)


@aten(*FIXED_TYPES)
def to_fixed_type(node, a, b):
    """.float(), .long(), .bool() ... and the scalar conversions Int, Float, Bool."""
    return [_as_type(b, a.tensor(0), FIXED_TYPES[node.fw_op])]


@aten("aten::to", "aten::_to_copy")
def to(node, a, b):
    """to(dtype) / to(other tensor) (device and copy arguments do not matter)."""
    x = a.tensor(0)
    if len(a.types) > 1 and a.types[1] == "Tensor":
        return [_as_type(b, x, a.tensor(1).data.get_dtype())]
    return [_as_type(b, x, _given_dtype(a))]


@aten("aten::type_as")
def type_as(node, a, b):
    return [_as_type(b, a.tensor(0), a.tensor(1).data.get_dtype())]


@aten(*IDENTITIES)
def identity(node, a, b):
    return [a.tensor(0)]


@aten("aten::native_dropout")
def native_dropout(node, a, b):
    """Inference: the input and an all-true mask."""
    x = a.tensor(0)
    return [x, b.Broadcast(b.const(np.array(True)), shape_of(b, x))]


@aten("aten::item", "aten::_local_scalar_dense")
def item(node, a, b):
    """The one element of a tensor as a 0-d tensor of the Python number PyTorch gives: i64 for
    integers, f64 for floating point, bool for booleans."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    x = x if x.data.get_rank() == 0 else as_scalar(b, x)
    return [x if et == "boolean" else convert(b, x, "f64" if et in _FLOATS else "i64")]


@aten("aten::is_nonzero")
def is_nonzero(node, a, b):
    """Whether the one element of a tensor is not zero (a 0-d boolean)."""
    x = a.tensor(0)
    return [convert(b, x if x.data.get_rank() == 0 else as_scalar(b, x), "boolean")]


@aten("aten::copy", "aten::fill")
def copy(node, a, b):
    """copy(self, src) / fill(self, value), the functional forms of the in-place writes: the new
    value in self's type and shape."""
    x = a.tensor(0)
    return [b.Broadcast(convert(b, a.tensor(1), x.data.get_dtype()), shape_of(b, x))]


@aten("aten::zero")
def zero(node, a, b):
    x = a.tensor(0)
    return [b.Broadcast(const(b, 0, x.data.get_dtype()), shape_of(b, x))]


# ---------------------------------------------------------------------------- creation


def _size(b, a):
    return int_list_port(b, a.int_list("size"))


@aten(*FILLED)
def filled(node, a, b):
    """zeros / ones / empty (f32 unless ``dtype`` says)."""
    return [b.Broadcast(const(b, FILLED[node.fw_op], _given_dtype(a) or "f32"), _size(b, a))]


@aten(*FILLED_LIKE)
def filled_like(node, a, b):
    """zeros_like / ones_like / empty_like of another tensor's shape, in its type unless ``dtype``
    says."""
    x = a.tensor(0)
    et = _given_dtype(a) or x.data.get_dtype()
    return [b.Broadcast(const(b, FILLED_LIKE[node.fw_op], et), shape_of(b, x))]


@aten(*FILLED_NEW)
def filled_new(node, a, b):
    """x.new_zeros(size) / new_ones / new_empty: in x's type unless ``dtype`` says."""
    et = _given_dtype(a) or a.tensor(0).data.get_dtype()
    return [b.Broadcast(const(b, FILLED_NEW[node.fw_op], et), _size(b, a))]


@aten("aten::full")
def full(node, a, b):
    """full(size, fill_value): in the type of ``dtype``, else of the value (a Python number gives
    bool / i64 / f32)."""
    value = a.tensor("fill_value")
    et = _given_dtype(a)
    if et is None:
        et = value.data.get_dtype()
        if a.is_weak("fill_value"):
            et = {0: "boolean", 1: "i64", 2: "f32"}[category(et)]
    return [b.Broadcast(convert(b, value, et), _size(b, a))]


@aten("aten::full_like")
def full_like(node, a, b):
    x = a.tensor(0)
    et = _given_dtype(a) or x.data.get_dtype()
    return [b.Broadcast(convert(b, a.tensor("fill_value"), et), shape_of(b, x))]


@aten("aten::new_full")
def new_full(node, a, b):
    et = _given_dtype(a) or a.tensor(0).data.get_dtype()
    return [b.Broadcast(convert(b, a.tensor("fill_value"), et), _size(b, a))]


@aten("aten::scalar_tensor")
def scalar_tensor(node, a, b):
    return [convert(b, a.tensor(0), _given_dtype(a) or "f32")]


@aten("aten::tensor", "aten::as_tensor")
def tensor(node, a, b):
    """torch.tensor(data) of numbers (constant or computed)."""
    et = _given_dtype(a)
    data = a.value(0)
    if data is not None:
        if et is None:
            et = {"b": "boolean", "i": "i64", "u": "i64", "f": "f32"}[data.dtype.kind]
        return [const(b, data, et)]
    items = a.tensors(0)
    if not items:
        raise ConversionError("torch.tensor of computed data is supported for lists of numbers only.")
    if et is None:
        kinds = {category(p.data.get_dtype()) for p in items}
        et = "f32" if 2 in kinds else "i64" if 1 in kinds else "boolean"
    parts = [b.Reshape(convert(b, p, et), i64(1), special_zero=False) for p in items]
    return [parts[0] if len(parts) == 1 else b.Concat(*parts, axis=0)]


@aten("aten::arange")
def arange(node, a, b):
    """arange(end), arange(start, end[, step]): i64 unless a bound is a float or dtype says."""
    names = set(a.names)
    start = a.tensor("start") if "start" in names else None
    end = a.tensor("end")
    step = a.tensor("step") if "step" in names and not a.is_none("step") else None
    bounds = [p for p in (start, end, step) if p is not None]
    compute = "f32" if any(p.data.get_dtype() in _FLOATS for p in bounds) else "i64"
    start = convert(b, start, compute) if start is not None else const(b, 0, compute)
    step = convert(b, step, compute) if step is not None else const(b, 1, compute)
    seq = b.Range(start, convert(b, end, compute), step, output_type=compute)
    return [convert(b, seq, _given_dtype(a) or compute)]


@aten("aten::eye")
def eye(node, a, b):
    """eye(n[, m]): the identity matrix [n, m] (f32 unless ``dtype`` says); n and m may be
    computed."""
    rows = scalar_int(b, a.value("n") if a.value("n") is not None else a.tensor("n"))
    cols = rows if not a.has("m") or a.is_none("m") else \
        scalar_int(b, a.value("m") if a.value("m") is not None else a.tensor("m"))
    et = _given_dtype(a) or "f32"
    made = b.Eye(rows, cols, b.const(np.int64(0)), output_type="u8" if et == "boolean" else et)
    return [convert(b, made, et)]


@aten("aten::tril_indices", "aten::triu_indices")
def triangle_indices(node, a, b):
    """tril_indices / triu_indices(row, col, offset=0, dtype=int64): the [2, N] coordinates of the
    lower (upper) triangle of a row x col matrix, row by row; the sizes must be constants."""
    row, col, offset = int(a.const("row")), int(a.const("col")), int(a.const("offset", 0))
    if row < 0 or col < 0:
        raise ConversionError(f"{node.fw_op} needs non-negative sizes, not {row} x {col}.")
    pick = np.tril_indices if node.fw_op == "aten::tril_indices" else np.triu_indices
    coords = np.stack(pick(row, offset, col)).astype(np.int64).reshape(2, -1)
    return [const(b, coords, _given_dtype(a) or "i64")]


def _linspace_points(b, a, compute: str):
    """``steps`` points from start to end in ``compute`` (see ``linspace_points``)."""
    start, end = convert(b, a.tensor("start"), compute), convert(b, a.tensor("end"), compute)
    start, end = (as_scalar(b, p) if p.data.get_rank() != 0 else p for p in (start, end))
    steps = scalar_int(b, a.value("steps") if a.value("steps") is not None else a.tensor("steps"))
    return linspace_points(b, start, end, steps, compute)


def linspace_points(b, start, end, steps, compute: str):
    """``steps`` (a 0-d i64) points from the 0-d ``start`` to ``end`` in ``compute``, as PyTorch
    computes them (the first half start + i * step, the second half end - (steps - 1 - i) * step)."""
    zero, one = b.const(np.int64(0)), b.const(np.int64(1))
    index = b.Range(zero, steps, one, output_type="i64")
    last = b.Maximum(b.Subtract(steps, one), one)
    step = b.Divide(b.Subtract(end, start), convert(b, last, compute))
    early = b.Add(start, b.Multiply(convert(b, index, compute), step))
    late = b.Subtract(end, b.Multiply(convert(b, b.Subtract(b.Subtract(steps, one), index), compute), step))
    halfway = b.Maximum(b.Divide(steps, b.const(np.int64(2))), one)    # one step: the start
    return b.Select(b.Less(index, halfway), early, late)


@aten("aten::linspace")
def linspace(node, a, b):
    """linspace(start, end, steps) (see ``_linspace_points``); integer types truncate; f32 unless
    ``dtype`` says."""
    et = _given_dtype(a) or "f32"
    return [convert(b, _linspace_points(b, a, "f64" if et == "f64" else "f32"), et)]


@aten("aten::logspace")
def logspace(node, a, b):
    """logspace(start, end, steps, base=10): base to the powers linspace gives."""
    et = _given_dtype(a) or "f32"
    compute = "f64" if et == "f64" else "f32"
    base = const(b, float(a.const("base", 10.0)), compute)
    return [convert(b, b.Power(base, _linspace_points(b, a, compute)), et)]


@aten("aten::_shape_as_tensor")
def shape_as_tensor(node, a, b):
    return [shape_of(b, a.tensor(0))]


# ---------------------------------------------------------------------------- sizes


@aten("prim::dtype")
def dtype(node, a, b):
    """x's type as the ScalarType code TorchScript passes as a dtype argument."""
    return [b.const(np.int64(scalar_type_code(a.tensor(0).data.get_dtype())))]


@aten("aten::size", "aten::sym_size")
def size(node, a, b):
    """size(self[, dim]): the shape, or one dim (computed unless fixed, see building.dim)."""
    x = a.tensor(0)
    if a.has("dim") and not a.is_none("dim"):
        return [dim_size(b, x, norm_axis(a.const("dim"), rank_of(x, node), node))]
    return [shape_of(b, x)]


@aten("aten::dim")
def dim(node, a, b):
    return [b.const(np.int64(rank_of(a.tensor(0), node)))]


@aten("aten::numel", "aten::sym_numel")
def numel(node, a, b):
    return [b.ReduceProd(shape_of(b, a.tensor(0)), i64(0), keep_dims=False)]


@aten("aten::len")
def len_(node, a, b):
    return [dim_size(b, a.tensor(0), 0)]


@aten("aten::__getitem__")
def getitem(node, a, b):
    """list[index] of a computed int list (a 1-D tensor)."""
    return [b.Gather(a.tensor(0), convert(b, a.tensor(1), "i64"), b.const(np.int64(0)))]


@aten("aten::sym_storage_offset")
def sym_storage_offset(node, a, b):
    """The storage offset of a tensor in an exported program: 0 (the IR's tensors are their own)."""
    return [b.const(np.int64(0))]


@aten("aten::sym_stride")
def sym_stride(node, a, b):
    """The stride of ``dim`` of a contiguous tensor: the product of the sizes after it."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    axis = norm_axis(a.const("dim"), max(rank, 1), node)
    later = b.Slice(shape_of(b, x), i64([axis + 1]), i64([max(rank, axis + 1)]), i64([1]), i64([0]))
    return [b.ReduceProd(b.Concat(later, i64([1]), axis=0), i64([0]), keep_dims=False)]
