"""RemoveNeutralElementwise: x + 0 and x * 1 disappear unless the constant broadcasts x."""
import numpy as np
import pytest

from extensions.middle.neutral_elementwise import RemoveNeutralElementwise
from tests.utils.reference import assert_rewrite, assert_untouched


def _x(b):
    return b.Parameter(shape=(2, 3), element_type="f32", name="x")


def test_neutral_constants_are_removed_but_broadcasting_ones_stay():
    def build(b):
        y = b.Multiply(b.Add(_x(b), np.zeros(3, np.float32)), np.float32(1.0))
        widened = b.Add(y, np.zeros((4, 2, 3), np.float32))      # broadcasts to a new shape: kept
        return b.Subtract(widened, np.float32(0.5))
    g = assert_rewrite(build, RemoveNeutralElementwise, expect_ops=["Add", "Subtract"])
    assert g.nodes_by_op("Add")[0].in_port(0).get_source().node.op == "Parameter"


@pytest.mark.parametrize("op,first", [("Add", True), ("Subtract", False), ("Multiply", True), ("Divide", False)])
def test_each_neutral_operand_goes(op, first):
    neutral = np.full((1, 3), 0 if op in ("Add", "Subtract") else 1, np.float32)

    def build(b):
        x = _x(b)
        return b.ReLU(b.op(op, *((neutral, x) if first else (x, neutral))))
    assert_rewrite(build, RemoveNeutralElementwise, expect_ops=["ReLU"])


@pytest.mark.parametrize("build", [
    lambda b: b.Subtract(np.zeros(3, np.float32), _x(b)),             # 0 - x is -x
    lambda b: b.Divide(np.ones(3, np.float32), _x(b)),                # 1 / x
    lambda b: b.Multiply(np.ones(3, np.float16), _x(b)),              # the output type is f16
    lambda b: b.Add(_x(b), np.array([0, 1e-3, 0], np.float32)),       # not all neutral
], ids=["zero_minus_x", "one_over_x", "other_type", "not_neutral"])
def test_non_neutral_forms_stay(build):
    assert_untouched(build, RemoveNeutralElementwise)
