"""Graph.topological_ops and the index of nodes holding bodies."""
import networkx as nx
import numpy as np
import pytest

from mo.errors import GraphError
from mo.graph.graph import Graph, all_graphs
from tests.utils.graphs import new_graph


def _random_dag(seed: int, n: int = 60) -> Graph:
    """Op-form graph of ``n`` nodes whose creation order is not topological, with parallel edges
    (one producer feeding two inputs of a consumer) and nodes sharing a ``_seq``."""
    rng = np.random.default_rng(seed)
    g, _ = new_graph()
    rank = rng.permutation(n)            # edges go from lower to higher rank
    seqs = rng.integers(0, n // 2, n)    # repeated keys: ties fall back to insertion order
    for i in range(n):
        g.add_node(f"n{i}", kind="op", op="Abs", _seq=int(seqs[i]))
    for i in range(n):
        for j in range(n):
            if rank[i] < rank[j] and rng.random() < 0.08:
                ports = 2 if rng.random() < 0.2 else 1
                for port in range(ports):
                    g.add_edge(f"n{i}", f"n{j}", out=0, **{"in": g.in_degree(f"n{j}") + port})
    return g


@pytest.mark.parametrize("seed", range(5))
def test_topological_order_is_networkx_lexicographical_order(seed):
    """The hand-written Kahn sort gives what networkx's lexicographical topological sort keyed by
    ``_seq`` gives (the order the IR's layer ids follow)."""
    g = _random_dag(seed)
    expected = list(nx.lexicographical_topological_sort(g, key=lambda n: g._node[n]["_seq"]))
    assert [n.id for n in g.topological_ops()] == expected


def test_topological_order_in_data_form_lists_ops_only():
    g, b = new_graph(data_form=True)
    x = b.node("Parameter", shape=(2,), element_type="f32", name="x")
    late = b.node("Add", x, x, name="add")                   # one data node feeding both inputs
    early = b.node("ReLU", late, name="relu")
    b.node("Result", early, name="y")
    assert [n.name for n in g.topological_ops()] == ["x", "add", "relu", "y"]


def test_cycle_is_a_graph_error():
    g, b = new_graph()
    a = b.node("ReLU", name="a")
    c = b.node("ReLU", a, name="c")
    c.out_port(0).connect(a.in_port(0))
    with pytest.raises(GraphError, match="cycle through"):
        g.topological_ops()


def test_bodies_are_indexed_however_they_are_given():
    """all_graphs walks into bodies given at creation or set later through the node, skips
    scanning a graph none was given to, and lint refuses bodies set behind the graph's back."""
    g, b = new_graph()
    assert list(all_graphs(g)) == [g]
    first, _ = new_graph()
    second, _ = new_graph()
    b.node("ReLU", name="created", bodies={"body": first})
    later = b.node("ReLU", name="later")
    later["bodies"] = {"body": second}
    assert list(all_graphs(g)) == [g, first, second]
    g.remove_node(later.id)
    assert list(all_graphs(g)) == [g, first]
    hidden = b.node("ReLU", name="hidden")
    g._node[hidden.id]["bodies"] = {"body": second}
    with pytest.raises(GraphError, match="behind the graph's back"):
        g.lint()


def test_the_order_is_reused_only_while_the_graph_is_unchanged():
    """topological_ops gives the order it computed before until a node or an edge changes."""
    g, b = new_graph(data_form=True)
    x = b.node("Parameter", shape=(2,), element_type="f32", name="x")
    relu = b.node("ReLU", x, name="relu")
    b.node("Result", relu, name="y")
    first = g.topological_ops()
    first.clear()                                       # callers get their own list
    assert [n.name for n in g.topological_ops()] == ["x", "relu", "y"]
    tanh = b.node("Tanh", x, name="tanh")               # a new node
    assert [n.name for n in g.topological_ops()] == ["x", "relu", "y", "tanh"]
    tanh.out_port(0).connect(relu.in_port(0))           # an edge moved: relu now reads tanh
    assert [n.name for n in g.topological_ops()] == ["x", "tanh", "relu", "y"]
    g.remove_node(tanh.id)
    assert [n.name for n in g.topological_ops()] == ["x", "relu", "y"]


def _in_order(value):
    """Nested dicts as nested lists of items, so that comparing them compares the order too."""
    return [(k, _in_order(v)) for k, v in value.items()] if isinstance(value, dict) else value


@pytest.mark.parametrize("seed", range(3))
def test_graph_edits_leave_networkx_structures(seed):
    """Graph writes networkx's node and adjacency dicts itself: a random sequence of edits gives
    the same dicts, in the same order, as networkx.MultiDiGraph's own methods."""
    rng = np.random.default_rng(seed)
    ours, _ = new_graph()
    theirs = nx.MultiDiGraph()
    names = [f"n{i}" for i in range(12)]
    for step in range(400):
        kind = rng.integers(0, 4)
        u, v = (str(n) for n in rng.choice(names, 2))
        if kind == 0:
            ours.add_node(u, kind="op", op="Abs")
            theirs.add_node(u, kind="op", op="Abs", _seq=ours._node[u]["_seq"])
        elif kind == 1 and u in ours and v in ours:
            assert ours.add_edge(u, v, out=0, **{"in": step}) == theirs.add_edge(u, v, out=0, **{"in": step})
        elif kind == 2 and ours.has_edge(u, v):
            key = list(ours._succ[u][v])[rng.integers(0, len(ours._succ[u][v]))]
            ours.remove_edge(u, v, key)
            theirs.remove_edge(u, v, key)
        elif kind == 3 and u in ours:
            ours.remove_node(u)
            theirs.remove_node(u)
        for mine, other in ((ours._node, theirs._node), (ours._succ, theirs._succ), (ours._pred, theirs._pred)):
            assert _in_order(mine) == _in_order(other)
    with pytest.raises(nx.NetworkXError):
        ours.remove_node("no such node")
    with pytest.raises(nx.NetworkXError):
        ours.remove_edge("n0", "no such node", 0)
