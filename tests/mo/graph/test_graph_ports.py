"""Graph primitives, Port and Connection in op form and data form."""
import numpy as np
import pytest

from mo.errors import GraphError
from tests.utils.graphs import new_graph


def _chain(data_form):
    g, b = new_graph(data_form=data_form)
    x = b.node("Parameter", shape=(1, 4), element_type="f32", name="x")
    r = b.node("ReLU", x, name="relu")
    s = b.node("Sigmoid", r.out_port(0), name="sig")
    res = b.node("Result", s.out_port(0), name="out")
    return g, b, x, r, s, res


@pytest.mark.parametrize("data_form", [False, True])
def test_source_and_destinations(data_form):
    g, b, x, r, s, res = _chain(data_form)
    assert r.in_port(0).get_source() == x.out_port(0)
    assert s.in_port(0).get_source().node == r
    assert [p.node for p in r.out_port(0).get_destinations()] == [s]
    g.lint()


@pytest.mark.parametrize("data_form", [False, True])
def test_set_source_moves_consumers_and_names(data_form):
    g, b, x, r, s, res = _chain(data_form)
    r.out_port(0).add_tensor_names(["relu_out"])
    t = b.node("Tanh", x, name="tanh")
    r.out_port(0).get_connection().set_source(t.out_port(0))
    assert s.in_port(0).get_source().node == t
    assert t.out_port(0).get_tensor_names() == ["relu_out"]
    assert not r.out_port(0).is_connected()
    g.lint()


@pytest.mark.parametrize("data_form", [False, True])
def test_insert_node_between(data_form):
    g, b, x, r, s, res = _chain(data_form)
    neg = b.node("Negative", name="neg")
    r.out_port(0).get_connection().insert_node(neg)
    assert neg.in_port(0).get_source().node == r
    assert s.in_port(0).get_source().node == neg
    g.lint()


def test_data_form_infers_on_create():
    g, b, x, r, s, res = _chain(True)
    assert r.out_port(0).data.get_shape() == (1, 4)
    assert r.out_port(0).data.get_dtype() == "f32"


def test_to_data_form_keeps_connections():
    g, b, x, r, s, res = _chain(False)
    g.to_data_form()
    assert s.in_port(0).get_source().node == r
    data = [n for n, d in g.nodes(data=True) if d["kind"] == "data"]
    assert len(data) == 3
    g.lint()


def test_op_index_follows_op_changes():
    g, b, x, r, s, res = _chain(False)
    assert g.nodes_by_op("ReLU") == [r]
    r["op"] = "Elu"
    assert g.nodes_by_op("ReLU") == [] and g.nodes_by_op("Elu") == [r]
    g.remove_node(r.id)
    assert g.nodes_by_op("Elu") == []
    g.lint()


def test_cycle_is_reported_with_names():
    g, b, x, r, s, res = _chain(False)
    s.out_port(0).connect(r.in_port(0))
    with pytest.raises(GraphError, match="cycle"):
        g.topological_ops()


def test_remove_dead_nodes_keeps_what_reaches_results():
    g, b, x, r, s, res = _chain(False)
    dead = b.node("Exp", x, name="dead")
    assert g.remove_dead_nodes(keep=[x.id]) == 1
    assert dead.id not in g and r.id in g


def test_unique_ids():
    g, b = new_graph()
    ids = {b.node("Parameter", name="p", shape=(1,)).id for _ in range(3)}
    assert len(ids) == 3


def test_const_builder_types():
    g, b = new_graph()
    assert b.const(3).data.get_dtype() == "i64"
    assert b.const(1.5).data.get_dtype() == "f32"
    assert b.const(np.array([True])).data.get_dtype() == "boolean"


def test_an_op_cannot_overwrite_the_node_kind():
    g, b = new_graph()
    with pytest.raises(ValueError, match="kind"):
        b.node("ReLU", kind="Softmax")
