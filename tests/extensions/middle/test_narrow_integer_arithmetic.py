"""WrapNarrowIntegerArithmetic: u8/i8 arithmetic wraps modulo 256 in the IR as in the frameworks
(the CPU plugin saturates the plain ops: tests/extensions/front/onnx/test_math_layers.py runs the
converted form against ONNX Runtime)."""
import numpy as np
import pytest

from extensions.middle.narrow_integer_arithmetic import WrapNarrowIntegerArithmetic
from tests.utils.reference import assert_rewrite, assert_untouched

X = np.array([0, 1, 5, 200, 255, 128], np.uint8)
Y = np.array([3, 0, 4, 100, 2, 130], np.uint8)


def _expected(dtype: str) -> list[str]:
    """The ops after the rewrite: each op on i32 Converts of its inputs, then BitwiseAnd 255
    (around an Add / Subtract of 128 for i8) and a Convert back."""
    wrap = ["BitwiseAnd"] if dtype == "u8" else ["Add", "BitwiseAnd", "Subtract"]
    ops = ["Reshape", "Reshape"]
    for op, inputs in (("Add", 2), ("Subtract", 2), ("Multiply", 2), ("Negative", 1), ("MatMul", 2),
                       ("ReduceSum", 1), ("CumSum", 1)):
        ops += ["Convert"] * inputs + [op] + wrap + ["Convert"]
    return ops


@pytest.mark.parametrize("dtype, numpy_type", [("u8", np.uint8), ("i8", np.int8)])
def test_arithmetic_computes_in_i32_and_wraps(dtype, numpy_type):
    def build(b):
        x = b.Parameter(shape=(6,), element_type=dtype, name="x")
        y = b.Parameter(shape=(6,), element_type=dtype, name="y")
        product = b.MatMul(b.Reshape(x, np.array([2, 3], np.int64), special_zero=False),
                           b.Reshape(y, np.array([3, 2], np.int64), special_zero=False))
        return b.Add(x, y), b.Subtract(y, x), b.Multiply(x, y), b.Negative(x), product, \
            b.ReduceSum(x, np.array([0], np.int64)), b.CumSum(y, np.int64(0))
    graph = assert_rewrite(build, WrapNarrowIntegerArithmetic, [X.astype(numpy_type), Y.astype(numpy_type)],
                           expect_ops=_expected(dtype))
    for op in ("Add", "Subtract", "Multiply", "Negative", "MatMul", "ReduceSum", "CumSum"):
        kept = [n for n in graph.nodes_by_op(op) if n.out_port(0).data.get_dtype() == dtype]
        assert not kept, op
    assert len(graph.nodes_by_op("BitwiseAnd")) == 7


def test_wider_types_stay():
    def build(b):
        return b.Add(b.Parameter(shape=(6,), element_type="i32", name="x"), np.int32(5))
    assert_untouched(build, WrapNarrowIntegerArithmetic, [np.arange(6, dtype=np.int32)])
