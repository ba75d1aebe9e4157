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
