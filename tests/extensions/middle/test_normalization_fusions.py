"""Layer-norm and L2-norm fusions: the decomposed spellings become MVN / NormalizeL2 with the
same values."""
import numpy as np
import pytest

from extensions.middle.normalization_fusions import L2NormToNormalizeL2, LayerNormToMVN
from mo.emit.ir import emit_ir
from tests.utils.graphs import new_graph
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


def test_layer_norm_over_different_axes_is_not_fused():
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=X.shape, element_type="f32", name="x")
    d = b.Subtract(x, b.ReduceMean(x, AXES, keep_dims=True))
    var = b.ReduceMean(b.Multiply(d, d), np.array([1], np.int64), keep_dims=True)
    b.Result(b.Divide(d, b.Sqrt(b.Add(var, np.float32(1e-5)))), name="y")
    LayerNormToMVN().find_and_replace_pattern(g)
    assert not g.nodes_by_op("MVN")
