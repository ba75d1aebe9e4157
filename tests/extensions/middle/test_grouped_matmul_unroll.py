"""UnrollGroupedMatMul: a GroupedMatMul of constant expert weights becomes one Slice + MatMul per
expert, concatenated, with the same values (also through a Transpose and a decompression
Convert of the weights, and with rows past the last offset); computed weights stay grouped."""
import numpy as np
import pytest

from extensions.middle.grouped_matmul_unroll import UnrollGroupedMatMul
from tests.utils.reference import assert_rewrite, assert_untouched

RNG = np.random.default_rng(0)
GROUPS, ROWS, K, N = 3, 7, 4, 5
WEIGHTS = RNG.standard_normal((GROUPS, N, K)).astype(np.float32)


def _inputs(offsets):
    return {"rows": RNG.standard_normal((ROWS, K)).astype(np.float32), "offsets": np.array(offsets, np.int64)}


def _graph(weights):
    def build(b):
        rows = b.Parameter(shape=(-1, K), element_type="f32", name="rows")
        offsets = b.Parameter(shape=(GROUPS,), element_type="i64", name="offsets")
        return b.GroupedMatMul(rows, weights(b), offsets)
    return build


TAIL = ["ShapeOf", "Slice", "Subtract", "Concat", "Broadcast", "Concat"]
UNROLLED = ["Slice", "Slice", "MatMul"] * GROUPS + TAIL


@pytest.mark.parametrize("offsets", [[2, 2, 7], [0, 3, 5]])
def test_constant_weights_become_one_matmul_per_expert(offsets):
    graph = assert_rewrite(_graph(lambda b: b.const(WEIGHTS)), UnrollGroupedMatMul, _inputs(offsets),
                           expect_ops=UNROLLED)
    matmuls = list(graph.nodes_by_op("MatMul"))
    assert all(m.transpose_b and m.in_port(1).data.get_shape() == (N, K) for m in matmuls)


def test_transposed_and_decompressed_weights_are_sliced_in_their_stored_layout():
    stored = np.ascontiguousarray(WEIGHTS.transpose(0, 2, 1)).astype(np.float16)     # [G, K, N]

    def weights(b):
        decompressed = b.Convert(b.const(stored), destination_type="f32", rt_info={"decompression": None},
                                 foldable=False)
        return b.Transpose(decompressed, np.array([0, 2, 1], np.int64))
    graph = assert_rewrite(_graph(weights), UnrollGroupedMatMul, _inputs([1, 4, 6]),
                           expect_ops=["Convert", "Slice", "Slice", "MatMul"] * GROUPS + TAIL,
                           rtol=1e-3, atol=1e-3)
    for matmul in graph.nodes_by_op("MatMul"):
        convert = matmul.in_port(1).get_source().node
        assert not matmul.transpose_b and convert.op == "Convert" and "decompression" in convert.rt_info
        assert convert.in_port(0).get_source().node.value.base is not None     # a view of the stored weights


def test_computed_weights_stay_grouped():
    assert_untouched(_graph(lambda b: b.Multiply(b.const(WEIGHTS), b.Parameter(shape=(), element_type="f32",
                                                                                name="scale"))),
                     UnrollGroupedMatMul, {**_inputs([2, 5, 7]), "scale": np.float32(2)})
