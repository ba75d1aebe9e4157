"""Lowering of the ATen reductions (sum, mean, prod, amax / amin, max / min with indices, argmax /
argmin, std / var, logsumexp, norms, all / any), cumsum, topk, sort and argsort."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import AtenOp, const, convert, dim_size, is_float_type, norm_axis, rank_of, reshape

SIMPLE = {"aten::sum": "ReduceSum", "aten::mean": "ReduceMean", "aten::prod": "ReduceProd",
          "aten::amax": "ReduceMax", "aten::amin": "ReduceMin", "aten::nansum": "ReduceSum"}
STATISTICS = ("aten::std", "aten::var", "aten::logsumexp", "aten::norm", "aten::linalg_vector_norm",
              "aten::frobenius_norm", "aten::all", "aten::any", "aten::count_nonzero", "aten::var_mean",
              "aten::std_mean", "aten::cosine_similarity")


def reduce_axes(a, node, rank: int, key: str = "dim") -> list[int]:
    """The axes a ``dim`` argument names; none (None or []) means every axis."""
    dims = a.const(key, None) if a.has(key) else None
    if dims is None or (isinstance(dims, list) and not dims):
        return list(range(rank))
    return sorted({norm_axis(d, rank, node) for d in np.atleast_1d(dims)})


def _keep(a) -> bool:
    return bool(a.const("keepdim", False)) if a.has("keepdim") else False


def _reduce(b, op: str, x, axes: list[int], keep: bool):
    return b.op(op, x, b.const(np.array(axes, np.int64)), keep_dims=keep)


class AtenReduce(AtenOp):
    """sum / mean / prod / amax / amin over dims; integer and boolean sums and products are
    computed in i64 as in PyTorch, ``dtype`` converts first."""

    op = "pytorch::Reduce"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        dtype = a.const("dtype", None) if a.has("dtype") else None
        et = x.data.get_dtype()
        if dtype is not None:
            x = convert(b, x, dtype)
        elif kind in ("aten::sum", "aten::prod", "aten::nansum") and not is_float_type(et):
            x = convert(b, x, "i64")
        elif kind == "aten::mean" and not is_float_type(et):
            x = convert(b, x, "f32")
        elif et == "boolean":
            x = convert(b, x, "u8")
        rank = rank_of(x, node)
        if kind == "aten::nansum":
            x = b.Select(b.IsNaN(x), const(b, 0, x.data.get_dtype()), x)
        if rank == 0:
            return [x]
        y = _reduce(b, SIMPLE[kind], x, reduce_axes(a, node, rank), _keep(a))
        return [convert(b, y, "boolean") if et == "boolean" and kind in ("aten::amax", "aten::amin") else y]


class AtenMaxMin(AtenOp):
    """max / min of all elements, or along ``dim`` with the index of the first extreme;
    argmax / argmin (over the flattened tensor when ``dim`` is None)."""

    op = "pytorch::MaxMin"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        largest = kind in ("aten::max", "aten::argmax")
        wants_dim = a.has("dim") and not a.is_none("dim")
        if kind in ("aten::max", "aten::min") and not wants_dim:
            rank = rank_of(x, node)
            return [_reduce(b, "ReduceMax" if largest else "ReduceMin", x, list(range(rank)), False) if rank else x]
        keep = _keep(a)
        if not wants_dim:
            x = reshape(b, x, [-1])
            axis = 0
        else:
            axis = norm_axis(a.const("dim"), rank_of(x, node), node)
        values, indices = b.TopK(x, b.const(np.int64(1)), axis=axis, mode="max" if largest else "min",
                                 sort="value", index_element_type="i64", stable=True)
        if not keep or not wants_dim:
            squeeze = b.const(np.array([axis], np.int64))
            values, indices = b.Squeeze(values, squeeze), b.Squeeze(indices, squeeze)
        if kind in ("aten::argmax", "aten::argmin"):
            return [indices]
        return [values, indices]


class AtenStatistic(AtenOp):
    """std / var (with correction), logsumexp, vector norms, all / any, count_nonzero."""

    op = "pytorch::Statistic"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        rank = rank_of(x, node)
        keep = _keep(a)
        if kind in ("aten::all", "aten::any", "aten::count_nonzero"):
            x = convert(b, x, "boolean")
            if rank == 0:
                return [x]
            axes = reduce_axes(a, node, rank)
            if kind == "aten::count_nonzero":
                return [_reduce(b, "ReduceSum", convert(b, x, "i64"), axes, False)]
            return [_reduce(b, "ReduceLogicalAnd" if kind == "aten::all" else "ReduceLogicalOr", x, axes, keep)]
        if not is_float_type(x.data.get_dtype()):
            x = convert(b, x, "f32")
        et = x.data.get_dtype()
        axes = reduce_axes(a, node, rank)
        if kind == "aten::logsumexp":
            peak = _reduce(b, "ReduceMax", x, axes, True)
            peak = b.Select(b.IsInf(peak), const(b, 0, et), peak)
            total = _reduce(b, "ReduceSum", b.Exp(b.Subtract(x, peak)), axes, True)
            y = b.Add(b.Log(total), peak)
            return [y if keep else b.Squeeze(y, b.const(np.array(axes, np.int64)))]
        if kind == "aten::cosine_similarity":
            y = convert(b, a.tensor(1), et)
            axis = [norm_axis(a.const("dim", 1), rank, node)]
            norms = b.Multiply(_reduce(b, "ReduceL2", x, axis, False), _reduce(b, "ReduceL2", y, axis, False))
            dot = _reduce(b, "ReduceSum", b.Multiply(x, y), axis, False)
            return [b.Divide(dot, b.Maximum(norms, const(b, a.const("eps", 1e-8), et)))]
        if kind in ("aten::std", "aten::var", "aten::var_mean", "aten::std_mean"):
            correction = cls._correction(a)
            mean = _reduce(b, "ReduceMean", x, axes, True)
            centered = b.Subtract(x, mean)
            total = _reduce(b, "ReduceSum", b.Multiply(centered, centered), axes, keep)
            count = const(b, 1, et)
            for axis in axes:
                count = b.Multiply(count, convert(b, dim_size(b, x, axis), et))
            var = b.Divide(total, b.Subtract(count, const(b, correction, et)))
            result = b.Sqrt(var) if kind.startswith("aten::std") else var
            if kind.endswith("_mean"):
                return [result, mean if keep else b.Squeeze(mean, b.const(np.array(axes, np.int64)))]
            return [result]
        order = a.const("ord", 2) if a.has("ord") else (a.const("p", 2) if a.has("p") else 2)
        order = 2 if order is None else float(order)
        if order == 2:
            return [_reduce(b, "ReduceL2", x, axes, keep)]
        if order == 1:
            return [_reduce(b, "ReduceL1", x, axes, keep)]
        if np.isinf(order):
            return [_reduce(b, "ReduceMax" if order > 0 else "ReduceMin", b.Abs(x), axes, keep)]
        if order == 0:
            return [_reduce(b, "ReduceSum", convert(b, b.NotEqual(x, const(b, 0, et)), et), axes, keep)]
        powered = _reduce(b, "ReduceSum", b.Power(b.Abs(x), const(b, order, et)), axes, keep)
        return [b.Power(powered, const(b, 1 / order, et))]

    @staticmethod
    def _correction(a) -> float:
        if a.has("correction") and a.const("correction", None) is not None:
            return float(a.const("correction"))
        if a.has("unbiased"):
            return 1.0 if a.const("unbiased", True) else 0.0
        return 1.0


class AtenCumSum(AtenOp):
    """cumsum(dim, dtype) as CumSum (integers accumulate in i64)."""

    op = "pytorch::CumSum"

    @classmethod
    def build(cls, node, a, b):
        x = a.tensor(0)
        dtype = a.const("dtype", None) if a.has("dtype") else None
        x = convert(b, x, dtype or ("i64" if not is_float_type(x.data.get_dtype()) else x.data.get_dtype()))
        axis = norm_axis(a.const("dim"), rank_of(x, node), node)
        return [b.CumSum(x, b.const(np.int64(axis)))]


class AtenSort(AtenOp):
    """topk(k, dim, largest, sorted), sort(dim, descending) and argsort as TopK (stable, i64
    indices)."""

    op = "pytorch::Sort"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        rank = rank_of(x, node)
        axis = norm_axis(a.const("dim", -1), max(rank, 1), node)
        if kind == "aten::topk":
            k = a.port("k")
            k = b.const(np.int64(a.const("k"))) if a.value("k") is not None else convert(b, k, "i64")
            largest = bool(a.const("largest", True))
        else:
            k = dim_size(b, x, axis)
            largest = bool(a.const("descending", False))
        values, indices = b.TopK(x, k, axis=axis, mode="max" if largest else "min", sort="value",
                                 index_element_type="i64", stable=True)
        return [indices] if kind == "aten::argsort" else [values, indices]
