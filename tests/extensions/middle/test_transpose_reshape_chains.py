"""Consecutive Transposes/Reshapes merge; identity ones disappear; values stay the same."""
import numpy as np

from extensions.middle.transpose_reshape_chains import MergeConsecutiveReshapes, MergeConsecutiveTransposes
from mo.emit.ir import emit_ir
from tests.utils.graphs import new_graph
from tests.utils.runtime import run_ir

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _run(g, tmp_path):
    g.remove_dead_nodes(keep=[n.id for n in g.nodes_by_op("Parameter")])
    g.lint()
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    return run_ir(xml, [X])[0]


def test_transposes_merge_and_identity_disappears(tmp_path):
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=X.shape, element_type="f32", name="x")
    t = b.Transpose(b.Transpose(x, np.array([2, 0, 1])), np.array([1, 0, 2]))
    back = b.Transpose(b.Transpose(t, np.array([1, 0, 2])), np.array([1, 2, 0]))
    b.Result(b.Add(t, np.float32(1)), name="y")
    b.Result(back, name="z")
    MergeConsecutiveTransposes().find_and_replace_pattern(g)
    np.testing.assert_array_equal(_run(g, tmp_path), X.transpose(2, 0, 1).transpose(1, 0, 2) + 1)
    assert len(g.nodes_by_op("Transpose")) == 1


def test_reshapes_merge_and_noop_reshape_goes(tmp_path):
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=X.shape, element_type="f32", name="x")
    r = b.Reshape(b.Reshape(x, np.array([6, 4])), np.array([4, 6]))
    b.Result(b.Reshape(r, np.array([4, 6])), name="y")
    MergeConsecutiveReshapes().find_and_replace_pattern(g)
    np.testing.assert_array_equal(_run(g, tmp_path), X.reshape(4, 6))
    assert len(g.nodes_by_op("Reshape")) == 1
