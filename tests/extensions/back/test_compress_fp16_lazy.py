"""fp16 compression is lazy: the f16 Const keeps the float32 values (no float16 copy, no folded
float32 copy on the Convert) and equal constants are still found by their float16 values."""
import numpy as np

from extensions.back.compress_fp16 import CompressWeightsToFP16
from extensions.back.merge_constants import MergeDuplicateConstants
from mo.emit.ir import emit_ir
from tests.utils.graphs import new_graph


def _weights_graph(w1, w2):
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=(w1.size,), element_type="f32", name="x")
    y = b.Multiply(b.Add(x, b.const(w1, name="w1")), b.const(w2, name="w2"))
    b.Result(y, name="y")
    return g


def test_compressed_const_keeps_the_float32_view_and_the_convert_no_value():
    w = np.linspace(-3, 3, 64, dtype=np.float32)
    g = _weights_graph(w, np.ones(64, np.float32))
    CompressWeightsToFP16().find_and_replace_pattern(g)
    g.lint()
    compressed = {n.name: n for n in g.nodes_by_op("Const")}["w1_compressed"]
    assert compressed.element_type == "f16"
    assert np.shares_memory(compressed.value, w)
    assert compressed.out_port(0).data.get_dtype() == "f16"
    convert = compressed.out_port(0).get_destinations()[0].node
    assert convert.op == "Convert" and convert.out_port(0).data.get_value() is None
    assert convert.out_port(0).data.get_shape() == (64,)


def test_constants_equal_in_f16_are_merged_and_written_once(tmp_path):
    """Two float32 weights that differ only below float16's precision were merged when the
    compression made float16 copies; they still are, and the IR holds the float16 bytes once."""
    w1 = np.linspace(-3, 3, 64, dtype=np.float32)
    w2 = w1.copy()
    w2[10] = np.nextafter(w2[10], np.float32(10))
    assert w2.astype(np.float16).tobytes() == w1.astype(np.float16).tobytes()
    g = _weights_graph(w1, w2)
    CompressWeightsToFP16().find_and_replace_pattern(g)
    MergeDuplicateConstants().find_and_replace_pattern(g)
    g.lint()
    assert sorted(n.name for n in g.nodes_by_op("Const")) == ["w1_compressed"]
    _, bin_path = emit_ir(g, str(tmp_path), "m", {})
    with open(bin_path, "rb") as f:
        assert f.read() == w1.astype(np.float16).tobytes()
