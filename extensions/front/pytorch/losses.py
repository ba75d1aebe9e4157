"""ATen loss functions: cross entropy and negative log likelihood (class indices or
probabilities, weights, ignore_index, label smoothing), binary cross entropy (of probabilities and
of logits), the regression losses (mse, l1, smooth l1, huber), kl_div, and the margin losses
(margin ranking, soft margin, hinge embedding, cosine embedding, triplet margin, multi margin),
poisson_nll_loss, ctc_loss (CTCLoss): their translators.

``reduction`` is PyTorch's enum: 0 none, 1 mean, 2 sum."""
from __future__ import annotations

import math

import numpy as np

from extensions.front.pytorch.aten import const, is_float_type, promoted, reshape
from extensions.front.pytorch.reductions import p_norm
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import channel_bias, convert, dim, i64, rank_of
from mo.utils.types import INT_TYPES

NONE, MEAN, SUM = 0, 1, 2


def _all_axes(x) -> np.ndarray:
    return np.arange(x.data.get_rank(), dtype=np.int64)


def reduced(b, loss, reduction: int, weights=None):
    """The loss reduced: none, mean (over the elements, or divided by the sum of ``weights``) or
    sum."""
    if reduction == NONE:
        return loss
    if reduction not in (MEAN, SUM):
        raise ConversionError(f"Unknown loss reduction {reduction} (PyTorch's are 0 none, 1 mean, 2 sum).")
    total = b.ReduceSum(loss, _all_axes(loss), keep_dims=False)
    if reduction == SUM:
        return total
    if weights is not None:
        return b.Divide(total, b.ReduceSum(weights, _all_axes(weights), keep_dims=False))
    return b.ReduceMean(loss, _all_axes(loss), keep_dims=False)


def _floats(a, b, keys, integers: bool = False):
    """The arguments ``keys`` in their promoted floating-point type, and a maker of constants of it;
    with ``integers`` (losses PyTorch computes for integer and boolean tensors in f32) those in f32."""
    et, ports = promoted(a, keys, b)
    if not is_float_type(et):
        if not integers:
            raise ConversionError(f"{a.node.fw_op} is defined for floating point tensors (PyTorch refuses {et}).")
        et, ports = "f32", [convert(b, p, "f32") for p in ports]
    return ports, (lambda v: const(b, v, et))


_REDUCTION_NAMES = {"none": NONE, "mean": MEAN, "sum": SUM}


def _integer_math(b, et: str, op: str, *ports):
    """``op`` on integer ``ports`` of type ``et`` as PyTorch computes it there, wrapping around on
    overflow (8- and 16-bit types computed in i32 and wrapped explicitly: the CPU plugin saturates
    them); the result in ``et``, or i32 for those."""
    bits = {"u8": 8, "i8": 8, "u16": 16, "i16": 16}.get(et)
    if bits is None:
        return b.op(op, *ports)
    y = b.op(op, *[convert(b, p, "i32") for p in ports])
    low = 0 if et.startswith("u") else -(1 << (bits - 1))
    return b.Add(b.FloorMod(b.Subtract(y, np.int32(low)), np.int32(1 << bits)), np.int32(low))


def _reduction(a) -> int:
    value = a.const("reduction", MEAN)
    return _REDUCTION_NAMES[value] if isinstance(value, str) and value in _REDUCTION_NAMES else int(value)


def _optional(a, key):
    return None if not a.has(key) or a.is_none(key) else a.tensor(key)


# ---------------------------------------------------------------------------- class losses


def _batched(node, b, scores, target):
    """[N, C, d...] scores and [N, d...] target, and whether an unbatched [C] / 0-d pair was
    given (a batch of one added; 0-d scores are one class)."""
    rank = rank_of(scores, node)
    if rank < 2:        # the target is 0-d or has one element
        return reshape(b, scores, [1, -1]), reshape(b, target, [1]), True
    return scores, target, False


def _per_sample_reduced(a, b, loss, unbatched: bool):
    """A per-sample loss [N] reduced; unreduced of an unbatched input: its one value, 0-d."""
    result = reduced(b, loss, _reduction(a))
    return b.Squeeze(result, i64(0)) if unbatched and _reduction(a) == NONE else result


def _nll(node, b, log_prob, target, weight, ignore_index: int):
    """(-w[target] * log_prob[target] per element [N, d...], w[target] with 0 where ignored): the
    class picked by each target as a one-hot mask along dim 1 (no gathers, so out-of-range
    ignored targets are harmless)."""
    et = log_prob.data.get_dtype()
    rank = rank_of(log_prob, node)
    zero = const(b, 0, et)
    target = convert(b, target, "i64")
    classes = b.Range(np.int64(0), dim(b, log_prob, 1), np.int64(1), output_type="i64")
    if rank > 2:
        classes = channel_bias(b, classes, rank - 2)
    mask = b.Equal(b.Unsqueeze(target, i64(1)), classes)                         # [N, C, d...]
    picked = b.ReduceSum(b.Select(mask, log_prob, zero), i64(1), keep_dims=False)
    if weight is not None:
        weight = convert(b, weight, et)
        w = b.ReduceSum(b.Select(mask, channel_bias(b, weight, rank - 2) if rank > 2 else weight, zero), i64(1),
                        keep_dims=False)
    else:
        w = convert(b, b.ReduceLogicalOr(mask, i64(1), keep_dims=False), et)
    w = b.Select(b.Equal(target, np.int64(ignore_index)), zero, w)
    return b.Multiply(b.Negative(picked), w), w


def _weight_along_classes(node, b, weight, rank: int, et: str):
    weight = convert(b, weight, et)
    return channel_bias(b, weight, rank - 2) if rank > 2 else weight


def _index_loss(node, a, b, log_prob, target, unbatched: bool, reduction: int | None = None):
    """nll (with label smoothing for cross entropy) of class-index targets, reduced (``reduction``,
    or the argument's)."""
    weight = _optional(a, "weight")
    ignore_index = int(a.const("ignore_index", -100))
    reduction = _reduction(a) if reduction is None else reduction
    loss, w = _nll(node, b, log_prob, target, weight, ignore_index)
    result = reduced(b, loss, reduction, w if reduction == MEAN else None)
    smoothing = float(a.const("label_smoothing", 0.0)) if a.has("label_smoothing") else 0.0
    if smoothing:
        et = log_prob.data.get_dtype()
        rank = rank_of(log_prob, node)
        terms = log_prob if weight is None else b.Multiply(log_prob, _weight_along_classes(node, b, weight, rank, et))
        smooth = b.Negative(b.ReduceSum(terms, i64(1), keep_dims=False))
        kept = b.NotEqual(convert(b, target, "i64"), np.int64(ignore_index))
        smooth = b.Select(kept, smooth, const(b, 0, et))
        if reduction == MEAN:
            total = b.ReduceSum(smooth, _all_axes(smooth), keep_dims=False)
            count = w if weight is not None else convert(b, kept, et)
            smooth = b.Divide(total, b.ReduceSum(count, _all_axes(count), keep_dims=False))
        else:
            smooth = reduced(b, smooth, reduction)
        classes = convert(b, dim(b, log_prob, 1), et)
        result = b.Add(b.Multiply(result, const(b, 1 - smoothing, et)),
                       b.Multiply(smooth, b.Divide(const(b, smoothing, et), classes)))
    if unbatched and reduction == NONE:
        result = b.Squeeze(result, i64(0))
    return result


@aten("aten::nll_loss", "aten::nll_loss_nd", "aten::nll_loss2d", "aten::nll_loss_forward",
      "aten::nll_loss2d_forward")
def nll_loss(node, a, b):
    """nll_loss(log_prob [N, C, d...] or [C], target, weight, reduction, ignore_index); the
    *_forward forms also give the total weight."""
    (scores,), _ = _floats(a, b, (0,))
    scores, target, unbatched = _batched(node, b, scores, a.tensor(1))
    loss = _index_loss(node, a, b, scores, target, unbatched)
    if node.num_outputs == 2:
        _, w = _nll(node, b, scores, target, _optional(a, "weight"), int(a.const("ignore_index", -100)))
        return [loss, b.ReduceSum(w, _all_axes(w), keep_dims=False)]
    return [loss]


@aten("aten::cross_entropy_loss")
def cross_entropy_loss(node, a, b):
    """cross_entropy_loss(input, target, weight, reduction, ignore_index, label_smoothing):
    LogSoftmax over the classes (dim 1, dim 0 unbatched), then the nll of class indices, or for
    probability targets (a float target of the input's shape) -sum(target * log_prob * weight)
    over the classes, smoothed towards 1 / C, mean over the other elements."""
    (scores,), c = _floats(a, b, (0,))
    target = a.tensor(1)
    scores, target, unbatched = _batched(node, b, scores, target)
    log_prob = b.LogSoftmax(scores, axis=1)
    if not is_float_type(target.data.get_dtype()):
        return [_index_loss(node, a, b, log_prob, target, unbatched)]
    et = log_prob.data.get_dtype()
    rank = rank_of(log_prob, node)
    target = convert(b, target, et)
    classes = convert(b, dim(b, log_prob, 1), et)
    smoothing = float(a.const("label_smoothing", 0.0))
    if smoothing:
        target = b.Add(b.Multiply(target, c(1 - smoothing)), b.Divide(c(smoothing), classes))
    terms = b.Multiply(log_prob, target)
    weight = _optional(a, "weight")
    if weight is not None:
        terms = b.Multiply(terms, _weight_along_classes(node, b, weight, rank, et))
    loss = b.Negative(b.ReduceSum(terms, i64(1), keep_dims=False))
    return [_per_sample_reduced(a, b, loss, unbatched)]


@aten("aten::multi_margin_loss")
def multi_margin_loss(node, a, b):
    """multi_margin_loss(input [N, C] or [C], target, p, margin, weight, reduction): per sample
    sum over i != y of max(0, margin - x[y] + x[i])^p (times weight[y]) / C."""
    (scores,), c = _floats(a, b, (0,))
    scores, target, unbatched = _batched(node, b, scores, a.tensor(1))
    et = scores.data.get_dtype()
    p = int(a.const("p", 1))
    if p not in (1, 2):
        raise ConversionError(f"multi_margin_loss takes p 1 or 2, not {p}.")
    classes = b.Range(np.int64(0), dim(b, scores, 1), np.int64(1), output_type="i64")
    mask = b.Equal(b.Unsqueeze(convert(b, target, "i64"), i64(1)), classes)      # [N, C]
    picked = b.ReduceSum(b.Select(mask, scores, c(0)), i64(1), keep_dims=True)
    terms = b.Maximum(b.Add(b.Subtract(c(float(a.const("margin", 1))), picked), scores), c(0))
    if p == 2:
        terms = b.Multiply(terms, terms)
    weight = _optional(a, "weight")
    if weight is not None:
        terms = b.Multiply(terms, b.ReduceSum(b.Select(mask, convert(b, weight, et), c(0)), i64(1), keep_dims=True))
    terms = b.Select(mask, c(0), terms)
    loss = b.Divide(b.ReduceSum(terms, i64(1), keep_dims=False), convert(b, dim(b, scores, 1), et))
    return [_per_sample_reduced(a, b, loss, unbatched)]


@aten("aten::multilabel_margin_loss")
def multilabel_margin_loss(node, a, b):
    """multilabel_margin_loss(input [N, C] or [C], target of class indices (the same shape, ended by
    the first -1), reduction): per sample sum over the target classes j and the other classes i of
    max(0, 1 - (x[j] - x[i])) / C."""
    (scores,), c = _floats(a, b, (0,))
    target = convert(b, a.tensor(1), "i64")                                             # [N, K]
    unbatched = rank_of(scores, node) < 2
    if unbatched:
        scores, target = reshape(b, scores, [1, -1]), reshape(b, target, [1, -1])
    et = scores.data.get_dtype()
    valid = b.Equal(b.CumSum(convert(b, b.Less(target, np.int64(0)), "i64"), np.int64(1)), np.int64(0))
    classes = b.Range(np.int64(0), dim(b, scores, 1), np.int64(1), output_type="i64")
    hits = b.LogicalAnd(b.Equal(b.Unsqueeze(target, i64(2)), classes), b.Unsqueeze(valid, i64(2)))  # [N, K, C]
    is_target = b.ReduceLogicalOr(hits, i64(1), keep_dims=True)                         # [N, 1, C]
    picked = b.ReduceSum(b.Select(hits, b.Unsqueeze(scores, i64(1)), c(0)), i64(2), keep_dims=True)  # [N, K, 1]
    terms = b.Maximum(b.Add(b.Subtract(c(1), picked), b.Unsqueeze(scores, i64(1))), c(0))  # [N, K, C]
    terms = b.Select(b.LogicalAnd(b.Unsqueeze(valid, i64(2)), b.LogicalNot(is_target)), terms, c(0))
    loss = b.Divide(b.ReduceSum(terms, i64([1, 2]), keep_dims=False), convert(b, dim(b, scores, 1), et))
    return [_per_sample_reduced(a, b, loss, unbatched)]


# ---------------------------------------------------------------------------- binary losses


def _weighted(a, b, loss, key: str = "weight"):
    weight = _optional(a, key)
    return loss if weight is None else b.Multiply(loss, convert(b, weight, loss.data.get_dtype()))


@aten("aten::binary_cross_entropy")
def binary_cross_entropy(node, a, b):
    """-(y log x + (1 - y) log(1 - x)), each log bounded below by -100 as in PyTorch."""
    (x, y), c = _floats(a, b, (0, 1))
    log_x = b.Maximum(b.Log(x), c(-100.0))
    log_1mx = b.Maximum(b.Log(b.Subtract(c(1), x)), c(-100.0))
    loss = b.Negative(b.Add(b.Multiply(y, log_x), b.Multiply(b.Subtract(c(1), y), log_1mx)))
    return [reduced(b, _weighted(a, b, loss), _reduction(a))]


@aten("aten::binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(node, a, b):
    """(1 - y) x + (1 + (pos_weight - 1) y) (log(1 + exp(-|x|)) + max(-x, 0)): the cross
    entropy of sigmoid(x), computed without overflow; times ``weight``."""
    (x, y), c = _floats(a, b, (0, 1))
    softplus_neg = b.Add(b.Log(b.Add(c(1), b.Exp(b.Negative(b.Abs(x))))), b.Maximum(b.Negative(x), c(0)))
    pos_weight = _optional(a, "pos_weight")
    factor = c(1) if pos_weight is None else \
        b.Add(c(1), b.Multiply(b.Subtract(convert(b, pos_weight, x.data.get_dtype()), c(1)), y))
    loss = b.Add(b.Multiply(b.Subtract(c(1), y), x), b.Multiply(factor, softplus_neg))
    return [reduced(b, _weighted(a, b, loss), _reduction(a))]


@aten("aten::soft_margin_loss")
def soft_margin_loss(node, a, b):
    """log(1 + exp(-y x))."""
    (x, y), c = _floats(a, b, (0, 1))
    return [reduced(b, b.Log(b.Add(c(1), b.Exp(b.Negative(b.Multiply(y, x))))), _reduction(a))]


# ---------------------------------------------------------------------------- regression losses


@aten("aten::mse_loss")
def mse_loss(node, a, b):
    (x, y), _ = _floats(a, b, (0, 1))
    d = b.Subtract(x, y)
    return [reduced(b, b.Multiply(d, d), _reduction(a))]


@aten("aten::l1_loss")
def l1_loss(node, a, b):
    (x, y), _ = _floats(a, b, (0, 1))
    return [reduced(b, b.Abs(b.Subtract(x, y)), _reduction(a))]


@aten("aten::smooth_l1_loss")
def smooth_l1_loss(node, a, b):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (beta 0: |d|)."""
    (x, y), c = _floats(a, b, (0, 1))
    beta = float(a.const("beta", 1.0))
    d = b.Abs(b.Subtract(x, y))
    if beta == 0:
        return [reduced(b, d, _reduction(a))]
    loss = b.Select(b.Less(d, c(beta)), b.Divide(b.Multiply(c(0.5), b.Multiply(d, d)), c(beta)),
                    b.Subtract(d, c(0.5 * beta)))
    return [reduced(b, loss, _reduction(a))]


@aten("aten::huber_loss")
def huber_loss(node, a, b):
    """0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta)."""
    (x, y), c = _floats(a, b, (0, 1))
    delta = float(a.const("delta", 1.0))
    d = b.Abs(b.Subtract(x, y))
    loss = b.Select(b.LessEqual(d, c(delta)), b.Multiply(c(0.5), b.Multiply(d, d)),
                    b.Multiply(c(delta), b.Subtract(d, c(0.5 * delta))))
    return [reduced(b, loss, _reduction(a))]


@aten("aten::kl_div")
def kl_div(node, a, b):
    """kl_div(input, target, reduction, log_target): target (log target - input) (0 where the
    target is 0), or exp(target) (target - input) for log targets."""
    (x, y), c = _floats(a, b, (0, 1))
    if a.const("log_target", False):
        loss = b.Multiply(b.Exp(y), b.Subtract(y, x))
    else:
        loss = b.Select(b.Equal(y, c(0)), c(0), b.Multiply(y, b.Subtract(b.Log(y), x)))
        loss = b.Select(b.IsNaN(y), y, loss)
    return [reduced(b, loss, _reduction(a))]


@aten("aten::poisson_nll_loss")
def poisson_nll_loss(node, a, b):
    """poisson_nll_loss(input, target, log_input, full, eps, reduction): exp(x) - y x for log
    inputs, else x - y log(x + eps); ``full`` adds Stirling's y log y - y + 0.5 log(2 pi y) where
    y > 1."""
    (x, y), c = _floats(a, b, (0, 1), integers=True)
    if a.const("log_input", True):
        loss = b.Subtract(b.Exp(x), b.Multiply(y, x))
    else:
        loss = b.Subtract(x, b.Multiply(y, b.Log(b.Add(x, c(float(a.const("eps", 1e-8)))))))
    if a.const("full", False):
        stirling = b.Add(b.Subtract(b.Multiply(y, b.Log(y)), y),
                         b.Multiply(c(0.5), b.Log(b.Multiply(c(2 * math.pi), y))))
        loss = b.Add(loss, b.Select(b.Greater(y, c(1)), stirling, c(0)))
    return [reduced(b, loss, _reduction(a))]


# ---------------------------------------------------------------------------- margin losses


@aten("aten::margin_ranking_loss")
def margin_ranking_loss(node, a, b):
    """max(0, -y (x1 - x2) + margin) (integers: -y (x1 - x2) in their type, the rest in f32)."""
    et, (x1, x2, y) = promoted(a, (0, 1, 2), b)
    if et in INT_TYPES:
        negated = _integer_math(b, et, "Subtract", const(b, 0, et), y)
        product = convert(b, _integer_math(b, et, "Multiply", negated, _integer_math(b, et, "Subtract", x1, x2)), "f32")
    else:
        (x1, x2, y), _ = _floats(a, b, (0, 1, 2))
        product = b.Negative(b.Multiply(y, b.Subtract(x1, x2)))
    et = product.data.get_dtype()
    loss = b.Maximum(b.Add(product, const(b, float(a.const("margin", 0.0)), et)), const(b, 0, et))
    return [reduced(b, loss, _reduction(a))]


@aten("aten::hinge_embedding_loss")
def hinge_embedding_loss(node, a, b):
    """x where y != -1, plus max(0, margin - x) where y != 1."""
    (x, y), c = _floats(a, b, (0, 1))
    margin = b.Maximum(b.Subtract(c(float(a.const("margin", 1.0))), x), c(0))
    loss = b.Add(b.Select(b.NotEqual(y, c(1)), margin, c(0)), b.Select(b.NotEqual(y, c(-1)), x, c(0)))
    return [reduced(b, loss, _reduction(a))]


@aten("aten::cosine_embedding_loss")
def cosine_embedding_loss(node, a, b):
    """1 - cos(x1, x2) where y == 1, max(0, cos - margin) where y == -1; cos over the last dim
    with 1e-12 added to each squared magnitude."""
    (x1, x2, y), c = _floats(a, b, (0, 1, 2), integers=True)
    axis = i64(max(rank_of(x1, node), rank_of(x2, node)) - 1)
    products = b.ReduceSum(b.Multiply(x1, x2), axis, keep_dims=False)
    squares = [b.Add(b.ReduceSum(b.Multiply(t, t), axis, keep_dims=False), c(1e-12)) for t in (x1, x2)]
    cos = b.Divide(products, b.Sqrt(b.Multiply(*squares)))
    loss = b.Add(b.Select(b.Equal(y, c(1)), b.Subtract(c(1), cos), c(0)),
                 b.Select(b.Equal(y, c(-1)), b.Maximum(b.Subtract(cos, c(float(a.const("margin", 0.0)))), c(0)),
                          c(0)))
    return [reduced(b, loss, _reduction(a))]


@aten("aten::triplet_margin_loss")
def triplet_margin_loss(node, a, b):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with d the p-norm of the
    difference + eps over the last dim; ``swap`` takes the smaller of d(a, n) and d(p, n)
    (integers: the differences in their type, the rest in f32)."""
    et, (anchor, positive, negative) = promoted(a, (0, 1, 2), b)
    integer = et in INT_TYPES
    if integer:
        c = lambda v: const(b, v, "f32")  # noqa: E731
    else:
        (anchor, positive, negative), c = _floats(a, b, (0, 1, 2))
    p, eps = float(a.const("p", 2.0)), float(a.const("eps", 1e-6))
    axis = max(rank_of(t, node) for t in (anchor, positive, negative)) - 1

    def distance(u, v):
        difference = convert(b, _integer_math(b, et, "Subtract", u, v), "f32") if integer else b.Subtract(u, v)
        return p_norm(b, b.Add(difference, c(eps)), p, [axis], False)
    d_ap, d_an = distance(anchor, positive), distance(anchor, negative)
    if a.const("swap", False):
        d_an = b.Minimum(d_an, distance(positive, negative))
    loss = b.Maximum(b.Subtract(b.Add(c(float(a.const("margin", 1.0))), d_ap), d_an), c(0))
    return [reduced(b, loss, _reduction(a))]


def _lengths(b, a, key: str):
    """A lengths argument (a tensor or a list of ints) as a 1-D i64 tensor."""
    port = a.port(key)
    return convert(b, port, "i64") if port is not None else b.const(np.array(a.int_list(key), np.int64))


@aten("aten::ctc_loss")
def ctc_loss(node, a, b):
    """ctc_loss(log_probs [T, N, C], targets [N, S], input_lengths, target_lengths, blank, reduction,
    zero_infinity) as CTCLoss on [N, T, C] with the targets padded to T. CTCLoss takes the log
    softmax of its logits, PyTorch takes them as they are: the log-sum-exp of each step within a
    sample's length is taken off. Mean: each loss divided by its target length, then the mean."""
    log_probs = a.tensor(0)
    if rank_of(log_probs, node) != 3 or rank_of(a.tensor("targets"), node) != 2:
        raise ConversionError("ctc_loss is converted for batched log_probs [T, N, C] and padded targets [N, S].")
    et = log_probs.data.get_dtype()
    logits = b.Transpose(log_probs, i64([1, 0, 2]))
    steps = dim(b, log_probs, 0)
    targets = convert(b, a.tensor("targets"), "i64")
    # CTCLoss takes labels [N, T]: padded (or cut) to T, what lies past a target's length is ignored
    pad = b.Maximum(b.Subtract(steps, dim(b, targets, 1)), np.int64(0))
    labels = b.Pad(targets, i64([0, 0]), b.Concat(i64([0]), b.Reshape(pad, i64([1]), special_zero=False), axis=0),
                   np.int64(0), pad_mode="constant")
    labels = b.Slice(labels, i64([0]), b.Reshape(steps, i64([1]), special_zero=False), i64([1]), i64([1]))
    input_lengths, target_lengths = _lengths(b, a, "input_lengths"), _lengths(b, a, "target_lengths")
    blank = b.const(np.int64(a.const("blank", 0)))
    # the CPU plugin refuses a target longer than its input, whose loss is infinite: it gets a
    # shorter one, and the infinity
    fits = b.LessEqual(target_lengths, input_lengths)
    loss = b.CTCLoss(logits, input_lengths, labels, b.Minimum(target_lengths, input_lengths), blank,
                     preprocess_collapse_repeated=False, ctc_merge_repeated=True, unique=False)
    loss = b.Select(fits, loss, const(b, np.inf, et))
    lse = b.Log(b.ReduceSum(b.Exp(b.Subtract(logits, b.ReduceMax(logits, i64([2]), keep_dims=True))), i64([2]),
                            keep_dims=False))
    lse = b.Add(lse, b.ReduceMax(logits, i64([2]), keep_dims=False))        # [N, T]
    positions = b.Range(np.int64(0), steps, np.int64(1), output_type="i64")
    within = b.Less(b.Unsqueeze(positions, i64([0])), b.Unsqueeze(input_lengths, i64([1])))
    loss = b.Subtract(loss, b.ReduceSum(b.Select(within, lse, const(b, 0.0, et)), i64([1]), keep_dims=False))
    if bool(a.const("zero_infinity", False)):
        loss = b.Select(b.IsInf(loss), const(b, 0.0, et), loss)
    reduction = _reduction(a)
    if reduction == MEAN:
        loss = b.Divide(loss, convert(b, b.Maximum(target_lengths, np.int64(1)), et))
    return [reduced(b, loss, reduction)]


@aten("torch_nn::_linear_cross_entropy_batch_chunked", "torch_nn::_linear_cross_entropy_batch_chunked_no_reduction")
def linear_cross_entropy(node, a, b):
    """torch.nn.functional.linear_cross_entropy's chunked forms in exported programs (input [..., D],
    linear_weight [C, D], target [...], linear_bias, weight, reduction, ignore_index,
    label_smoothing, chunking options): the cross entropy of the class-index targets over the
    logits input @ linear_weight^T + bias, all at once (the chunks only bound training memory);
    the loss, then outputs saved for the gradient, unused."""
    (x, linear), _ = _floats(a, b, ("input", "linear_weight"))
    logits = b.MatMul(x, linear, transpose_a=False, transpose_b=True)
    bias = _optional(a, "linear_bias")
    if bias is not None:
        logits = b.Add(logits, convert(b, bias, logits.data.get_dtype()))
    target = a.tensor("target")
    classes = b.Gather(b.ShapeOf(logits), i64([-1]), np.int64(0))
    log_prob = b.LogSoftmax(b.Reshape(logits, b.Concat(i64([-1]), classes, axis=0), special_zero=False), axis=1)
    no_reduction = node.fw_op.endswith("_no_reduction")
    loss = _index_loss(node, a, b, log_prob, b.Reshape(target, i64([-1]), special_zero=False), False,
                       NONE if no_reduction else None)
    if no_reduction:
        loss = b.Reshape(loss, b.ShapeOf(target), special_zero=False)
    return [loss] + [None] * (node.num_outputs - 1)
