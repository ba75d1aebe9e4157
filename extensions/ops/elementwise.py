"""Elementwise operations: binary ops with numpy broadcasting and unary math/activation ops."""
from __future__ import annotations

import math

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import broadcast_shapes
from mo.utils.types import convert_value

_erf = np.vectorize(math.erf, otypes=[np.float64])


class BinaryElementwise(Op):
    """Two inputs broadcast with numpy rules (``auto_broadcast``); ``fn`` computes values."""

    same_type_inputs = (0, 1)

    abstract = True
    defaults = {"auto_broadcast": "numpy"}
    ir_attrs = ("auto_broadcast",)
    fn = None
    bool_output = False

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype("boolean" if cls.bool_output else node.in_dtype(0))

    @classmethod
    def infer_shapes(cls, node):
        return [broadcast_shapes(node.in_shape(0), node.in_shape(1))]

    @classmethod
    def evaluate(cls, node, a, b):
        with np.errstate(all="ignore"):
            return cls.fn(a, b)


def _divide(a, b):
    if np.issubdtype(a.dtype, np.integer):
        return np.trunc(a / np.where(b == 0, 1, b)).astype(a.dtype)
    return np.divide(a, b)


def _power(a, b):
    if np.issubdtype(a.dtype, np.integer):
        return np.power(a.astype(np.float64), b).astype(a.dtype)
    return np.power(a, b.astype(a.dtype))


class Add(BinaryElementwise):
    op = "Add"
    fn = staticmethod(np.add)


class Subtract(BinaryElementwise):
    op = "Subtract"
    fn = staticmethod(np.subtract)


class Multiply(BinaryElementwise):
    op = "Multiply"
    fn = staticmethod(np.multiply)


class Divide(BinaryElementwise):
    """Division; integer division truncates (``m_pythondiv=false``) as ONNX and C do."""

    op = "Divide"
    defaults = {"auto_broadcast": "numpy", "m_pythondiv": False}
    ir_attrs = ("auto_broadcast", "m_pythondiv")
    fn = staticmethod(_divide)

    @classmethod
    def evaluate(cls, node, a, b):
        if node.get("m_pythondiv") and np.issubdtype(a.dtype, np.integer):
            return np.floor_divide(a, np.where(b == 0, 1, b))
        return super().evaluate(node, a, b)


class Power(BinaryElementwise):
    op = "Power"
    fn = staticmethod(_power)


class Maximum(BinaryElementwise):
    op = "Maximum"
    fn = staticmethod(np.maximum)


class Minimum(BinaryElementwise):
    op = "Minimum"
    fn = staticmethod(np.minimum)


class SquaredDifference(BinaryElementwise):
    op = "SquaredDifference"
    fn = staticmethod(lambda a, b: (a - b) * (a - b))


class FloorMod(BinaryElementwise):
    op = "FloorMod"
    fn = staticmethod(np.mod)


class Mod(BinaryElementwise):
    op = "Mod"
    fn = staticmethod(np.fmod)


class Equal(BinaryElementwise):
    op = "Equal"
    bool_output = True
    fn = staticmethod(np.equal)


class NotEqual(BinaryElementwise):
    op = "NotEqual"
    bool_output = True
    fn = staticmethod(np.not_equal)


class Less(BinaryElementwise):
    op = "Less"
    bool_output = True
    fn = staticmethod(np.less)


class LessEqual(BinaryElementwise):
    op = "LessEqual"
    bool_output = True
    fn = staticmethod(np.less_equal)


class Greater(BinaryElementwise):
    op = "Greater"
    bool_output = True
    fn = staticmethod(np.greater)


class GreaterEqual(BinaryElementwise):
    op = "GreaterEqual"
    bool_output = True
    fn = staticmethod(np.greater_equal)


class LogicalAnd(BinaryElementwise):
    op = "LogicalAnd"
    bool_output = True
    fn = staticmethod(np.logical_and)


class LogicalOr(BinaryElementwise):
    op = "LogicalOr"
    bool_output = True
    fn = staticmethod(np.logical_or)


class LogicalXor(BinaryElementwise):
    op = "LogicalXor"
    bool_output = True
    fn = staticmethod(np.logical_xor)


class BitwiseAnd(BinaryElementwise):
    op = "BitwiseAnd"
    version = "opset13"
    fn = staticmethod(np.bitwise_and)


class BitwiseOr(BinaryElementwise):
    op = "BitwiseOr"
    version = "opset13"
    fn = staticmethod(np.bitwise_or)


class BitwiseXor(BinaryElementwise):
    op = "BitwiseXor"
    version = "opset13"
    fn = staticmethod(np.bitwise_xor)


def _shift(a: np.ndarray, b: np.ndarray, left: bool) -> np.ndarray:
    """Shift of ``a`` by ``b`` bits; an amount outside [0, bit width) (undefined in the opset)
    gives 0, or -1 for a right shift of a negative value, as ONNX BitShift defines it."""
    amount = b.astype(np.int64)
    valid = (amount >= 0) & (amount < a.dtype.itemsize * 8)
    safe = np.where(valid, amount, 0).astype(a.dtype)
    shifted = np.left_shift(a, safe) if left else np.right_shift(a, safe)
    fill = np.where(a < 0, -1, 0) if not left and np.issubdtype(a.dtype, np.signedinteger) else 0
    return np.where(valid, shifted, fill).astype(a.dtype)


class BitwiseLeftShift(BinaryElementwise):
    op = "BitwiseLeftShift"
    version = "opset15"
    fn = staticmethod(lambda a, b: _shift(a, b, left=True))


class BitwiseRightShift(BinaryElementwise):
    op = "BitwiseRightShift"
    version = "opset15"
    fn = staticmethod(lambda a, b: _shift(a, b, left=False))


class PRelu(Op):
    """x if x >= 0 else slope * x; a 1-D slope as long as dim 1 of x applies per channel, any
    other slope broadcasts with numpy rules."""

    same_type_inputs = (0, 1)

    op = "PRelu"

    @classmethod
    def evaluate(cls, node, x, slope):
        if slope.ndim == 1 and x.ndim >= 2 and slope.size == x.shape[1]:
            slope = slope.reshape((-1,) + (1,) * (x.ndim - 2))
        return np.where(x >= 0, x, x * slope)


class Select(Op):
    """cond ? then : else with numpy broadcasting."""

    same_type_inputs = (1, 2)

    op = "Select"
    string_inputs = True        # moves string tensors too (OpenVINO string support)
    defaults = {"auto_broadcast": "numpy"}
    ir_attrs = ("auto_broadcast",)

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(1))

    @classmethod
    def infer_shapes(cls, node):
        return [broadcast_shapes(node.in_shape(0), node.in_shape(1), node.in_shape(2))]

    @classmethod
    def evaluate(cls, node, c, a, b):
        return np.where(c, a, b)


# ---------------------------------------------------------------------------- unary


class UnaryElementwise(Op):
    """One input, output of the same shape and type; ``fn`` computes values."""

    abstract = True
    fn = None

    @classmethod
    def evaluate(cls, node, x, *rest):
        with np.errstate(all="ignore"):
            return cls.fn(x)


def _unary(name: str, fn, version: str = "opset1", ir_type: str | None = None):
    attrs = {"op": name, "fn": staticmethod(fn), "version": version}
    if ir_type is not None:
        attrs["type"] = ir_type
    return type(name, (UnaryElementwise,), attrs)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _softplus(x):
    return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))


Abs = _unary("Abs", np.abs)
Acos = _unary("Acos", np.arccos)
Acosh = _unary("Acosh", np.arccosh, "opset4")
Asin = _unary("Asin", np.arcsin)
Asinh = _unary("Asinh", np.arcsinh, "opset4")
Atan = _unary("Atan", np.arctan)
Atanh = _unary("Atanh", np.arctanh, "opset4")
Ceiling = _unary("Ceiling", np.ceil)
Cos = _unary("Cos", np.cos)
Cosh = _unary("Cosh", np.cosh)
Erf = _unary("Erf", lambda x: _erf(x).astype(x.dtype))
Exp = _unary("Exp", np.exp)
Floor = _unary("Floor", np.floor)
Log = _unary("Log", np.log)
Negative = _unary("Negative", np.negative)
ReLU = _unary("ReLU", lambda x: np.maximum(x, 0).astype(x.dtype))
Sigmoid = _unary("Sigmoid", _sigmoid)
Sign = _unary("Sign", np.sign)
Sin = _unary("Sin", np.sin)
Sinh = _unary("Sinh", np.sinh)
Sqrt = _unary("Sqrt", np.sqrt)
Tan = _unary("Tan", np.tan)
Tanh = _unary("Tanh", np.tanh)
SoftPlus = _unary("SoftPlus", _softplus, "opset4")
SoftSign = _unary("SoftSign", lambda x: x / (1 + np.abs(x)), "opset9")
Mish = _unary("Mish", lambda x: x * np.tanh(_softplus(x)), "opset4")
HSwish = _unary("HSwish", lambda x: x * np.clip(x + 3, 0, 6) / 6, "opset4")
HSigmoid = _unary("HSigmoid", lambda x: np.clip(x + 3, 0, 6) / 6, "opset5")
BitwiseNot = _unary("BitwiseNot", np.invert, "opset13")
Identity = _unary("Identity", lambda x: x, "opset16")


class LogicalNot(UnaryElementwise):
    op = "LogicalNot"
    fn = staticmethod(np.logical_not)


class _BoolUnary(UnaryElementwise):
    abstract = True
    version = "opset10"

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype("boolean")


class IsFinite(_BoolUnary):
    op = "IsFinite"
    fn = staticmethod(np.isfinite)


class IsNaN(_BoolUnary):
    op = "IsNaN"
    fn = staticmethod(np.isnan)


class IsInf(_BoolUnary):
    op = "IsInf"
    defaults = {"detect_positive": True, "detect_negative": True}
    ir_attrs = ("detect_negative", "detect_positive")

    @classmethod
    def evaluate(cls, node, x):
        return (np.isposinf(x) & node.detect_positive) | (np.isneginf(x) & node.detect_negative)


class Round(UnaryElementwise):
    op = "Round"
    version = "opset5"
    defaults = {"mode": "half_to_even"}
    ir_attrs = ("mode",)

    @classmethod
    def evaluate(cls, node, x):
        if node.mode == "half_to_even":
            return np.round(x)
        return np.sign(x) * np.floor(np.abs(x) + 0.5)


class Clamp(UnaryElementwise):
    op = "Clamp"
    defaults = {"min": 0.0, "max": 0.0}
    ir_attrs = ("min", "max")

    @classmethod
    def evaluate(cls, node, x):
        lo, hi = node.min, node.max
        if np.issubdtype(x.dtype, np.integer):
            lo, hi = math.ceil(lo), math.floor(hi)
        return np.clip(x, lo, hi)


class Elu(UnaryElementwise):
    op = "Elu"
    defaults = {"alpha": 1.0}
    ir_attrs = ("alpha",)

    @classmethod
    def evaluate(cls, node, x):
        return np.where(x > 0, x, node.alpha * (np.exp(x) - 1))


class Gelu(UnaryElementwise):
    op = "Gelu"
    version = "opset7"
    defaults = {"approximation_mode": "ERF"}
    ir_attrs = ("approximation_mode",)

    @classmethod
    def evaluate(cls, node, x):
        if node.approximation_mode.upper() == "TANH":
            return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
        return 0.5 * x * (1 + _erf(x / np.sqrt(2)))


class Swish(UnaryElementwise):
    """x * sigmoid(beta * x); beta is the optional input 1 (default 1)."""

    op = "Swish"
    version = "opset4"

    @classmethod
    def evaluate(cls, node, x, beta=None):
        b = 1.0 if beta is None else beta
        return x * _sigmoid(b * x)


class Selu(UnaryElementwise):
    """lambda * (x if x > 0 else alpha * (exp(x) - 1)); alpha and lambda are inputs 1 and 2."""

    op = "Selu"

    @classmethod
    def evaluate(cls, node, x, alpha, lambda_):
        return lambda_ * np.where(x > 0, x, alpha * (np.exp(x) - 1))


class HardSigmoid(UnaryElementwise):
    """max(0, min(1, alpha * x + beta)); alpha and beta are inputs 1 and 2."""

    op = "HardSigmoid"

    @classmethod
    def evaluate(cls, node, x, alpha, beta):
        return np.clip(alpha * x + beta, 0, 1)


class Convert(Op):
    """Element type conversion to ``destination_type``. Not folded into float8 constants, which
    the IR writer cannot store."""

    op = "Convert"
    defaults = {"destination_type": "f32"}
    ir_attrs = ("destination_type",)

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.destination_type)

    @classmethod
    def infer(cls, node):
        if node.out_port(0).data.get_dtype() in ("f8e4m3", "f8e5m2"):
            node.out_port(0).data.set_shape(node.in_shape(0))
            return
        super().infer(node)

    @classmethod
    def evaluate(cls, node, x):
        return convert_value(x, node.destination_type)


class ConvertLike(Convert):
    """Converts input 0 to the element type of input 1."""

    op = "ConvertLike"
    defaults = {}
    ir_attrs = ()

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(1))

    @classmethod
    def evaluate(cls, node, x, like):
        return convert_value(x, node.in_dtype(1))
