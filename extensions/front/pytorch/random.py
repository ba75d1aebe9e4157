"""ATen random operations: rand / randn / randint / randperm (and their ``_like`` forms),
uniform_ / normal, bernoulli, multinomial: their translators, on RandomUniform and Multinomial.

* rand: RandomUniform in [0, 1); randint: integer RandomUniform in [low, high);
* randn / normal: the Box-Muller transform of two uniform draws, sqrt(-2 ln u1) cos(2 pi u2),
  scaled by std and shifted by mean;
* randperm(n): the indices that sort n uniform draws (TopK);
* bernoulli: 1 where a uniform draw is below the probability;
* multinomial: Multinomial (rows of a 1-D input as one batch);
* exponential_, cauchy_, geometric_, log_normal_: the inverse CDF of uniform draws (log-normal:
  the exponential of a normal draw).

Each RandomUniform gets its own op_seed (from the node's name) so that the draws of different
ops are independent; the values are not PyTorch's (its generator and seed are not reproduced),
their distribution is.
"""
from __future__ import annotations

import zlib

import numpy as np

from extensions.front.pytorch.aten import const, convert, int_list_port, rank_of, shape_of
from extensions.front.pytorch.creation import _given_dtype
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import i64

_UNIFORM_TYPES = ("f32", "f16", "bf16", "f64", "i32", "i64")
_FLOATS = ("f32", "f16", "bf16", "f64")


def _seed(b, salt: int = 0) -> int:
    """An op seed of its own for each random node (a hash of the translated node's name)."""
    return (zlib.crc32(b.prefix.encode()) + salt) & 0x7FFFFFFF


def uniform(b, shape, low: float, high: float, et: str, salt: int = 0):
    """Values uniform in [low, high) of type ``et`` (integer types: integers) in ``shape``."""
    kind = et if et in _UNIFORM_TYPES else ("f32" if et in _FLOATS else "i64")
    is_float = kind in _FLOATS
    bounds = [const(b, float(v) if is_float else int(v), kind) for v in (low, high)]
    scalar = shape.data.get_shape() == (0,)
    # the CPU plugin leaves the value of a RandomUniform of shape [] undefined: draw one and drop the dim
    values = b.RandomUniform(i64([1]) if scalar else shape, *bounds, output_type=kind, op_seed=_seed(b, salt))
    if scalar:
        values = b.Squeeze(values, i64([0]))
    return convert(b, values, et)


def standard_normal(b, shape, et: str):
    """Standard normal values: Box-Muller over two uniform draws in (0, 1]."""
    calc = "f64" if et == "f64" else "f32"
    u1 = b.Subtract(const(b, 1.0, calc), uniform(b, shape, 0.0, 1.0, calc, salt=0))   # (0, 1]: log is finite
    u2 = uniform(b, shape, 0.0, 1.0, calc, salt=1)
    radius = b.Sqrt(b.Multiply(const(b, -2.0, calc), b.Log(u1)))
    return convert(b, b.Multiply(radius, b.Cos(b.Multiply(const(b, 2 * np.pi, calc), u2))), et)


def _float_type(a, default: str = "f32") -> str:
    et = _given_dtype(a) or default
    if et not in _FLOATS:
        raise ConversionError(f"Random values of type {et} are not supported here (a floating-point type is needed).")
    return et


def _size(b, a):
    return int_list_port(b, a.int_list("size"))


@aten("aten::rand")
def rand(node, a, b):
    """rand(size, dtype...): uniform in [0, 1)."""
    return [uniform(b, _size(b, a), 0.0, 1.0, _float_type(a))]


@aten("aten::rand_like")
def rand_like(node, a, b):
    x = a.tensor(0)
    return [uniform(b, shape_of(b, x), 0.0, 1.0, _float_type(a, x.data.get_dtype()))]


@aten("aten::uniform")
def uniform_op(node, a, b):
    """uniform (x.uniform_(from, to)): x's shape and type, uniform in [from, to)."""
    x = a.tensor(0)
    return [uniform(b, shape_of(b, x), float(a.const("from", 0.0)), float(a.const("to", 1.0)),
                    _float_type(a, x.data.get_dtype()))]


@aten("aten::randn")
def randn(node, a, b):
    """randn(size, dtype...): standard normal."""
    return [standard_normal(b, _size(b, a), _float_type(a))]


@aten("aten::randn_like")
def randn_like(node, a, b):
    x = a.tensor(0)
    return [standard_normal(b, shape_of(b, x), _float_type(a, x.data.get_dtype()))]


@aten("aten::normal", "aten::normal_functional")
def normal(node, a, b):
    """normal(mean, std) of tensors or numbers (the shape of the tensors, or ``size`` for two
    numbers), and x.normal_(mean, std): x's shape and type."""
    if a.has("self"):
        x = a.tensor("self")
        et = x.data.get_dtype()
        shape = shape_of(b, x)
    else:
        tensors = [a.tensor(k) for k in ("mean", "std") if a.port(k) is not None and not a.is_weak(k)]
        et = _float_type(a, tensors[0].data.get_dtype() if tensors else "f32")
        if len(tensors) == 2:       # the shape they broadcast to
            shape = shape_of(b, b.Add(convert(b, tensors[0], et), convert(b, tensors[1], et)))
        else:
            shape = shape_of(b, tensors[0]) if tensors else _size(b, a)
    mean, std = (convert(b, a.port(k), et) if a.port(k) is not None else const(b, default, et)
                 for k, default in (("mean", 0.0), ("std", 1.0)))
    return [b.Add(b.Multiply(standard_normal(b, shape, et), std), mean)]


def _open_uniform(b, x, et: str):
    """Draws uniform in (0, 1] of x's shape in ``et`` (their log is finite)."""
    return b.Subtract(const(b, 1.0, et), uniform(b, shape_of(b, x), 0.0, 1.0, et))


def _calc_type(et: str) -> str:
    return "f64" if et == "f64" else "f32"


@aten("aten::exponential")
def exponential(node, a, b):
    """x.exponential_(lambd=1): x's shape and type, exponential: -ln(u) / lambd, u in (0, 1]."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    calc = _calc_type(et)
    draws = b.Negative(b.Log(_open_uniform(b, x, calc)))
    return [convert(b, b.Divide(draws, const(b, float(a.const("lambd", 1.0)), calc)), et)]


@aten("aten::cauchy")
def cauchy(node, a, b):
    """x.cauchy_(median=0, sigma=1): x's shape and type, median + sigma * tan(pi * (u - 1/2))."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    calc = _calc_type(et)
    angle = b.Multiply(b.Subtract(uniform(b, shape_of(b, x), 0.0, 1.0, calc), const(b, 0.5, calc)),
                       const(b, np.pi, calc))
    y = b.Add(b.Multiply(b.Tan(angle), const(b, float(a.const("sigma", 1.0)), calc)),
              const(b, float(a.const("median", 0.0)), calc))
    return [convert(b, y, et)]


@aten("aten::log_normal")
def log_normal(node, a, b):
    """x.log_normal_(mean=1, std=2): x's shape and type, exp(mean + std * N(0, 1))."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    calc = _calc_type(et)
    normal_draws = standard_normal(b, shape_of(b, x), calc)
    y = b.Exp(b.Add(b.Multiply(normal_draws, const(b, float(a.const("std", 2.0)), calc)),
                    const(b, float(a.const("mean", 1.0)), calc)))
    return [convert(b, y, et)]


@aten("aten::geometric")
def geometric(node, a, b):
    """x.geometric_(p): x's shape and type, the number of Bernoulli(p) trials up to the first
    success: ceil(ln(u) / ln(1 - p)), u in (0, 1], at least 1."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    calc = _calc_type(et)
    p = float(a.const("p"))
    if not 0 < p < 1:
        raise ConversionError(f"geometric needs a probability p in (0, 1), not {p}.")
    trials = b.Ceiling(b.Divide(b.Log(_open_uniform(b, x, calc)), const(b, float(np.log1p(-p)), calc)))
    return [convert(b, b.Maximum(trials, const(b, 1.0, calc)), et)]


@aten("aten::randint")
def randint(node, a, b):
    """randint(low=0, high, size, dtype=int64): integers uniform in [low, high) (drawn as i64, also
    for a floating-point dtype)."""
    et = _given_dtype(a) or "i64"
    return [convert(b, uniform(b, _size(b, a), int(a.const("low", 0)), int(a.const("high")), "i64"), et)]


@aten("aten::randint_like")
def randint_like(node, a, b):
    """randint_like(self, low=0, high): x's shape and type."""
    x = a.tensor(0)
    et = _given_dtype(a) or x.data.get_dtype()
    return [convert(b, uniform(b, shape_of(b, x), int(a.const("low", 0)), int(a.const("high")), "i64"), et)]


@aten("aten::randperm")
def randperm(node, a, b):
    """randperm(n, dtype=int64): a random permutation of 0..n-1, the order that sorts n uniform
    draws."""
    n = a.port("n")
    count = b.Reshape(convert(b, n, "i64"), i64(1), special_zero=False)
    keys = uniform(b, count, 0.0, 1.0, "f32")
    _, indices = b.TopK(keys, b.Reshape(count, np.array([], np.int64), special_zero=False), axis=0, mode="max",
                        sort="value", index_element_type="i64")
    return [convert(b, indices, _given_dtype(a) or "i64")]


@aten("aten::bernoulli")
def bernoulli(node, a, b):
    """bernoulli(self) (self the probabilities) or bernoulli(self, p): 1 where a uniform draw is
    below the probability, in self's type."""
    x = a.tensor(0)
    et = x.data.get_dtype()
    if a.has("p") and not a.is_none("p"):
        p = a.port("p")
        prob = const(b, float(a.const("p")), "f32") if p is None or a.value("p") is not None else convert(b, p, "f32")
    else:
        prob = convert(b, x, "f32")
    draws = uniform(b, shape_of(b, x), 0.0, 1.0, "f32")
    return [convert(b, b.Less(draws, prob), et)]


@aten("aten::multinomial")
def multinomial(node, a, b):
    """multinomial(self, num_samples, replacement=False): class indices drawn by the (unnormalized)
    probabilities of each row; a 1-D input is one row. With replacement: Multinomial; without:
    the num_samples largest of log(p) + Gumbel noise (the Gumbel-top-k draw, which samples
    without replacement in proportion to p; OpenVINO's own draw repeats classes)."""
    probs = a.tensor(0)
    rank = rank_of(probs, node)
    if rank not in (1, 2):
        raise ConversionError(f"multinomial takes probabilities of rank 1 or 2, not {rank}.")
    rows = b.Unsqueeze(probs, i64(0)) if rank == 1 else probs
    count = convert(b, a.tensor("num_samples"), "i64")
    if bool(a.const("replacement", False)):
        y = b.Multinomial(rows, count, convert_type="i64", with_replacement=True, log_probs=False, op_seed=_seed(b))
        # the CPU plugin compiles a Multinomial only when its output has one consumer ("incorrect
        # number of output edges"), and it looks through Reshapes and Converts: Maximum with 0
        # (the indices are never negative) is that consumer, whose output can have any number
        y = b.Maximum(y, b.const(np.int64(0)))
    else:
        weights = convert(b, rows, "f32")
        draws = uniform(b, shape_of(b, weights), 0.0, 1.0, "f32")
        gumbel = b.Negative(b.Log(b.Negative(b.Log(b.Subtract(const(b, 1.0, "f32"), draws)))))
        keys = b.Add(b.Log(weights), gumbel)          # log 0 = -inf: never drawn
        y = b.TopK(keys, b.Reshape(count, i64([]), special_zero=False), axis=1, mode="max", sort="value",
                   index_element_type="i64")[1]
    return [b.Squeeze(y, i64(0)) if rank == 1 else y]
