"""Activation fusions: each pattern spelling becomes one op computing the same values (reference
interpreter before/after; the IR in the runtime against the formula)."""
import math

import numpy as np
import pytest

from extensions.middle import activation_fusions as fusions
from mo.emit.ir import emit_ir
from tests.utils.graphs import new_graph
from tests.utils.reference import assert_rewrite, assert_untouched
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


def _on_x(build):
    return lambda b: build(b, b.Parameter(shape=X.shape, element_type="f32", name="x"))


@pytest.mark.parametrize("build,passes,fused_op,reference", CASES, ids=[c[0].__name__ for c in CASES])
def test_fusion_keeps_reference_values(build, passes, fused_op, reference):
    assert_rewrite(_on_x(build), passes, [X], expect_ops=[fused_op])


def test_softplus_alone_and_mish_of_softplus():
    assert_rewrite(_on_x(lambda b, x: b.Log(b.Add(b.Exp(x), np.float32(1)))), fusions.SoftPlusFusion, [X],
                   expect_ops=["SoftPlus"])
    assert_rewrite(_on_x(lambda b, x: b.Multiply(x, b.Tanh(b.SoftPlus(x)))), fusions.MishFusion, [X],
                   expect_ops=["Mish"])


def _swish_with_shared_sigmoid(b, x):
    sig = b.Sigmoid(x)
    return b.Multiply(x, sig), sig


def _hsigmoid_off_by_one(b, x):
    r6 = b.Clamp(b.Add(x, b.const(np.float32(2))), min=0.0, max=6.0)
    return b.Multiply(r6, b.const(np.float32(1 / 6)))


@pytest.mark.parametrize("build,fusion", [
    (_swish_with_shared_sigmoid, fusions.SwishFusion), (_hsigmoid_off_by_one, fusions.HSigmoidFusion),
    (lambda b, x: b.Log(b.Add(b.Exp(x), np.float32(2))), fusions.SoftPlusFusion),
    (lambda b, x: b.Multiply(x, b.Tanh(b.ReLU(x))), fusions.MishFusion),
    (lambda b, x: b.Multiply(b.Sigmoid(x), b.ReLU(x)), fusions.SwishFusion),
    (lambda b, x: b.Divide(b.Multiply(x, b.Clamp(b.Add(x, np.float32(3)), min=0.0, max=5.0)), np.float32(6)),
     fusions.HSwishFusion),
    (lambda b, x: b.Multiply(b.Multiply(x, np.float32(0.5)), b.Add(b.Erf(x), np.float32(1))),
     fusions.GeluErfFusion),
    (lambda b, x: b.Multiply(b.Multiply(x, np.float32(0.5)), b.Add(b.Tanh(x), np.float32(1))),
     fusions.GeluTanhFusion),
], ids=["swish_shared", "hsigmoid_constant", "softplus_two", "mish_relu", "swish_other_x", "hswish_clamp",
        "gelu_erf_unscaled", "gelu_tanh_no_cube"])
def test_near_misses_are_left_alone(build, fusion):
    assert_untouched(_on_x(build), fusion, [X])
