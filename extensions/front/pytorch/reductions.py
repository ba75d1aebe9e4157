"""ATen reductions (sum, mean, prod, amax / amin, max / min with indices, argmax / argmin, std /
var, logsumexp, norms, all / any, aminmax), cumsum, topk, sort and argsort: their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.common.scan import prefix_scan
from extensions.front.pytorch.aten import const, dim_size, is_float_type, promoted, reshape
from extensions.front.pytorch.elementwise import binary_op
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import convert, dims_slice, i64, norm_axis, rank_of
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
        if not rank:
            return [x]
        boolean = x.data.get_dtype() == "boolean"
        y = _reduce(b, "ReduceMax" if largest else "ReduceMin", convert(b, x, "u8") if boolean else x,
                    list(range(rank)), False)
        return [convert(b, y, "boolean") if boolean else y]
    return list(_top_one(node, a, b, x, largest))


def _top_one(node, a, b, x, largest: bool):
    """(values, indices) of the first extreme along ``dim`` (over the flattened tensor when
    ``dim`` is None), keeping the dim when ``keepdim``."""
    wants_dim = a.has("dim") and not a.is_none("dim") and rank_of(x, node) > 0
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
    """all / any as booleans (of u8 tensors: as u8, as PyTorch keeps that legacy type)."""
    source = a.tensor(0)
    x = convert(b, source, "boolean")
    rank = rank_of(x, node)
    if rank:
        x = _reduce(b, op, x, reduce_axes(a, node, rank), keep)
    return convert(b, x, "u8") if source.data.get_dtype() == "u8" else x


@aten("aten::all")
def all_(node, a, b):
    return [_truth(node, a, b, "ReduceLogicalAnd", _keep(a))]


@aten("aten::any")
def any_(node, a, b):
    return [_truth(node, a, b, "ReduceLogicalOr", _keep(a))]


@aten("aten::count_nonzero")
def count_nonzero(node, a, b):
    x = convert(b, convert(b, a.tensor(0), "boolean"), "i64")
    rank = rank_of(x, node)
    if rank == 0:
        return [x]
    return [_reduce(b, "ReduceSum", x, reduce_axes(a, node, rank), False)]


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


def _covariance(node, a, b):
    """cov(input [variables, observations] or [observations], correction, fweights, aweights):
    the weighted covariance matrix (integers in f32), squeezed as PyTorch does (one variable: 0-d);
    a normalization factor <= 0 is taken as 0."""
    x = _floating(b, a.tensor(0))
    et = x.data.get_dtype()
    rank = rank_of(x, node)
    if rank > 2:
        raise ConversionError(f"cov takes a 1-D or 2-D tensor, not a {rank}-D one.")
    variables = 1 if rank < 2 else x.data.get_shape()[0]
    if variables is None or variables < 0:
        raise ConversionError("cov of a computed number of variables is not supported (the result's rank "
                              "depends on it); give the input a static first dim.")
    x = reshape(b, x, [1, -1]) if rank < 2 else x
    weights = [convert(b, a.tensor(k), et) for k in ("fweights", "aweights") if a.has(k) and not a.is_none(k)]
    w = b.Multiply(*weights) if len(weights) == 2 else (weights[0] if weights else None)
    correction = float(a.const("correction", 1))
    if w is None:
        w_sum = convert(b, dim_size(b, x, 1), et)
        average = b.ReduceMean(x, i64(1), keep_dims=True)
    else:
        w_sum = b.ReduceSum(w, i64(0), keep_dims=False)
        average = b.Divide(b.ReduceSum(b.Multiply(x, w), i64(1), keep_dims=True), w_sum)
    if w is not None and a.has("aweights") and not a.is_none("aweights") and correction != 0:
        aweights = convert(b, a.tensor("aweights"), et)
        spread = b.Divide(b.ReduceSum(b.Multiply(w, aweights), i64(0), keep_dims=False), w_sum)
        factor = b.Subtract(w_sum, b.Multiply(const(b, correction, et), spread))
    else:
        factor = b.Subtract(w_sum, const(b, correction, et))
    factor = b.Select(b.LessEqual(factor, const(b, 0, et)), const(b, 0, et), factor)
    centered = b.Subtract(x, average)
    weighted = centered if w is None else b.Multiply(centered, w)
    if variables == 1:      # a sum (the CPU plugin crashes on a [1, 1] MatMul reshaped to 0-d)
        return b.Divide(b.ReduceSum(b.Multiply(centered, weighted), i64([0, 1]), keep_dims=False), factor)
    return b.Divide(b.MatMul(centered, weighted, transpose_b=True), factor)


@aten("aten::cov")
def cov(node, a, b):
    return [_covariance(node, a, b)]


@aten("aten::corrcoef")
def corrcoef(node, a, b):
    """The covariance over the product of the standard deviations, clipped to [-1, 1] (NaN
    stays); one variable: c / c."""
    c = _covariance(node, a, b)
    if c.data.get_rank() == 0:
        return [b.Divide(c, c)]
    variables = c.data.get_shape()[0]
    stddev = b.Sqrt(b.Gather(reshape(b, c, [-1]), b.const(np.arange(variables, dtype=np.int64) * (variables + 1)),
                             np.int64(0)))
    c = b.Divide(b.Divide(c, b.Unsqueeze(stddev, i64(1))), b.Unsqueeze(stddev, i64(0)))
    return [b.Select(b.IsNaN(c), c, b.Clamp(c, min=-1.0, max=1.0))]


@aten("aten::nanmean")
def nanmean(node, a, b):
    """The mean of the elements that are not NaN over dims (NaN where there are none)."""
    x = a.tensor(0)
    x = convert(b, x, _dtype(a) or x.data.get_dtype())
    et = x.data.get_dtype()
    if not is_float_type(et):
        raise ConversionError(f"nanmean takes floating point tensors (PyTorch refuses {et}); use mean.")
    if rank_of(x, node) == 0:
        return [x]
    axes, keep = reduce_axes(a, node, rank_of(x, node)), _keep(a)
    valid = b.LogicalNot(b.IsNaN(x))
    total = _reduce(b, "ReduceSum", b.Select(valid, x, const(b, 0, et)), axes, keep)
    return [b.Divide(total, _reduce(b, "ReduceSum", convert(b, valid, et), axes, keep))]


@aten("aten::dist")
def dist(node, a, b):
    """The p-norm of x - y (broadcast) over all elements."""
    et, (x, y) = promoted(a, (0, 1), b)
    if not is_float_type(et):
        raise ConversionError(f"dist takes floating point tensors (PyTorch refuses {et}).")
    difference = b.Subtract(x, y)
    rank = max(rank_of(x, node), rank_of(y, node))
    if rank == 0:
        difference = reshape(b, difference, [1])
    return [p_norm(b, difference, float(a.const("p", 2)), list(range(max(rank, 1))), False)]


@aten("aten::renorm")
def renorm(node, a, b):
    """renorm(p, dim, maxnorm): each slice along ``dim`` whose p-norm exceeds maxnorm scaled by
    maxnorm / (norm + 1e-7)."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    if not is_float_type(et):
        raise ConversionError(f"renorm takes floating point tensors (PyTorch refuses {et}).")
    rank = rank_of(x, node)
    axis = norm_axis(a.const("dim"), max(rank, 1), node)
    others = [d for d in range(rank) if d != axis]
    maxnorm = const(b, float(a.const("maxnorm")), et)
    norm = p_norm(b, x, float(a.const("p")), others, True) if others else b.Abs(x)
    factor = b.Select(b.Greater(norm, maxnorm), b.Divide(maxnorm, b.Add(norm, const(b, 1e-7, et))), const(b, 1, et))
    return [b.Multiply(x, factor)]


@aten("aten::logsumexp")
def logsumexp(node, a, b):
    """logsumexp over ``dim`` (integers and booleans in f32)."""
    x = _floating(b, a.tensor(0))
    if rank_of(x, node) == 0:       # a 0-d tensor: its own logsumexp, over its one element
        return [reshape(b, logsumexp_of(b, reshape(b, x, [1]), [0], False), [])]
    return [logsumexp_of(b, x, reduce_axes(a, node, rank_of(x, node)), _keep(a))]


def logsumexp_of(b, x, axes: list[int], keep: bool):
    """log(sum(exp(x))) of floating-point ``x`` over ``axes``: log(sum(exp(x - peak))) + peak,
    with an infinite peak taken as 0."""
    et = x.data.get_dtype()
    peak = _reduce(b, "ReduceMax", x, axes, True)
    peak = b.Select(b.IsInf(peak), const(b, 0, et), peak)
    total = _reduce(b, "ReduceSum", b.Exp(b.Subtract(x, peak)), axes, True)
    y = b.Add(b.Log(total), peak)
    return y if keep else b.Squeeze(y, i64(axes))


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
    order = 2 if order is None else float(order)
    if rank_of(x, node) == 0:       # a 0-d tensor (dim 0 or -1 allowed): the norm of its one element
        return [convert(b, reshape(b, p_norm(b, reshape(b, x, [1]), order, [0], False), []), result_et)]
    norm = p_norm(b, x, order, reduce_axes(a, node, rank_of(x, node)), _keep(a))
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


# ---------------------------------------------------------------------------- order statistics


def _ascending(node, b, x, axis: int, nan_last: bool):
    """(values, indices) of ``x`` sorted ascending along ``axis`` (stable); with ``nan_last``
    NaNs sort as +inf (their positions keep NaN in the values)."""
    key = x
    if nan_last and is_float_type(x.data.get_dtype()):
        key = b.Select(b.IsNaN(x), const(b, np.inf, x.data.get_dtype()), x)
    _, indices = b.TopK(key, dim_size(b, x, axis), axis=axis, mode="min", sort="value", index_element_type="i64",
                        stable=True)
    return b.GatherElements(x, indices, axis=axis), indices


def count_along(b, mask, axis: int):
    """The number of set elements of ``mask`` along ``axis`` (kept as size 1), as i64: counted in
    f32 and converted, because the CPU plugin gets an integer ReduceSum over a middle axis wrong
    when integer arithmetic follows it."""
    return convert(b, b.ReduceSum(convert(b, mask, "f32"), i64(axis), keep_dims=True), "i64")


def _picked(b, values, indices, position, axis: int, keep: bool):
    """The elements at ``position`` along ``axis`` (a scalar, or one per slice with the axis kept
    as size 1)."""
    if position.data.get_rank() == 0:
        position = b.Unsqueeze(position, np.int64(0))
        picked = [b.Gather(t, position, np.int64(axis)) for t in (values, indices)]
    else:
        picked = [b.GatherElements(t, position, axis=axis) for t in (values, indices)]
    return picked if keep else [b.Squeeze(t, i64(axis)) for t in picked]


def _order_axis(node, a, b, x):
    """(x, axis, keep, whole) for an order statistic: along ``dim``, or over the flattened tensor
    (no dim, or a 0-d tensor)."""
    rank = rank_of(x, node)
    whole = not a.has("dim") or a.is_none("dim")
    if whole or rank == 0:      # a 0-d tensor: along its one element, the result 0-d again
        return reshape(b, x, [-1]), 0, False, whole
    return x, norm_axis(a.const("dim"), rank, node), _keep(a), False


@aten("aten::kthvalue")
def kthvalue(node, a, b):
    """kthvalue(k, dim=-1, keepdim): the k-th smallest along ``dim`` and its index."""
    x, axis, keep, _ = _order_axis(node, a, b, a.tensor(0))
    values, indices = _ascending(node, b, x, axis, nan_last=True)
    k = int(a.const("k"))
    return _picked(b, values, indices, b.const(np.int64(k - 1)), axis, keep)


@aten("aten::median", "aten::nanmedian")
def median(node, a, b):
    """The lower median (element (n - 1) // 2 sorted) along ``dim`` with its index, or of all
    elements (then the value alone). median: NaN when a NaN is present (NaNs sort last, and a
    present one is picked by the index); nanmedian: of the values that are not NaN (NaN when none)."""
    source = a.tensor(0)
    x, axis, keep, whole = _order_axis(node, a, b, source)
    values, indices = _ascending(node, b, x, axis, nan_last=True)
    n = dim_size(b, x, axis)
    if node.fw_op == "aten::nanmedian" and is_float_type(x.data.get_dtype()):
        valid = count_along(b, b.LogicalNot(b.IsNaN(x)), axis)
        position = b.Divide(b.Maximum(b.Subtract(valid, np.int64(1)), np.int64(0)), np.int64(2))
    elif is_float_type(x.data.get_dtype()):
        nans = count_along(b, b.IsNaN(x), axis)
        middle = b.Divide(b.Subtract(n, np.int64(1)), np.int64(2))
        position = b.Select(b.Greater(nans, np.int64(0)), b.Subtract(n, nans), middle)
    else:
        position = b.Divide(b.Subtract(n, np.int64(1)), np.int64(2))
    picked = _picked(b, values, indices, position, axis, keep)
    return picked[:1] if whole else picked


@aten("aten::msort")
def msort(node, a, b):
    """The values sorted ascending along dim 0."""
    x = a.tensor(0)
    if rank_of(x, node) == 0:
        return [x]
    return [_ascending(node, b, x, 0, nan_last=True)[0]]


# ---------------------------------------------------------------------------- other scans


def _scan_axis(node, a, b, x):
    """(axis, static length) of the ``dim`` argument; a 0-d tensor is one element."""
    rank = rank_of(x, node)
    axis = norm_axis(a.const("dim"), max(rank, 1), node)
    n = x.data.get_shape()[axis] if rank else 1
    if n < 0:
        raise ConversionError(f"{node.fw_op} along a dimension whose size is known only at run time is not "
                              f"supported; give the input shapes with --input.")
    return axis, n


@aten("aten::cumprod")
def cumprod(node, a, b):
    """cumprod(dim, dtype) by prefix doubling (integers and booleans accumulate in i64)."""
    x = _accumulated(a, b, a.tensor(0))
    if rank_of(x, node) == 0:
        return [x]
    axis, n = _scan_axis(node, a, b, x)
    one = const(b, 1, x.data.get_dtype())
    return prefix_scan(b, [x], axis, n, lambda before, later: [b.Multiply(later[0], before[0])], [one])


def _running_extreme(node, a, b, largest: bool) -> list:
    """cummax / cummin: the running extreme along ``dim`` and the index of its last occurrence (a
    NaN, once met, stays, with the index of the latest NaN), by prefix doubling of (value, index)."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    if rank_of(x, node) == 0:
        return [x, b.const(np.int64(0))]
    axis, n = _scan_axis(node, a, b, x)
    rank = rank_of(x, node)
    positions = b.Range(np.int64(0), np.int64(n), np.int64(1), output_type="i64")
    if axis < rank - 1:
        positions = b.Unsqueeze(positions, i64(list(range(1, rank - axis))))
    index = b.Broadcast(positions, b.ShapeOf(x), mode="numpy")
    work = convert(b, x, "u8") if et == "boolean" else x
    floating = is_float_type(et)

    def combine(before, later):
        (v1, i1), (v2, i2) = before, later
        better = b.GreaterEqual(v2, v1) if largest else b.LessEqual(v2, v1)
        if floating:
            better = b.LogicalOr(b.IsNaN(v2), b.LogicalAnd(b.LogicalNot(b.IsNaN(v1)), better))
        better = b.LogicalOr(better, b.Less(i1, np.int64(0)))      # nothing before the start
        return [b.Select(better, v2, v1), b.Select(better, i2, i1)]
    values, indices = prefix_scan(b, [work, index], axis, n, combine,
                                  [const(b, 0, work.data.get_dtype()), b.const(np.int64(-1))])
    return [convert(b, values, et) if et == "boolean" else values, indices]


@aten("aten::cummax")
def cummax(node, a, b):
    return _running_extreme(node, a, b, largest=True)


@aten("aten::cummin")
def cummin(node, a, b):
    return _running_extreme(node, a, b, largest=False)


@aten("aten::logcumsumexp")
def logcumsumexp(node, a, b):
    """log(cumsum(exp(x))) along ``dim``, by prefix doubling of log-add-exp (max + log1p(exp(-|d|)),
    equal infinities kept)."""
    x = a.tensor(0)
    if not is_float_type(x.data.get_dtype()):
        x = convert(b, x, "f32")
    if rank_of(x, node) == 0:
        return [x]
    axis, n = _scan_axis(node, a, b, x)
    et = x.data.get_dtype()

    def combine(before, later):
        u, v = before[0], later[0]
        high = b.Maximum(u, v)
        gap = b.Subtract(b.Minimum(u, v), high)
        gap = b.Select(b.IsNaN(gap), const(b, 0, et), gap)      # equal infinities
        total = b.Add(high, b.Log(b.Add(const(b, 1, et), b.Exp(gap))))
        return [b.Select(b.Equal(high, const(b, -np.inf, et)), high, total)]
    return prefix_scan(b, [x], axis, n, combine, [const(b, -np.inf, et)])


# ---------------------------------------------------------------------------- quantiles


@aten("aten::quantile", "aten::nanquantile")
def quantile(node, a, b):
    """quantile(q, dim, keepdim, interpolation): the q-quantiles along ``dim`` (of all elements
    when None) of the sorted values, at position q (n - 1) interpolated ``linear`` / ``lower`` /
    ``higher`` / ``nearest`` (half to even) / ``midpoint``; a 1-D q adds its dim in front.
    quantile gives NaN for a slice holding a NaN, nanquantile takes the values that are not NaN
    (NaN when none)."""
    source = a.tensor(0)
    et = source.data.get_dtype()
    if not is_float_type(et):
        raise ConversionError(f"quantile takes floating point input (PyTorch refuses {et}).")
    x, axis, keep, whole = _order_axis(node, a, b, source)
    rank = rank_of(x, node)
    values, _ = _ascending(node, b, x, axis, nan_last=True)
    q = convert(b, a.tensor("q"), et)
    q_rank = rank_of(q, node)
    nans = b.ReduceSum(convert(b, b.IsNaN(x), et), i64(axis), keep_dims=True)
    n = convert(b, dim_size(b, x, axis), et)
    count = b.Subtract(n, nans) if node.fw_op == "aten::nanquantile" else n
    last = b.Maximum(b.Subtract(count, const(b, 1, et)), const(b, 0, et))
    if q_rank == 1:         # q along a new leading dim of the positions
        q = b.Reshape(q, i64([-1] + [1] * rank), special_zero=False)
    position = b.Multiply(q, last)                                  # [(Q,) ..., 1, ...]
    mode = a.const("interpolation", "linear")
    low, high = b.Floor(position), b.Ceiling(position)
    if mode == "lower":
        position = low
    elif mode == "higher":
        position = high
    elif mode == "nearest":
        position = b.Round(position, mode="half_to_even")
    if q_rank == 1:
        values = b.Broadcast(b.Unsqueeze(values, i64(0)), b.Concat(shape_of_q(b, q), b.ShapeOf(values), axis=0),
                             mode="numpy")
        gather_axis = axis + 1
    else:
        gather_axis = axis

    def at(p):
        index = convert(b, p, "i64")
        shape = b.ShapeOf(values)
        target = b.ScatterUpdate(shape, i64([gather_axis]), i64([1]), i64(0))
        return b.GatherElements(values, b.Broadcast(index, target, mode="numpy"), axis=gather_axis)
    if mode == "linear":
        lower, upper = at(low), at(high)
        result = b.Add(lower, b.Multiply(b.Subtract(upper, lower), b.Subtract(position, low)))
    elif mode == "midpoint":
        lower, upper = at(low), at(high)
        result = b.Add(lower, b.Multiply(b.Subtract(upper, lower), const(b, 0.5, et)))
    else:
        result = at(position)
    invalid = b.Equal(count, const(b, 0, et)) if node.fw_op == "aten::nanquantile" else \
        b.Greater(nans, const(b, 0, et))
    result = b.Select(invalid, const(b, np.nan, et), result)
    if whole and _keep(a):      # every dim kept, of size 1
        return [b.Reshape(result, i64([-1] * q_rank + [1] * rank_of(source, node)), special_zero=False)]
    return [result if keep else b.Squeeze(result, i64(gather_axis))]


def shape_of_q(b, q):
    """The length of a 1-D q reshaped to [Q, 1, ...], as a 1-D shape."""
    return dims_slice(b, b.ShapeOf(q), 0, 1)


# ---------------------------------------------------------------------------- integration


def _trapezoid_parts(node, a, b):
    """(areas of the trapezoids along ``dim``, axis) for trapezoid / cumulative_trapezoid: the
    means of neighbouring y times the spacing (``dx``, or the differences of ``x``)."""
    y = a.tensor(0)
    if not is_float_type(y.data.get_dtype()):
        y = convert(b, y, "f32")
    et = y.data.get_dtype()
    axis = norm_axis(a.const("dim", -1), rank_of(y, node), node)
    ends = [b.Slice(y, i64([1]), i64([np.iinfo(np.int64).max]), i64([1]), i64([axis])),
            b.Slice(y, i64([0]), i64([-1]), i64([1]), i64([axis]))]
    middle = b.Multiply(b.Add(*ends), const(b, 0.5, et))
    if a.has("x") and not a.is_none("x"):
        x = convert(b, a.tensor("x"), et)
        x_axis = rank_of(x, node) - 1 if rank_of(x, node) == 1 else axis
        spacing = b.Subtract(b.Slice(x, i64([1]), i64([np.iinfo(np.int64).max]), i64([1]), i64([x_axis])),
                             b.Slice(x, i64([0]), i64([-1]), i64([1]), i64([x_axis])))
        if rank_of(x, node) == 1 and axis != rank_of(y, node) - 1:
            spacing = b.Unsqueeze(spacing, i64(list(range(1, rank_of(y, node) - axis))))
    else:
        spacing = const(b, float(a.const("dx", 1.0)) if a.has("dx") else 1.0, et)
    return b.Multiply(middle, spacing), axis


@aten("aten::trapezoid", "aten::trapz")
def trapezoid(node, a, b):
    """The trapezoidal rule along ``dim`` (0 for fewer than two samples)."""
    areas, axis = _trapezoid_parts(node, a, b)
    return [b.ReduceSum(areas, i64(axis), keep_dims=False)]


@aten("aten::cumulative_trapezoid")
def cumulative_trapezoid(node, a, b):
    areas, axis = _trapezoid_parts(node, a, b)
    return [b.CumSum(areas, np.int64(axis))]


@aten("aten::mode")
def mode(node, a, b):
    """mode(dim=-1, keepdim): the most frequent value along ``dim`` (the smallest of equally
    frequent ones) and the index of its last occurrence, from the counts of equal pairs."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    rank = rank_of(x, node)
    if rank == 0:
        return [x, b.const(np.int64(0))]
    axis = norm_axis(a.const("dim", -1), rank, node)
    order = [d for d in range(rank) if d != axis] + [axis]
    moved = b.Transpose(x, i64(order)) if order != list(range(rank)) else x
    work = convert(b, moved, "i32") if et == "boolean" else moved
    last = rank - 1
    counts = b.Squeeze(count_along(b, b.Equal(b.Unsqueeze(work, i64(last + 1)), b.Unsqueeze(work, i64(last))),
                                   last + 1), i64(last + 1))
    frequent = b.Equal(counts, b.ReduceMax(counts, i64(last), keep_dims=True))
    value = b.ReduceMin(b.Select(frequent, work, b.ReduceMax(work, i64(last), keep_dims=True)), i64(last),
                        keep_dims=True)
    positions = b.Range(np.int64(0), dim_size(b, work, last), np.int64(1), output_type="i64")
    index = b.ReduceMax(b.Select(b.Equal(work, value), positions, np.int64(-1)), i64(last), keep_dims=False)
    value = b.Squeeze(value, i64(last))
    if et == "boolean":
        value = convert(b, value, "boolean")
    if _keep(a):
        value, index = b.Unsqueeze(value, i64(axis)), b.Unsqueeze(index, i64(axis))
    return [value, index]


@aten("aten::hash_tensor")
def hash_tensor(node, a, b):
    """hash_tensor(self, dim=[], keepdim=False, mode=0): the xor of the values' 64-bit patterns over
    ``dim`` (none: all), u64; integers and booleans (their patterns are their i64 values), xored
    pairwise in halves along each axis. Floats would need their f64 bit
    patterns, which OpenVINO cannot take (it has no bit cast)."""
    x = a.tensor(0)
    if is_float_type(x.data.get_dtype()):
        raise ConversionError("hash_tensor of floating-point values xors their f64 bit patterns; OpenVINO has no "
                              "operation that gives a float's bits (no bit cast).")
    if int(a.const("mode", 0)) != 0:
        raise ConversionError(f"hash_tensor mode {a.const('mode')} is unknown (PyTorch has 0, xor).")
    v = convert(b, x, "i64")
    rank = rank_of(x, node)
    if rank == 0:       # dim 0 / -1 of a scalar: the value itself
        return [convert(b, v, "u64")]
    axes = reduce_axes(a, node, rank)
    shape = x.data.get_shape()
    for axis in axes:
        size = shape[axis]
        if size <= 0:
            raise ConversionError("hash_tensor needs static, non-zero sizes of the dims it reduces.")
        while size > 1:
            half = (size + 1) // 2
            if size % 2:
                v = b.Pad(v, i64([0] * rank), i64([1 if d == axis else 0 for d in range(rank)]), np.int64(0),
                          pad_mode="constant")
            low = b.Slice(v, i64([0]), i64([half]), i64([1]), i64([axis]))
            high = b.Slice(v, i64([half]), i64([2 * half]), i64([1]), i64([axis]))
            v, size = b.BitwiseXor(low, high), half
    if not _keep(a):
        v = b.Squeeze(v, i64(axes))
    return [convert(b, v, "u64")]
