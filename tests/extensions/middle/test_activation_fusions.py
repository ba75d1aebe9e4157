"""Activation fusions: each pattern spelling becomes one op, and the IR computes the same values."""
import math

import numpy as np
import pytest

from extensions.middle import activation_fusions as fusions
from mo.emit.ir import emit_ir
from tests.utils.graphs import new_graph
from tests.utils.runtime import assert_close, run_ir

X = np.linspace(-6, 6, 48, dtype=np.float32).reshape(2, 24)


def _erf(v):
    return np.vectorize(math.erf)(v)


def gelu_erf_a(b, x):
    return b.Multiply(b.Multiply(x, b.const(np.float32(0.5))),
                      b.Add(b.Erf(b.Divide(x, b.const(np.float32(math.sqrt(2))))), b.const(np.float32(1))))


def gelu_erf_b(b, x):
    inner = b.Add(b.const(np.float32(1)), b.Erf(b.Multiply(x, b.const(np.float32(1 / math.sqrt(2))))))
    return b.Multiply(b.Multiply(x, inner), b.const(np.float32(0.5)))


def gelu_tanh(b, x):
    cube = b.Power(x, b.const(np.float32(3)))
    inner = b.Multiply(b.Add(x, b.Multiply(cube, b.const(np.float32(0.044715)))),
                       b.const(np.float32(math.sqrt(2 / math.pi))))
    return b.Multiply(b.Multiply(x, b.const(np.float32(0.5))), b.Add(b.Tanh(inner), b.const(np.float32(1))))


def swish(b, x):
    return b.Multiply(b.Sigmoid(x), x)


def hswish(b, x):
    return b.Divide(b.Multiply(x, b.Clamp(b.Add(x, b.const(np.float32(3))), min=0.0, max=6.0)),
                    b.const(np.float32(6)))


def hsigmoid(b, x):
    r6 = b.Minimum(b.ReLU(b.Add(x, b.const(np.float32(3)))), b.const(np.float32(6)))
    return b.Multiply(r6, b.const(np.float32(1 / 6)))


def mish(b, x):
    return b.Multiply(x, b.Tanh(b.Log(b.Add(b.Exp(x), b.const(np.float32(1))))))


CASES = [
    (gelu_erf_a, [fusions.GeluErfFusion], "Gelu", lambda v: 0.5 * v * (1 + _erf(v / math.sqrt(2)))),
    (gelu_erf_b, [fusions.GeluErfFusion], "Gelu", lambda v: 0.5 * v * (1 + _erf(v / math.sqrt(2)))),
    (gelu_tanh, [fusions.GeluTanhFusion], "Gelu",
     lambda v: 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))),
    (swish, [fusions.SwishFusion], "Swish", lambda v: v / (1 + np.exp(-v))),
    (hswish, [fusions.HSwishFusion], "HSwish", lambda v: v * np.clip(v + 3, 0, 6) / 6),
    (hsigmoid, [fusions.HSigmoidFusion], "HSigmoid", lambda v: np.clip(v + 3, 0, 6) / 6),
    (mish, [fusions.SoftPlusFusion, fusions.MishFusion], "Mish", lambda v: v * np.tanh(np.log1p(np.exp(v)))),
]


@pytest.mark.parametrize("build,passes,fused_op,reference", CASES, ids=[c[0].__name__ for c in CASES])
def test_fusion(build, passes, fused_op, reference, tmp_path):
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=X.shape, element_type="f32", name="x")
    b.Result(build(b, x), name="y")
    for p in passes:
        p().find_and_replace_pattern(g)
    g.remove_dead_nodes(keep=[n.id for n in g.nodes_by_op("Parameter")])
    g.lint()
    ops = sorted(n.op for n in g.op_nodes() if n.op not in ("Parameter", "Result", "Const"))
    assert ops == [fused_op]
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    assert_close(run_ir(xml, [X]), [reference(X.astype(np.float64))], rtol=1e-3, atol=1e-4, check_dtype=False)


def test_no_fusion_when_inner_value_is_used_elsewhere():
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=X.shape, element_type="f32", name="x")
    sig = b.Sigmoid(x)
    b.Result(b.Multiply(x, sig), name="y")
    b.Result(sig, name="s")
    fusions.SwishFusion().find_and_replace_pattern(g)
    assert not g.nodes_by_op("Swish")


def test_no_fusion_with_wrong_constant():
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=X.shape, element_type="f32", name="x")
    r6 = b.Clamp(b.Add(x, b.const(np.float32(2))), min=0.0, max=6.0)
    b.Result(b.Multiply(r6, b.const(np.float32(1 / 6))), name="y")
    fusions.HSigmoidFusion().find_and_replace_pattern(g)
    assert not g.nodes_by_op("HSigmoid")
