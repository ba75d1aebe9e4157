"""Layer-norm and L2-norm fusions: the decomposed spellings become MVN / NormalizeL2 with the
same values (reference interpreter before/after; the IR in the runtime against the formula)."""
import numpy as np
import pytest

from extensions.middle.normalization_fusions import L2NormToNormalizeL2, LayerNormToMVN
from mo.emit.ir import emit_ir
from tests.utils.graphs import new_graph
from tests.utils.reference import assert_rewrite, assert_untouched
from tests.utils.runtime import assert_close, run_ir

X = np.random.default_rng(2).standard_normal((2, 3, 8)).astype(np.float32)
AXES = np.array([-1], np.int64)


def layer_norm_pow(b, x):
    d = b.Subtract(x, b.ReduceMean(x, AXES, keep_dims=True))
    var = b.ReduceMean(b.Power(d, np.float32(2)), AXES, keep_dims=True)
    return b.Divide(d, b.Sqrt(b.Add(var, np.float32(1e-5))))


def layer_norm_mul(b, x):
    d = b.Subtract(x, b.ReduceMean(x, AXES, keep_dims=True))
    var = b.ReduceMean(b.Multiply(d, d), AXES, keep_dims=True)
    return b.Multiply(d, b.Power(b.Add(var, np.float32(1e-5)), np.float32(-0.5)))


def l2_max(b, x):
    return b.Divide(x, b.Sqrt(b.Maximum(b.ReduceSum(b.Power(x, np.float32(2)), AXES, keep_dims=True),
                                        np.float32(1e-12))))


def l2_outer(b, x):
    return b.Divide(x, b.Maximum(b.ReduceL2(x, AXES, keep_dims=True), np.float32(1e-6)))


def l2_add(b, x):
    return b.Divide(x, b.Sqrt(b.Add(b.ReduceSum(b.Multiply(x, x), AXES, keep_dims=True), np.float32(1e-6))))


def l2_sqrt_max(b, x):
    return b.Divide(x, b.Maximum(b.Sqrt(b.ReduceSum(b.Power(x, np.float32(2)), AXES, keep_dims=True)),
                                 np.float32(1e-6)))


def layer_norm_two_axes(b, x):
    axes = np.array([1, 2], np.int64)
    d = b.Subtract(x, b.ReduceMean(x, axes, keep_dims=True))
    return b.Divide(d, b.Sqrt(b.Add(b.ReduceMean(b.Multiply(d, d), axes, keep_dims=True), np.float32(1e-5))))


def _ref_ln(v):
    d = v - v.mean(-1, keepdims=True)
    return d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5)


def _ref_l2(v):
    return v / np.sqrt(np.maximum((v * v).sum(-1, keepdims=True), 1e-12))


@pytest.mark.parametrize("build,fusion,op,ref", [
    (layer_norm_pow, LayerNormToMVN, "MVN", _ref_ln), (layer_norm_mul, LayerNormToMVN, "MVN", _ref_ln),
    (l2_max, L2NormToNormalizeL2, "NormalizeL2", _ref_l2), (l2_outer, L2NormToNormalizeL2, "NormalizeL2", _ref_l2),
], ids=["ln_pow", "ln_mul", "l2_max", "l2_outer"])
def test_fusion(build, fusion, op, ref, tmp_path):
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=X.shape, element_type="f32", name="x")
    b.Result(build(b, x), name="y")
    fusion().find_and_replace_pattern(g)
    g.remove_dead_nodes(keep=[n.id for n in g.nodes_by_op("Parameter")])
    g.lint()
    assert sorted(n.op for n in g.op_nodes() if n.op not in ("Parameter", "Result", "Const")) == [op]
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    assert_close(run_ir(xml, [X]), [ref(X.astype(np.float64))], rtol=1e-4, atol=1e-5, check_dtype=False)


def _on_x(build):
    return lambda b: build(b, b.Parameter(shape=X.shape, element_type="f32", name="x"))


@pytest.mark.parametrize("build,fusion,op", [
    (layer_norm_pow, LayerNormToMVN, "MVN"), (layer_norm_mul, LayerNormToMVN, "MVN"),
    (layer_norm_two_axes, LayerNormToMVN, "MVN"), (l2_max, L2NormToNormalizeL2, "NormalizeL2"),
    (l2_outer, L2NormToNormalizeL2, "NormalizeL2"), (l2_add, L2NormToNormalizeL2, "NormalizeL2"),
    (l2_sqrt_max, L2NormToNormalizeL2, "NormalizeL2"),
], ids=["ln_pow", "ln_mul", "ln_two_axes", "l2_max", "l2_outer", "l2_add", "l2_sqrt_max"])
def test_fusion_keeps_reference_values(build, fusion, op):
    assert_rewrite(_on_x(build), fusion, [X], expect_ops=[op])


def _layer_norm_var_axes(b, x):
    d = b.Subtract(x, b.ReduceMean(x, AXES, keep_dims=True))
    var = b.ReduceMean(b.Multiply(d, d), np.array([1], np.int64), keep_dims=True)
    return b.Divide(d, b.Sqrt(b.Add(var, np.float32(1e-5))))


def _layer_norm_cube(b, x):
    d = b.Subtract(x, b.ReduceMean(x, AXES, keep_dims=True))
    var = b.ReduceMean(b.Power(d, np.float32(3)), AXES, keep_dims=True)
    return b.Divide(d, b.Sqrt(b.Add(var, np.float32(1e-5))))


def _l2_without_keep_dims(b, x):
    total = b.ReduceSum(b.Multiply(x, x), AXES, keep_dims=False)
    return b.Divide(x, b.Unsqueeze(b.Sqrt(b.Maximum(total, np.float32(1e-12))), AXES))


def _l2_per_element_eps(b, x):
    total = b.ReduceSum(b.Multiply(x, x), AXES, keep_dims=True)
    return b.Divide(x, b.Sqrt(b.Maximum(total, np.full((1, 3, 1), 1e-3, np.float32) * [[[1], [2], [3]]])))


@pytest.mark.parametrize("build,fusion", [
    (_layer_norm_var_axes, LayerNormToMVN), (_layer_norm_cube, LayerNormToMVN),
    (_l2_without_keep_dims, L2NormToNormalizeL2), (_l2_per_element_eps, L2NormToNormalizeL2),
], ids=["ln_other_axes", "ln_cube", "l2_no_keep_dims", "l2_eps_per_row"])
def test_near_misses_are_left_alone(build, fusion):
    assert_untouched(_on_x(build), fusion, [X])
