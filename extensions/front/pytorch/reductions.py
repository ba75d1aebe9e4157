"""ATen reductions (sum, mean, prod, amax / amin, max / min with indices, argmax / argmin, std /
var, logsumexp, norms, all / any, aminmax), cumsum, topk, sort and argsort: their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, dim_size, is_float_type, promoted, reshape
from extensions.front.pytorch.elementwise import binary_op
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import convert, i64, norm_axis, rank_of
from mo.utils.types import INT_TYPES

# sum and product: integers and booleans accumulate in i64, as in PyTorch
ACCUMULATING = {"aten::sum": "ReduceSum", "aten::prod": "ReduceProd"}
EXTREMES = {"aten::amax": "ReduceMax", "aten::amin": "ReduceMin"}


def reduce_axes(a, node, rank: int, key: str = "dim") -> list[int]:
    """The axes a ``dim`` argument names; none (None or []) means every axis."""
    dims = a.const(key, None) if a.has(key) else None
    if dims is None or (isinstance(dims, list) and not dims):
        return list(range(rank))
    return sorted({norm_axis(d, rank, node) for d in np.atleast_1d(dims)})


def _keep(a) -> bool:
    return bool(a.const("keepdim", False)) if a.has("keepdim") else False


def _dtype(a) -> str | None:
    return a.const("dtype", None) if a.has("dtype") else None


def _reduce(b, op: str, x, axes: list[int], keep: bool):
    return b.op(op, x, i64(axes), keep_dims=keep)


def _reduced(node, a, b, op: str, x):
    """``op`` over the axes of the ``dim`` argument (a 0-d tensor is its own reduction)."""
    rank = rank_of(x, node)
    if rank == 0:
        return x
    return _reduce(b, op, x, reduce_axes(a, node, rank), _keep(a))


def _accumulated(a, b, x):
    """``x`` in the ``dtype`` argument's type, or i64 when integral."""
    return convert(b, x, _dtype(a) or (x.data.get_dtype() if is_float_type(x.data.get_dtype()) else "i64"))


@aten(*ACCUMULATING)
def sum_prod(node, a, b):
    """sum / prod over dims (all when none given)."""
    return [_reduced(node, a, b, ACCUMULATING[node.fw_op], _accumulated(a, b, a.tensor(0)))]


@aten("aten::nansum")
def nansum(node, a, b):
    """sum with NaNs counted as zero."""
    x = _accumulated(a, b, a.tensor(0))
    if is_float_type(x.data.get_dtype()):
        x = b.Select(b.IsNaN(x), const(b, 0, x.data.get_dtype()), x)
    return [_reduced(node, a, b, "ReduceSum", x)]


@aten("aten::mean")
def mean(node, a, b):
    """mean over dims (integers in f32 unless ``dtype`` says)."""
    x = a.tensor(0)
    x = convert(b, x, _dtype(a) or (x.data.get_dtype() if is_float_type(x.data.get_dtype()) else "f32"))
    return [_reduced(node, a, b, "ReduceMean", x)]


@aten(*EXTREMES)
def amax_amin(node, a, b):
    """amax / amin over dims (booleans computed on 0/1)."""
    x = a.tensor(0)
    if x.data.get_dtype() != "boolean":
        return [_reduced(node, a, b, EXTREMES[node.fw_op], x)]
    return [convert(b, _reduced(node, a, b, EXTREMES[node.fw_op], convert(b, x, "u8")), "boolean")]


def _extreme(node, a, b, largest: bool) -> list:
    """max / min: of two tensors (elementwise, PyTorch's promotion), of all elements, or along
    ``dim`` with the index of the first extreme."""
    if len(a.types) == 2 and a.types[1] == "Tensor":
        et, (x, y) = promoted(a, (0, 1), b)
        return [binary_op(b, "Maximum" if largest else "Minimum", x, y, et)]
    x = a.tensor(0)
    if not a.has("dim") or a.is_none("dim"):
        rank = rank_of(x, node)
        return [_reduce(b, "ReduceMax" if largest else "ReduceMin", x, list(range(rank)), False) if rank else x]
    return list(_top_one(node, a, b, x, largest))


def _top_one(node, a, b, x, largest: bool):
    """(values, indices) of the first extreme along ``dim`` (over the flattened tensor when
    ``dim`` is None), keeping the dim when ``keepdim``."""
    wants_dim = a.has("dim") and not a.is_none("dim")
    if wants_dim:
        axis = norm_axis(a.const("dim"), rank_of(x, node), node)
    else:
        x, axis = reshape(b, x, [-1]), 0
    values, indices = b.TopK(x, b.const(np.int64(1)), axis=axis, mode="max" if largest else "min",
                             sort="value", index_element_type="i64", stable=True)
    if not _keep(a) or not wants_dim:
        values, indices = b.Squeeze(values, i64(axis)), b.Squeeze(indices, i64(axis))
    return values, indices


@aten("aten::max")
def max_(node, a, b):
    return _extreme(node, a, b, largest=True)


@aten("aten::min")
def min_(node, a, b):
    return _extreme(node, a, b, largest=False)


@aten("aten::aminmax")
def aminmax(node, a, b):
    """aminmax(dim, keepdim): (amin, amax) over ``dim`` or over all elements (booleans computed
    on 0/1)."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    axes = list(range(rank)) if a.is_none("dim") else [norm_axis(a.const("dim"), max(rank, 1), node)]
    if rank == 0:
        return [x, x]
    boolean = x.data.get_dtype() == "boolean"
    y = convert(b, x, "u8") if boolean else x
    results = [_reduce(b, op, y, axes, _keep(a)) for op in ("ReduceMin", "ReduceMax")]
    return [convert(b, r, "boolean") for r in results] if boolean else results


@aten("aten::argmax")
def argmax(node, a, b):
    """The index of the first maximum along ``dim`` (of the flattened tensor when None)."""
    return [_top_one(node, a, b, a.tensor(0), largest=True)[1]]


@aten("aten::argmin")
def argmin(node, a, b):
    return [_top_one(node, a, b, a.tensor(0), largest=False)[1]]


# ---------------------------------------------------------------------------- logical and counting


def _truth(node, a, b, op: str, keep: bool):
    x = convert(b, a.tensor(0), "boolean")
    rank = rank_of(x, node)
    if rank == 0:
        return x
    return _reduce(b, op, x, reduce_axes(a, node, rank), keep)


@aten("aten::all")
def all_(node, a, b):
    return [_truth(node, a, b, "ReduceLogicalAnd", _keep(a))]


@aten("aten::any")
def any_(node, a, b):
    return [_truth(node, a, b, "ReduceLogicalOr", _keep(a))]


@aten("aten::count_nonzero")
def count_nonzero(node, a, b):
    x = convert(b, a.tensor(0), "boolean")
    rank = rank_of(x, node)
    if rank == 0:
        return [x]
    return [_reduce(b, "ReduceSum", convert(b, x, "i64"), reduce_axes(a, node, rank), False)]


# ---------------------------------------------------------------------------- statistics


def _floating(b, x):
    return x if is_float_type(x.data.get_dtype()) else convert(b, x, "f32")


def _correction(a) -> float:
    if a.has("correction") and a.const("correction", None) is not None:
        return float(a.const("correction"))
    if a.has("unbiased"):
        return 1.0 if a.const("unbiased", True) else 0.0
    return 1.0


def _moments(node, a, b, root: bool, with_mean: bool) -> list:
    """var (std when ``root``) over dims with Bessel's ``correction``, and the mean when
    ``with_mean``."""
    x = _floating(b, a.tensor(0))
    et = x.data.get_dtype()
    axes = reduce_axes(a, node, rank_of(x, node))
    keep = _keep(a)
    mean = _reduce(b, "ReduceMean", x, axes, True)
    centered = b.Subtract(x, mean)
    total = _reduce(b, "ReduceSum", b.Multiply(centered, centered), axes, keep)
    count = const(b, 1, et)
    for axis in axes:
        count = b.Multiply(count, convert(b, dim_size(b, x, axis), et))
    var = b.Divide(total, b.Subtract(count, const(b, _correction(a), et)))
    result = b.Sqrt(var) if root else var
    if with_mean:
        return [result, mean if keep else b.Squeeze(mean, i64(axes))]
    return [result]


@aten("aten::var")
def var(node, a, b):
    return _moments(node, a, b, root=False, with_mean=False)


@aten("aten::std")
def std(node, a, b):
    return _moments(node, a, b, root=True, with_mean=False)


@aten("aten::var_mean")
def var_mean(node, a, b):
    return _moments(node, a, b, root=False, with_mean=True)


@aten("aten::std_mean")
def std_mean(node, a, b):
    return _moments(node, a, b, root=True, with_mean=True)


@aten("aten::logsumexp")
def logsumexp(node, a, b):
    """log(sum(exp(x - peak))) + peak, with an infinite peak taken as 0."""
    x = _floating(b, a.tensor(0))
    et = x.data.get_dtype()
    axes = reduce_axes(a, node, rank_of(x, node))
    peak = _reduce(b, "ReduceMax", x, axes, True)
    peak = b.Select(b.IsInf(peak), const(b, 0, et), peak)
    total = _reduce(b, "ReduceSum", b.Exp(b.Subtract(x, peak)), axes, True)
    y = b.Add(b.Log(total), peak)
    return [y if _keep(a) else b.Squeeze(y, i64(axes))]


@aten("aten::cosine_similarity")
def cosine_similarity(node, a, b):
    """sum(x1 * x2) / max(|x1| * |x2|, eps) along ``dim``."""
    x = _floating(b, a.tensor(0))
    et = x.data.get_dtype()
    y = convert(b, a.tensor(1), et)
    axis = [norm_axis(a.const("dim", 1), rank_of(x, node), node)]
    norms = b.Multiply(_reduce(b, "ReduceL2", x, axis, False), _reduce(b, "ReduceL2", y, axis, False))
    dot = _reduce(b, "ReduceSum", b.Multiply(x, y), axis, False)
    return [b.Divide(dot, b.Maximum(norms, const(b, a.const("eps", 1e-8), et)))]


@aten("aten::norm", "aten::linalg_vector_norm", "aten::frobenius_norm")
def vector_norm(node, a, b):
    """The ``ord`` / ``p`` vector norm over dims (2 by default; 0 counts non-zeros, +-inf is
    the largest / smallest magnitude), in the ``dtype`` argument's type when given."""
    x = _floating(b, a.tensor(0))
    result_et = _dtype(a) or x.data.get_dtype()
    # PyTorch accumulates half-precision norms in f32
    x = convert(b, x, "f32" if result_et in ("f16", "bf16") else result_et)
    order = a.const("ord", 2) if a.has("ord") else (a.const("p", 2) if a.has("p") else 2)
    norm = p_norm(b, x, 2 if order is None else float(order), reduce_axes(a, node, rank_of(x, node)), _keep(a))
    return [convert(b, norm, result_et)]


def p_norm(b, x, order: float, axes: list[int], keep: bool):
    """The ``order`` vector norm of floating-point ``x`` over ``axes``: 0 counts non-zeros, +-inf
    is the largest / smallest magnitude."""
    et = x.data.get_dtype()
    if order == 2:
        return _reduce(b, "ReduceL2", x, axes, keep)
    if order == 1:
        return _reduce(b, "ReduceL1", x, axes, keep)
    if np.isinf(order):
        return _reduce(b, "ReduceMax" if order > 0 else "ReduceMin", b.Abs(x), axes, keep)
    if order == 0:
        return _reduce(b, "ReduceSum", convert(b, b.NotEqual(x, const(b, 0, et)), et), axes, keep)
    powered = _reduce(b, "ReduceSum", b.Power(b.Abs(x), const(b, order, et)), axes, keep)
    return b.Power(powered, const(b, 1 / order, et))


# ---------------------------------------------------------------------------- scans and sorting


@aten("aten::cumsum")
def cumsum(node, a, b):
    """cumsum(dim, dtype) as CumSum (integers accumulate in i64)."""
    x = _accumulated(a, b, a.tensor(0))
    return [b.CumSum(x, b.const(np.int64(norm_axis(a.const("dim"), rank_of(x, node), node))))]


def _sorted(node, a, b, k, largest: bool):
    """TopK of ``k`` along ``dim`` (stable, i64 indices)."""
    x = a.tensor(0)
    axis = norm_axis(a.const("dim", -1), max(rank_of(x, node), 1), node)
    if k is None:
        k = dim_size(b, x, axis)
    return b.TopK(x, k, axis=axis, mode="max" if largest else "min", sort="value", index_element_type="i64",
                  stable=True)


@aten("aten::topk")
def topk(node, a, b):
    """topk(k, dim, largest, sorted): the k largest (smallest) along ``dim``, sorted."""
    k = b.const(np.int64(a.const("k"))) if a.value("k") is not None else convert(b, a.tensor("k"), "i64")
    return list(_sorted(node, a, b, k, bool(a.const("largest", True))))


@aten("aten::sort")
def sort(node, a, b):
    """sort(dim, descending): values and indices."""
    return list(_sorted(node, a, b, None, bool(a.const("descending", False))))


@aten("aten::argsort")
def argsort(node, a, b):
    return [_sorted(node, a, b, None, bool(a.const("descending", False)))[1]]


@aten("aten::histc")
def histc(node, a, b):
    """histc(input, bins=100, min=0, max=0): counts of the values in ``bins`` equal bins over
    [min, max] (min == max: the data's own range, widened by 1 each side when it is one value),
    values outside ignored, ``max`` itself in the last bin; the input's type (integers, which
    PyTorch counts on GPUs and meta tensors, are binned as f32). Counted as an integer sum of
    one-hot rows ([elements, bins] values), converted to the output type last."""
    x = a.tensor(0)
    given = x.data.get_dtype()
    if given == "boolean" or not (is_float_type(given) or given in INT_TYPES):
        raise ConversionError(f"histc counts numbers, not {given} tensors.")
    et = given if is_float_type(given) else "f32"
    x = convert(b, x, et)
    bins = int(a.const("bins", 100))
    if bins <= 0:
        raise ConversionError(f"histc needs a positive number of bins, not {bins}.")
    low, high = float(a.const("min", 0)), float(a.const("max", 0))
    flat = reshape(b, x, [-1])
    if low == high:
        axes = i64(0)
        low_p, high_p = b.ReduceMin(flat, axes, keep_dims=False), b.ReduceMax(flat, axes, keep_dims=False)
        same = b.Equal(low_p, high_p)
        one = const(b, 1.0, et)
        low_p, high_p = b.Select(same, b.Subtract(low_p, one), low_p), b.Select(same, b.Add(high_p, one), high_p)
    else:
        if low > high:
            raise ConversionError(f"histc's max ({high}) is below its min ({low}).")
        low_p, high_p = const(b, low, et), const(b, high, et)
    # in the input's type and in PyTorch's order, so values on a bin edge fall where they do there
    position = b.Divide(b.Multiply(b.Subtract(flat, low_p), const(b, float(bins), et)), b.Subtract(high_p, low_p))
    index = b.Minimum(convert(b, b.Floor(position), "i64"), const(b, bins - 1, "i64"))
    inside = b.LogicalAnd(b.GreaterEqual(flat, low_p), b.LessEqual(flat, high_p))
    hits = b.LogicalAnd(b.Equal(b.Unsqueeze(index, i64(1)), b.Range(const(b, 0, "i64"), const(b, bins, "i64"),
                                                                      const(b, 1, "i64"), output_type="i64")),
                        b.Unsqueeze(inside, i64(1)))
    counts = convert(b, b.ReduceSum(convert(b, hits, "i64"), i64(0), keep_dims=False), given)
    if counts.node.op == "Convert":
        counts.node["integer_valued"] = True     # an integer consumer takes the counts directly (middle phase)
    return [counts]
