"""Layer tests of the TensorFlow elementwise operations: each op in a tf.function, frozen,
converted and compared with TensorFlow."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

raw = tf.raw_ops

X = random((2, 3, 4), seed=1)
Y = random((2, 3, 4), seed=2)
POS = random((2, 3, 4), seed=3, low=0.1, high=3.0)
UNIT = random((2, 3, 4), seed=4, low=-0.9, high=0.9)
I1 = random((2, 5), np.int32, seed=5, low=-9, high=9)
I2 = random((2, 5), np.int32, seed=6, low=1, high=5) * np.where(random((2, 5), seed=7) > 0, 1, -1).astype(np.int32)
B1, B2 = random((2, 5), np.bool_, seed=8), random((2, 5), np.bool_, seed=9)

FEATURES = ("Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign")
# op -> its input
UNARY = {
    "Abs": X, "Acos": UNIT, "Acosh": POS + 1, "Asin": UNIT, "Asinh": X, "Atan": X, "Atanh": UNIT, "Ceil": X,
    "Cos": X, "Cosh": X, "Erf": X, "Erfc": X, "Exp": X, "Expm1": X, "Floor": X, "Log": POS, "Log1p": POS,
    "Neg": X, "Reciprocal": POS, "Relu": X, "Relu6": X * 4, "Elu": X, "Selu": X, "Rsqrt": POS, "Sigmoid": X,
    "Sign": X, "Sin": X, "Sinh": X, "Softplus": X, "Softsign": X, "Sqrt": POS, "Square": X, "Tan": UNIT,
    "Tanh": X, "Round": np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3], np.float32),
    "IsNan": np.array([1.0, np.nan, np.inf], np.float32), "IsInf": np.array([1.0, np.nan, -np.inf], np.float32),
    "IsFinite": np.array([1.0, np.nan, np.inf], np.float32), "LogicalNot": B1, "ZerosLike": X, "OnesLike": I1,
    "Inv": POS, "Rint": np.array([-2.5, -1.5, 0.5, 1.5, 2.7], np.float32), "Invert": I1,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(tmp_path, name):
    op = getattr(raw, name)
    arg = "features" if name in FEATURES else "x"
    check_tf(tmp_path, lambda a: op(**{arg: a}), [UNARY[name]])


def test_leaky_relu(tmp_path):
    check_tf(tmp_path, lambda a: raw.LeakyRelu(features=a, alpha=0.3), [X])


BINARY = {
    "Add": (raw.Add, X, Y), "AddV2": (raw.AddV2, X, Y), "Sub": (raw.Sub, X, Y), "Mul": (raw.Mul, X, Y),
    "RealDiv": (raw.RealDiv, X, POS), "Div": (raw.Div, X, POS), "Pow": (raw.Pow, POS, Y),
    "Maximum": (raw.Maximum, X, Y), "Minimum": (raw.Minimum, X, Y),
    "SquaredDifference": (raw.SquaredDifference, X, Y), "FloorDiv": (raw.FloorDiv, X, POS),
    "FloorMod": (raw.FloorMod, X, POS), "DivNoNan": (raw.DivNoNan, X, np.where(Y > 0, Y, 0).astype(np.float32)),
    "Equal": (raw.Equal, I1, I2), "NotEqual": (raw.NotEqual, I1, I2), "Less": (raw.Less, X, Y),
    "LessEqual": (raw.LessEqual, I1, I2), "Greater": (raw.Greater, X, Y), "GreaterEqual": (raw.GreaterEqual, I1, I2),
    "LogicalAnd": (raw.LogicalAnd, B1, B2), "LogicalOr": (raw.LogicalOr, B1, B2),
    "DivInt": (raw.Div, I1, I2), "FloorDivInt": (raw.FloorDiv, I1, I2), "TruncateDiv": (raw.TruncateDiv, I1, I2),
    "FloorModInt": (raw.FloorMod, I1, I2), "TruncateMod": (raw.TruncateMod, I1, I2), "Xlogy": (raw.Xlogy, X * 0, POS),
    "MulNoNan": (raw.MulNoNan, X, np.where(Y > 0, Y, 0).astype(np.float32)), "Xdivy": (raw.Xdivy, X * (X > 0), POS),
    "Mod": (raw.Mod, X, POS), "BitwiseAnd": (raw.BitwiseAnd, I1, I2), "BitwiseOr": (raw.BitwiseOr, I1, I2),
    "BitwiseXor": (raw.BitwiseXor, I1, I2),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(tmp_path, name):
    op, x, y = BINARY[name]
    check_tf(tmp_path, lambda a, b: op(x=a, y=b), [x, y])


def test_binary_broadcast(tmp_path):
    check_tf(tmp_path, lambda a, b: raw.AddV2(x=a, y=b), [X, random((4,), seed=3)])


def test_bias_add_nhwc_and_nchw(tmp_path):
    x, bias = random((1, 3, 4, 5)), random((5,), seed=1)
    check_tf(tmp_path / "nhwc", lambda a, b: raw.BiasAdd(value=a, bias=b), [x, bias])
    check_tf(tmp_path / "nchw", lambda a, b: raw.BiasAdd(value=a, bias=b[:3], data_format="NCHW"), [x, bias])


def test_add_n_and_clip(tmp_path):
    check_tf(tmp_path / "addn", lambda a, b: raw.AddN(inputs=[a, b, a]), [X, Y])
    check_tf(tmp_path / "clip", lambda a: raw.ClipByValue(t=a, clip_value_min=-0.5, clip_value_max=1.0), [X])


def test_select_v1_row_condition_and_select_v2(tmp_path):
    cond = np.array([True, False])
    check_tf(tmp_path / "v1", lambda c, a, b: raw.Select(condition=c, x=a, y=b), [cond, X, Y])
    check_tf(tmp_path / "v2", lambda a, b: raw.SelectV2(condition=a > b, t=a, e=b), [X, Y])


@pytest.mark.parametrize("dst", [tf.int32, tf.float16, tf.bool, tf.int64])
def test_cast(tmp_path, dst):
    check_tf(tmp_path, lambda a: raw.Cast(x=a * 3, DstT=dst), [X])
