"""MergeDuplicateConstants: identical constants become one layer; different ones stay."""
import numpy as np

from extensions.back.merge_constants import MergeDuplicateConstants
from tests.utils.graphs import new_graph


def test_identical_constants_are_merged_and_names_kept():
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=(3,), element_type="f32", name="x")
    c1 = b.const(np.arange(3, dtype=np.float32), name="c1")
    c2 = b.const(np.arange(3, dtype=np.float32), name="c2")
    c3 = b.const(np.arange(3, dtype=np.int64), name="c3")
    c4 = b.const(np.ones(3, dtype=np.float32), name="c4")
    c2.add_tensor_names(["second"])
    b.Result(b.Add(b.Add(b.Multiply(x, c1), c2), c4), name="y")
    b.Result(c3, name="z")
    MergeDuplicateConstants().find_and_replace_pattern(g)
    g.lint()
    consts = sorted(n.name for n in g.nodes_by_op("Const"))
    assert consts == ["c1", "c3", "c4"]
    keeper = [n for n in g.nodes_by_op("Const") if n.name == "c1"][0]
    assert len(keeper.out_port(0).get_destinations()) == 2
    assert "second" in keeper.out_port(0).get_tensor_names()
