"""Shape symbols: fixed shape values fold, Reshape targets copying the input's own dims become
special zeros, and nothing that follows from an input shape is frozen (the IR stays reshapeable)."""
import numpy as np
import pytest

from extensions.middle.shape_symbols import FoldFixedShapeValues, RemoveFlattenAroundMatMul, ShapeSymbolAnalysis, Sym
from mo.emit.ir import emit_ir
from tests.utils.graphs import new_graph
from tests.utils.reference import assert_rewrite, assert_untouched
from tests.utils.runtime import assert_close, core, run_ir


def _dims_of(b, x, indices):
    return b.Gather(b.ShapeOf(x), np.array(indices, np.int64), np.array(0, np.int64), batch_dims=0)


def test_reshape_target_from_own_dims_becomes_special_zeros_and_stays_reshapeable(tmp_path):
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=(2, 3, 8), element_type="f32", name="x")     # static, yet reshapeable
    target = b.Concat(_dims_of(b, x, [0, 1]), np.array([4, 2], np.int64), axis=0)
    b.Result(b.Reshape(x, target, special_zero=False), name="y")
    FoldFixedShapeValues().find_and_replace_pattern(g)
    g.remove_dead_nodes(keep=[n.id for n in g.nodes_by_op("Parameter")])
    g.lint()
    reshape = g.nodes_by_op("Reshape")[0]
    assert reshape.special_zero and list(reshape.in_value(1)) == [0, 0, 4, 2]
    assert not g.nodes_by_op("ShapeOf")
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    model = core().read_model(xml)
    model.reshape([5, 7, 8])
    assert list(model.output(0).get_shape()) == [5, 7, 4, 2]


def test_values_fixed_by_weights_fold_but_input_dims_do_not():
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=(-1, 6), element_type="f32", name="x")
    h = b.MatMul(x, np.ones((6, 8), np.float32))
    width = _dims_of(b, h, [1])                      # 8: fixed by the weights
    batch = _dims_of(b, h, [0])                      # depends on the input
    b.Result(b.Reshape(h, b.Concat(batch, width, np.array([1], np.int64), axis=0)), name="y")
    analysis = ShapeSymbolAnalysis(g).run()
    h_dims = analysis.dims[g.output_data(h.node.id, 0)]
    assert isinstance(h_dims[0], Sym) and h_dims[1] == 8
    FoldFixedShapeValues().find_and_replace_pattern(g)
    reshape = g.nodes_by_op("Reshape")[0]
    assert list(reshape.in_value(1)) == [0, 8, 1] and reshape.special_zero


def test_two_unknown_dims_keep_the_computation():
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=(-1, -1), element_type="f32", name="x")
    y = b.Parameter(shape=(-1, -1), element_type="f32", name="y")
    target = b.Concat(_dims_of(b, y, [1]), _dims_of(b, y, [0]), axis=0)   # y's dims, swapped
    b.Result(b.Reshape(x, target), name="out")
    FoldFixedShapeValues().find_and_replace_pattern(g)
    assert g.nodes_by_op("ShapeOf") and g.nodes_by_op("Reshape")[0].in_value(1) is None


def test_flatten_around_matmul_goes(tmp_path):
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=(-1, -1, 6), element_type="f32", name="x")
    flat = b.Reshape(x, np.array([-1, 6], np.int64))
    w = np.arange(24, dtype=np.float32).reshape(6, 4) / 10
    y = b.Add(b.MatMul(flat, w), np.arange(4, dtype=np.float32))
    target = b.Concat(_dims_of(b, x, [0, 1]), np.array([4], np.int64), axis=0)
    b.Result(b.Reshape(y, target), name="y")
    FoldFixedShapeValues().find_and_replace_pattern(g)
    RemoveFlattenAroundMatMul().find_and_replace_pattern(g)
    g.remove_dead_nodes(keep=[n.id for n in g.nodes_by_op("Parameter")])
    g.lint()
    assert not g.nodes_by_op("Reshape") and g.nodes_by_op("Add")[0].out_port(0).data.get_shape() == (-1, -1, 4)
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    v = np.random.default_rng(0).standard_normal((2, 3, 6)).astype(np.float32)
    assert_close(run_ir(xml, [v]), [v @ w + np.arange(4)], rtol=1e-5, atol=1e-5, check_dtype=False)


# ------------------------------------------------------------------ reference interpreter
def _own_dims_reshape(b):
    x = b.Parameter(shape=(2, 3, 8), element_type="f32", name="x")
    return b.Reshape(x, b.Concat(_dims_of(b, x, [0, 1]), np.array([4, 2], np.int64), axis=0), special_zero=False)


def _weights_fix_width(b):
    x = b.Parameter(shape=(-1, 6), element_type="f32", name="x")
    h = b.MatMul(x, np.ones((6, 8), np.float32))
    return b.Reshape(h, b.Concat(_dims_of(b, h, [0]), _dims_of(b, h, [1]), np.array([1], np.int64), axis=0))


def test_fixed_shape_values_fold_with_the_same_values():
    assert_rewrite(_own_dims_reshape, FoldFixedShapeValues, expect_ops=["Reshape"])
    x = np.random.default_rng(1).standard_normal((3, 6)).astype(np.float32)
    g = assert_rewrite(_weights_fix_width, FoldFixedShapeValues, [x], expect_ops=["MatMul", "Reshape"])
    assert list(g.nodes_by_op("Reshape")[0].in_value(1)) == [0, 8, 1]


def test_shapes_from_two_unknown_inputs_stay_computed():
    def build(b):
        x = b.Parameter(shape=(-1, -1), element_type="f32", name="x")
        y = b.Parameter(shape=(-1, -1), element_type="f32", name="y")
        return b.Reshape(x, b.Concat(_dims_of(b, y, [1]), _dims_of(b, y, [0]), axis=0))
    inputs = [np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((2, 3), np.float32)]
    assert_untouched(build, FoldFixedShapeValues, inputs)


def _flattened_linear(restore_dims=(0, 1), bias=True):
    def build(b):
        x = b.Parameter(shape=(-1, -1, 6), element_type="f32", name="x")
        flat = b.Reshape(x, np.array([-1, 6], np.int64))
        y = b.MatMul(flat, np.arange(24, dtype=np.float32).reshape(6, 4) / 10)
        if bias:
            y = b.Add(y, np.arange(4, dtype=np.float32))
        return b.Reshape(y, b.Concat(_dims_of(b, x, list(restore_dims)), np.array([4], np.int64), axis=0))
    return build


X3 = [np.random.default_rng(2).standard_normal((2, 3, 6)).astype(np.float32)]


@pytest.mark.parametrize("bias", [True, False])
def test_flatten_around_matmul_goes_with_the_same_values(bias):
    expect = ["MatMul", "Add"] if bias else ["MatMul"]
    assert_rewrite(_flattened_linear(bias=bias), [FoldFixedShapeValues, RemoveFlattenAroundMatMul], X3,
                   expect_ops=expect)


def test_flatten_whose_result_takes_other_dims_stays():
    build = _flattened_linear(restore_dims=(1, 0))     # [T, B, 4]: the leading dims are swapped
    g = assert_rewrite(build, [FoldFixedShapeValues, RemoveFlattenAroundMatMul], X3, expect_ops=None)
    assert len(g.nodes_by_op("Reshape")) == 2


def test_a_dim_known_to_be_1_broadcasts_where_its_inferred_size_is_lost():
    """A [1, seq, 8] table built by a Reshape to a computed shape (rotary embeddings in
    keras-hub's Llama): inference gives [?, ?, ?], the analysis knows its first dim is 1. Multiplied
    into [batch, seq, 8], the product's batch is the input's, not 1: the Reshape that splits its
    last dim keeps the batch (it used to be frozen at 1, wrong for every batch but 1)."""
    def build(b):
        x = b.Parameter(shape=(-1, -1, 8), element_type="f32", name="x")
        positions = b.Parameter(shape=(-1, 8), element_type="f32", name="positions")
        table = b.Reshape(positions, b.Concat(np.array([1], np.int64), _dims_of(b, positions, [0]),
                                              np.array([8], np.int64), axis=0), special_zero=False)
        assert table.data.get_shape() == (-1, -1, -1)
        y = b.Multiply(x, b.Cos(table))
        return b.Reshape(y, b.Concat(_dims_of(b, y, [0, 1]), np.array([2, 4], np.int64), axis=0), special_zero=False)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((3, 5, 8)).astype(np.float32), rng.standard_normal((5, 8)).astype(np.float32)]
    g = assert_rewrite(build, FoldFixedShapeValues, inputs, expect_ops=["Reshape", "Cos", "Multiply", "Reshape"])
    split = [r for r in g.nodes_by_op("Reshape") if r.in_port(0).get_source().node.op == "Multiply"][0]
    assert list(split.in_value(1)) == [0, 0, 2, 4] and split.special_zero


def _reshaped_to_own_dims(shape, target_parts, src_of=None):
    """x of ``shape`` reshaped to a target concatenated from ``target_parts``: an int list is a
    constant, a tuple is dims of x (or of ``src_of(b, x)``) at those positions; then doubled."""
    def build(b):
        x = b.Parameter(shape=shape, element_type="f32", name="x")
        y = src_of(b, x) if src_of else x
        parts = [np.array(p, np.int64) if isinstance(p, list) else _dims_of(b, y, list(p)) for p in target_parts]
        return b.Multiply(b.Reshape(y, b.Concat(*parts, axis=0), special_zero=False), np.float32(2))
    return build


def _heads(b, x):
    """[batch, seq, 64] -> [batch, 4, seq, 16] through a projection: 4 and 16 fixed by the weights."""
    h = b.MatMul(x, np.eye(64, dtype=np.float32))
    return b.Transpose(b.Reshape(h, np.array([0, 0, 4, 16], np.int64), special_zero=True), np.array([0, 2, 1, 3]))


@pytest.mark.parametrize("shape, parts, src_of, expect", [
    # transformers' attn_output.reshape(batch, -1, q_len, head_dim)
    ((-1, -1, 64), [(0,), [-1], (2,), [16]], _heads, ["MatMul", "Reshape", "Transpose", "Multiply"]),
    ((-1, -1), [[-1], (1,)], None, ["Multiply"]),                          # input_ids.view(-1, seq_len) (GPT-2)
    ((-1, -1), [[-1], [1], (2,)], lambda b, x: b.Unsqueeze(x, np.array([1])), ["Unsqueeze", "Multiply"]),  # 1s
], ids=["heads", "flatten-batch", "ones"])
def test_reshape_that_keeps_every_dim_goes(shape, parts, src_of, expect):
    inputs = [np.random.default_rng(3).standard_normal([3 if d < 0 else d for d in shape]).astype(np.float32)]
    assert_rewrite(_reshaped_to_own_dims(shape, parts, src_of), FoldFixedShapeValues, inputs, expect_ops=expect)


def test_reshape_that_moves_a_dim_stays():
    build = _reshaped_to_own_dims((-1, -1, 64), [(0,), (2,), [-1], [16]], _heads)    # [b, s, 4, 16]
    inputs = [np.random.default_rng(3).standard_normal((2, 3, 64)).astype(np.float32)]
    g = assert_untouched(build, FoldFixedShapeValues, inputs)
    assert len(g.nodes_by_op("Reshape")) == 2


def test_attention_output_rows_zeroed_by_the_mask_keep_the_querys_dims():
    """The Select that zeroes query rows the mask hides from every key (the attention
    translator's ``hidden_rows_to_zero``) has the attention output's dims, whatever the mask's:
    the reshape transformers writes after attention then changes nothing and goes."""
    def build(b):
        q, k, v = (_heads(b, b.Parameter(shape=(-1, -1, 64), element_type="f32", name=n)) for n in "qkv")
        mask = b.Parameter(shape=(-1, 1, -1, -1), element_type="boolean", name="mask")
        attended = b.ScaledDotProductAttention(q, k, v, mask, causal=False)
        hidden = b.ReduceLogicalAnd(b.LogicalNot(mask), np.array(-1, np.int64), keep_dims=True)
        zeroed = b.Select(hidden, np.float32(0), attended)
        zeroed.node["hidden_rows_to_zero"] = True
        target = b.Concat(_dims_of(b, zeroed, [0]), np.array([-1], np.int64), _dims_of(b, q, [2]),
                          np.array([16], np.int64), axis=0)
        return b.Reshape(zeroed, target, special_zero=False)
    rng = np.random.default_rng(4)
    inputs = [rng.standard_normal((2, 3, 64)).astype(np.float32) for _ in range(3)] + [rng.random((2, 1, 3, 3)) < 0.7]
    assert_rewrite(build, FoldFixedShapeValues, inputs, expect_ops=["MatMul", "Reshape", "Transpose"] * 3 + [
        "ScaledDotProductAttention", "LogicalNot", "ReduceLogicalAnd", "Select"])
