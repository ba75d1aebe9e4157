"""GroupNormalizationBeforeEltwiseToMVN: a static GroupNormalization added to an elementwise op's
output is written as Reshape -> MVN -> Reshape -> Multiply -> Add (the CPU plugin crashes
compiling the op there); every other GroupNormalization stays."""
import numpy as np
import pytest

from extensions.back.group_norm import GroupNormalizationBeforeEltwiseToMVN
from tests.utils.reference import assert_rewrite, assert_untouched

SCALE = np.linspace(0.5, 1.5, 8).astype(np.float32)
BIAS = np.linspace(-1, 1, 8).astype(np.float32)
DECOMPOSED = ["ReLU", "Reshape", "MVN", "ShapeOf", "Reshape", "Multiply", "Add", "Add"]


def residual(shape=(2, 8, 3, 3), groups=4, between=None, other="ReLU", scale=SCALE, bias=BIAS):
    def build(b):
        x = b.Parameter(shape=shape, element_type="f32", name="x")
        a = b.ReLU(x)
        norm = b.GroupNormalization(a, scale, bias, num_groups=groups, epsilon=1e-5)
        if between:
            norm = b.op(between, norm)
        return b.Add(norm, a if other == "ReLU" else x)
    return build


def test_group_norm_added_to_an_elementwise_output_is_decomposed():
    assert_rewrite(residual(), GroupNormalizationBeforeEltwiseToMVN, expect_ops=DECOMPOSED)


@pytest.mark.parametrize("shape", [(2, 8, 5), (1, 8, 2, 3, 4)])
def test_other_ranks(shape):
    assert_rewrite(residual(shape), GroupNormalizationBeforeEltwiseToMVN, expect_ops=DECOMPOSED)


def test_neutral_scale_and_bias_add_nothing():
    build = residual(scale=np.ones(8, np.float32), bias=np.zeros(8, np.float32))
    assert_rewrite(build, GroupNormalizationBeforeEltwiseToMVN, expect_ops=DECOMPOSED[:5] + ["Add"])


@pytest.mark.parametrize("case", [
    dict(shape=(-1, 8, 3, 3)),         # dynamic: the plugin decomposes it itself
    dict(groups=1),
    dict(between="ReLU"),              # an op between the norm and the add
    dict(other="Parameter"),           # the add's other input is not made by an elementwise op
])
def test_forms_that_compile_are_kept(case):
    x = np.random.default_rng(0).standard_normal((2, 8, 3, 3)).astype(np.float32)
    assert_untouched(residual(**case), GroupNormalizationBeforeEltwiseToMVN, [x])
