"""The layout step: Transposes pushed through layout-agnostic ops, merged and cancelled, on small
data-form graphs; each result is checked by structure and by evaluating the graph's constant
folding on a known input."""
import numpy as np

from extensions.middle.transpose_sinking import TransposeSinking, TransposeToReshape
from tests.utils.graphs import new_graph

TO_LAST = np.array([0, 2, 3, 1], np.int64)    # NCHW -> NHWC
TO_FIRST = np.array([0, 3, 1, 2], np.int64)   # NHWC -> NCHW
X = np.random.default_rng(0).standard_normal((1, 3, 4, 5)).astype(np.float32)   # NCHW


def ops(graph) -> list[str]:
    return sorted(n.op for n in graph.op_nodes() if n.op not in ("Const", "Parameter", "Result"))


def evaluate(build) -> tuple[np.ndarray, list[str], object]:
    """Build the graph twice, with X as a constant input (value folded by inference) and with a
    Parameter (rewritten by the transform): (value before, ops after, graph after)."""
    graph, b = new_graph(data_form=True, framework="tf")
    expected = build(b, b.const(X)).data.get_value()
    graph, b = new_graph(data_form=True, framework="tf")
    out = build(b, b.Parameter(shape=X.shape, element_type="f32"))
    b.Result(out)
    TransposeSinking().find_and_replace_pattern(graph)
    graph.lint()
    return expected, ops(graph), graph


def folded(graph, value: np.ndarray) -> np.ndarray:
    """Value of the graph's output with its Parameter replaced by ``value``."""
    from mo.pipeline.translate import translate_graph
    param = graph.nodes_by_op("Parameter")[0]
    const = graph.registry.op("Const").create(graph, (), value=value)
    param.out_port(0).get_connection().set_source(const.out_port(0))
    translate_graph(graph)
    return graph.nodes_by_op("Result")[0].in_port(0).data.get_value()


def test_elementwise_chain_between_inverse_transposes_cancels():
    bias = np.arange(3, dtype=np.float32)

    def build(b, x):
        y = b.Transpose(x, TO_LAST)
        y = b.ReLU(b.Add(y, bias))
        return b.Transpose(b.Multiply(y, np.float32(2)), TO_FIRST)
    expected, after, graph = evaluate(build)
    assert after == ["Add", "Multiply", "ReLU"]
    np.testing.assert_allclose(folded(graph, X), expected)


def test_residual_add_of_two_transposed_tensors():
    def build(b, x):
        a, c = b.Transpose(b.Sigmoid(x), TO_LAST), b.Transpose(b.Tanh(x), TO_LAST)
        return b.Transpose(b.Add(a, c), TO_FIRST)
    expected, after, graph = evaluate(build)
    assert "Transpose" not in after
    np.testing.assert_allclose(folded(graph, X), expected, rtol=1e-6)


def test_reduction_without_keep_dims_needs_no_transpose_after():
    def build(b, x):
        return b.ReduceMean(b.Transpose(x, TO_LAST), np.array([1, 2], np.int64), keep_dims=False)
    expected, after, graph = evaluate(build)
    assert after == ["ReduceMean"]
    np.testing.assert_allclose(folded(graph, X), expected, rtol=1e-6)


def test_concat_pad_split_and_softmax_remap_their_axes():
    def build(b, x):
        y = b.Transpose(x, TO_LAST)
        y = b.Concat(y, b.Transpose(b.Negative(x), TO_LAST), axis=3)
        y = b.Pad(y, np.array([0, 1, 0, 2], np.int64), np.array([0, 0, 2, 0], np.int64), pad_mode="constant")
        first, _ = b.Split(y, np.int64(-1), num_splits=2)
        return b.Transpose(b.Softmax(first, axis=-1), TO_FIRST)
    expected, after, graph = evaluate(build)
    assert "Transpose" not in after
    np.testing.assert_allclose(folded(graph, X), expected, rtol=1e-6)


def test_shared_transpose_is_not_pushed_past_an_op_that_needs_the_layout():
    def build(b, x):
        y = b.Transpose(x, TO_LAST)
        flat = b.Reshape(y, np.array([1, -1], np.int64))
        return b.Concat(flat, b.Reshape(b.ReLU(y), np.array([1, -1], np.int64)), axis=1)
    expected, after, graph = evaluate(build)
    assert after.count("Transpose") == 1
    np.testing.assert_allclose(folded(graph, X), expected)


def test_shape_of_a_transposed_tensor_is_gathered():
    def build(b, x):
        return b.Broadcast(np.float32(1), b.ShapeOf(b.Exp(b.Transpose(x, TO_LAST))), mode="numpy")
    expected, after, graph = evaluate(build)
    assert "Transpose" not in after and "Gather" in after
    np.testing.assert_allclose(folded(graph, X), expected)


def test_transpose_of_unit_dims_becomes_reshape():
    graph, b = new_graph(data_form=True, framework="tf")
    x = b.Parameter(shape=(-1, 1, 1, 7), element_type="f32")
    b.Result(b.Transpose(x, TO_FIRST))
    TransposeToReshape().find_and_replace_pattern(graph)
    reshape = graph.nodes_by_op("Reshape")
    assert not graph.nodes_by_op("Transpose") and reshape
    assert reshape[0].in_value(1).tolist() == [-1, 7, 1, 1]
