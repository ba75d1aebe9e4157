"""--compress_weights int8|int4_sym|int4_asym: MatMul and embedding weights stored as u8/i4/u4 with
scales (and zero points), decompressed by Convert -> Subtract -> Multiply; the CPU plugin runs them
as compressed weights.

Tolerances (each relative to the largest magnitude of the reference output; random Gaussian
weights, the hardest case for data-free compression): int8 4e-2, int4 3e-1. Measured on the
embedding + 3-layer MLP below: int8 1.5-1.8%, int4 groups of 32 12-15%, of 128 15-19%, per
channel 15-21%; a tiny Llama's logits: int8 0.9%, int4 (groups of 32) 6-7%."""
import os

import numpy as np
import pytest
from defusedxml import ElementTree
from onnx import TensorProto, helper

from benchmarks.convert_large_onnx import measure_mo
from mo import convert_model
from mo.cli.options import make_options
from mo.emit.bin_writer import BinWriter, LazyConstant, tensor_bytes
from mo.errors import OptionError
from mo.runtime.openvino_ir import core
from tests.e2e.test_cli import run_mo
from tests.utils.onnx_models import make_model, run_onnxruntime
from tests.utils.runtime import assert_close, run_ir

TOLERANCE = {"int8": 4e-2, "int4_sym": 3e-1, "int4_asym": 3e-1}
STORED = {"int8": "u8", "int4_sym": "i4", "int4_asym": "u4"}
MIB = 2 ** 20


def _const_types(xml) -> dict[str, str]:
    """Element type of each Const by name, bodies included."""
    return {layer.get("name"): layer.find("data").get("element_type")
            for layer in ElementTree.parse(xml).getroot().iter("layer") if layer.get("type") == "Const"}


def _weight_types(xml, names) -> dict[str, str]:
    """Stored type of each weight: its own Const when it stayed float, else its integer Const."""
    types = _const_types(xml)
    found = {}
    for name in names:
        stored = [t for n, t in types.items() if n.startswith(name + "_") and t in ("u8", "u4", "i4")]
        found[name] = stored[0] if stored else types.get(name, types.get(name + "_compressed"))
    return found


def _compressed_layers(xml) -> list[tuple[str, str]]:
    """(layer type, weight precision) of the FullyConnected and Gather layers of the compiled
    model: the precision is that of their weights when the plugin runs them compressed."""
    compiled = core().compile_model(core().read_model(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    found = []
    for op in compiled.get_runtime_model().get_ordered_ops():
        info = op.get_rt_info()
        kind = info["layerType"].astype(str)
        if kind in ("FullyConnected", "Gather"):
            found.append((kind, info["runtimePrecision"].astype(str)))
    return found


def _assert_close_relative(actual, expected, tolerance):
    scale = float(np.abs(expected).max())
    assert_close([actual], [expected], rtol=0, atol=tolerance * scale)


# ---------------------------------------------------------------------------------------- models

def _mlp(dtype=np.float32, embedding=False, hidden=256, rng_seed=0):
    """[ids -> Gather(E) ->] MatMul(W1 [K,N]) -> Relu -> Gemm(W2 [M,N], transB) -> Relu ->
    MatMul(W3 [M,64]) -> y (the last projection)."""
    rng = np.random.default_rng(rng_seed)
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.FLOAT16
    weights = {"W1": rng.standard_normal((hidden, hidden)) / 16, "W2": rng.standard_normal((hidden, hidden)) / 16,
               "W3": rng.standard_normal((hidden, 64)) / 16}
    nodes = [helper.make_node("MatMul", ["x", "W1"], ["h1"]), helper.make_node("Relu", ["h1"], ["r1"]),
             helper.make_node("Gemm", ["r1", "W2"], ["h2"], transB=1), helper.make_node("Relu", ["h2"], ["r2"]),
             helper.make_node("MatMul", ["r2", "W3"], ["y"])]
    if embedding:
        weights["E"] = rng.standard_normal((100, hidden))
        nodes.insert(0, helper.make_node("Gather", ["E", "ids"], ["x"]))
        inputs = [("ids", TensorProto.INT64, [6])]
        feed = [rng.integers(0, 100, 6)]
    else:
        inputs = [("x", elem, [4, hidden])]
        feed = [rng.standard_normal((4, hidden)).astype(dtype)]
    model = make_model(nodes, inputs, [("y", elem, [len(feed[0]), 64])],
                       {k: v.astype(dtype) for k, v in weights.items()})
    return model, feed


GROUPS = [("int8", None), ("int4_sym", 128), ("int4_asym", 128), ("int4_sym", 32), ("int4_asym", 32),
          ("int4_sym", -1), ("int4_asym", -1)]


@pytest.mark.parametrize("mode,group", GROUPS, ids=[f"{m}-{g}" for m, g in GROUPS])
def test_matmul_gemm_and_embedding_weights(tmp_path, mode, group):
    model, feed = _mlp(embedding=True)
    options = {"compress_weights": mode} if group is None else {"compress_weights": mode, "group_size": group}
    paths = convert_model(model, output_dir=str(tmp_path), **options)
    # the middle weights in the mode; the embedding and the last projection (logits) stay int8
    assert _weight_types(paths.xml, ["W1", "W2", "W3", "E"]) == {"W1": STORED[mode], "W2": STORED[mode],
                                                                 "W3": "u8", "E": "u8"}
    _assert_close_relative(run_ir(paths.xml, feed)[0], run_onnxruntime(model, feed)[0], TOLERANCE[mode])
    assert sorted(_compressed_layers(paths.xml)) == sorted(
        [("Gather", "u8"), ("FullyConnected", STORED[mode]), ("FullyConnected", STORED[mode]),
         ("FullyConnected", "u8")])


@pytest.mark.parametrize("mode", ["int4_sym", "int4_asym"])
def test_a_group_size_that_does_not_divide_falls_back_to_int8(tmp_path, mode, caplog):
    model, feed = _mlp()
    with caplog.at_level("INFO", logger="mo"):
        paths = convert_model(model, output_dir=str(tmp_path), compress_weights=mode, group_size=96)
    assert _weight_types(paths.xml, ["W1", "W2", "W3"]) == {"W1": "u8", "W2": "u8", "W3": "u8"}
    assert "--group_size 96 does not divide the reduction dimension of W1 (256), W2 (256)" in caplog.text
    _assert_close_relative(run_ir(paths.xml, feed)[0], run_onnxruntime(model, feed)[0], TOLERANCE["int8"])


@pytest.mark.parametrize("mode", ["int8", "int4_sym", "int4_asym"])
def test_f16_weights(tmp_path, mode):
    model, feed = _mlp(np.float16)
    paths = convert_model(model, output_dir=str(tmp_path), compress_weights=mode, group_size=None if mode == "int8"
                          else 64)
    assert _weight_types(paths.xml, ["W1", "W2"]) == {"W1": STORED[mode], "W2": STORED[mode]}
    actual, expected = run_ir(paths.xml, feed)[0], run_onnxruntime(model, feed)[0]
    assert actual.dtype == np.float16
    _assert_close_relative(actual.astype(np.float32), expected.astype(np.float32), TOLERANCE[mode])


@pytest.mark.parametrize("mode", ["int8", "int4_asym"])
def test_bf16_weights(tmp_path, mode):
    """A bf16 PyTorch model: bf16 weights quantized, the decompression ends in a Convert to bf16.
    (The CPU plugin decompresses such weights once when it compiles the model: it fuses the
    decompression into FullyConnected for f32 and f16 activations only.)"""
    import ml_dtypes
    import torch
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64))
    model = model.to(torch.bfloat16).eval()
    x = torch.randn(2, 128).to(torch.bfloat16)
    with torch.no_grad():
        expected = model(x).float().numpy()
    paths = convert_model(model, example_input=x, output_dir=str(tmp_path), compress_weights=mode, group_size=None
                          if mode == "int8" else 64)
    assert _weight_types(paths.xml, ["0.weight", "2.weight"]) == {"0.weight": STORED[mode], "2.weight": "u8"}
    raw = run_ir(paths.xml, [x.float().numpy().astype(ml_dtypes.bfloat16)])[0]      # bf16 comes back as raw bytes
    _assert_close_relative(raw.view(np.uint16).view(ml_dtypes.bfloat16).astype(np.float32), expected,
                           TOLERANCE[mode])


@pytest.mark.parametrize("mode", ["int8", "int4_asym"])
def test_without_fp16_compression_scales_are_f32(tmp_path, mode):
    model, feed = _mlp()
    paths = convert_model(model, output_dir=str(tmp_path), compress_weights=mode, compress_to_fp16=False)
    types = _const_types(paths.xml)
    assert types["W1_scale"] == "f32" and "f16" not in types.values()
    _assert_close_relative(run_ir(paths.xml, feed)[0], run_onnxruntime(model, feed)[0], TOLERANCE[mode])


def test_tied_embedding_and_projection_share_one_int8_weight(tmp_path):
    """One [V, H] weight read by the embedding Gather and by the logits MatMul (transpose_b): both
    quantize it per row, so one u8 weight with its scales serves both."""
    rng = np.random.default_rng(3)
    table = rng.standard_normal((128, 64)).astype(np.float32)
    nodes = [helper.make_node("Gather", ["E", "ids"], ["h"]), helper.make_node("Gemm", ["h", "E"], ["y"], transB=1)]
    model = make_model(nodes, [("ids", TensorProto.INT64, [5])], [("y", TensorProto.FLOAT, [5, 128])], {"E": table})
    paths = convert_model(model, output_dir=str(tmp_path), compress_weights="int4_sym")
    assert sorted(_const_types(paths.xml).values()).count("u8") == 2      # the weights and their zero points
    feed = [rng.integers(0, 128, 5)]
    _assert_close_relative(run_ir(paths.xml, feed)[0], run_onnxruntime(model, feed)[0], TOLERANCE["int8"])
    assert sorted(_compressed_layers(paths.xml)) == [("FullyConnected", "u8"), ("Gather", "u8")]


@pytest.mark.parametrize("condition", [True, False])
def test_weights_in_if_branches(tmp_path, condition):
    """Bodies are compressed too; a branch's MatMul makes its output, so it is kept int8."""
    from onnx import numpy_helper
    rng = np.random.default_rng(8)

    def branch(name):
        weight = numpy_helper.from_array(rng.standard_normal((64, 64)).astype(np.float32), name + "_w")
        return helper.make_graph([helper.make_node("MatMul", ["x", name + "_w"], [name + "_y"])], name, [],
                                 [helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, [2, 64])], [weight])
    node = helper.make_node("If", ["c"], ["y"], then_branch=branch("a"), else_branch=branch("b"))
    model = make_model([node], [("c", TensorProto.BOOL, []), ("x", TensorProto.FLOAT, [2, 64])],
                       [("y", TensorProto.FLOAT, [2, 64])])
    paths = convert_model(model, output_dir=str(tmp_path), compress_weights="int4_asym", group_size=32)
    assert sorted(t for t in _const_types(paths.xml).values() if t.startswith("u")) == ["u8"] * 4
    feed = [np.array(condition), rng.standard_normal((2, 64)).astype(np.float32)]
    _assert_close_relative(run_ir(paths.xml, feed)[0], run_onnxruntime(model, feed)[0], TOLERANCE["int8"])


def test_small_and_1d_weights_stay_float(tmp_path):
    rng = np.random.default_rng(4)
    nodes = [helper.make_node("MatMul", ["x", "W"], ["h"]), helper.make_node("Add", ["h", "b"], ["y"])]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [2, 32])], [("y", TensorProto.FLOAT, [2, 64])],
                       {"W": rng.standard_normal((32, 64)).astype(np.float32),          # 2048 values
                        "b": rng.standard_normal(64).astype(np.float32)})
    paths = convert_model(model, output_dir=str(tmp_path), compress_weights="int8")
    assert set(_const_types(paths.xml).values()) == {"f16"}


# ------------------------------------------------------------------------------------- sizes

def _deep_model(layers=3, hidden=512):
    """Weight-dominated: ``layers`` MatMuls [hidden, hidden] and a small last projection."""
    rng = np.random.default_rng(5)
    nodes, weights, x = [], {}, "x"
    for i in range(layers):
        weights[f"W{i}"] = (rng.standard_normal((hidden, hidden)) / 20).astype(np.float32)
        nodes += [helper.make_node("MatMul", [x, f"W{i}"], [f"m{i}"]), helper.make_node("Relu", [f"m{i}"], [f"r{i}"])]
        x = f"r{i}"
    weights["out"] = (rng.standard_normal((hidden, 16)) / 20).astype(np.float32)
    nodes.append(helper.make_node("MatMul", [x, "out"], ["y"]))
    return make_model(nodes, [("x", TensorProto.FLOAT, [2, hidden])], [("y", TensorProto.FLOAT, [2, 16])], weights)


@pytest.mark.parametrize("mode,smaller", [("int8", (3.8, 4.0)), ("int4_sym", (7.0, 8.0)), ("int4_asym", (7.0, 8.0))])
def test_bin_is_4x_int8_and_7x_int4_smaller_than_f32(tmp_path, mode, smaller):
    model = _deep_model()
    f32 = convert_model(model, output_dir=str(tmp_path / "f32"), compress_to_fp16=False)
    small = convert_model(model, output_dir=str(tmp_path / mode), compress_weights=mode)
    ratio = os.path.getsize(f32.bin) / os.path.getsize(small.bin)
    assert smaller[0] < ratio < smaller[1], ratio
    feed = [np.random.default_rng(6).standard_normal((2, 512)).astype(np.float32)]
    _assert_close_relative(run_ir(small.xml, feed)[0], run_ir(f32.xml, feed)[0], TOLERANCE[mode])


def test_peak_memory_stays_below_half_the_weights(tmp_path):
    """Scales are computed chunk by chunk and the integers while the .bin is written, with the
    pages of the mapped weights released once read: converting ~64 MiB of weights to int8 raises
    the peak by less than half of them over converting ~1 MiB."""
    (tmp_path / "small").mkdir()
    (tmp_path / "large").mkdir()
    _, small = measure_mo(1, str(tmp_path / "small"), extra=("--compress_weights", "int8"))
    weights, large = measure_mo(64, str(tmp_path / "large"), extra=("--compress_weights", "int8"))
    assert weights > 60 * MIB
    assert large.peak - small.peak < 0.5 * weights, (large.peak / MIB, small.peak / MIB)
    written = sum(os.path.getsize(os.path.join(tmp_path, "large", "out", f))
                  for f in os.listdir(tmp_path / "large" / "out") if f.endswith(".bin"))
    assert written < weights / 3.8


# ---------------------------------------------------------------------------------- tiny Llama

@pytest.fixture(scope="module")
def tiny_llama():
    import torch
    import transformers
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=512, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                                      use_cache=False)
    model = transformers.LlamaForCausalLM(config).eval()
    ids = torch.randint(0, 512, (1, 12))
    with torch.no_grad():
        logits = model(input_ids=ids).logits.numpy()
    return model, ids, logits


# logits of a random-weight tiny Llama, relative to their largest magnitude (measured: int8
# 0.9%, int4 groups of 32: 6-7%)
LLAMA_TOLERANCE = {"int8": 3e-2, "int4_sym": 2e-1, "int4_asym": 2e-1}


@pytest.mark.parametrize("mode", ["int8", "int4_sym", "int4_asym"])
def test_tiny_llama_logits(tmp_path, tiny_llama, mode):
    model, ids, logits = tiny_llama
    options = {"compress_weights": mode} if mode == "int8" else {"compress_weights": mode, "group_size": 32}
    paths = convert_model(model, example_input={"input_ids": ids}, output_dir=str(tmp_path), **options)
    _assert_close_relative(run_ir(paths.xml, [ids.numpy()])[0], logits, LLAMA_TOLERANCE[mode])
    layers = _compressed_layers(paths.xml)
    # 7 projections per layer in the mode, lm_head and the embedding int8
    assert sorted(layers) == sorted([("FullyConnected", STORED[mode])] * 14 + [("FullyConnected", "u8"),
                                                                                ("Gather", "u8")])


# ---------------------------------------------------------------------------------- CLI and options

def test_cli_summary_and_validate(tmp_path):
    model, _ = _mlp(embedding=True)
    path = str(tmp_path / "mlp.onnx")
    import onnx
    onnx.save(model, path)
    r = run_mo(path, "-o", str(tmp_path / "out"), "--compress_weights", "int4_asym", "--group_size", "64",
               "--verbose", "--validate")
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stderr.splitlines() if "Compressed weights" in x)
    # f16: 2 * (2 * 256 * 256 + 100 * 256 + 256 * 64) bytes; W1, W2 int4 (u4: 65536 / 2 + 1024 scales
    # * 2 + 1024 zero points / 2 bytes); E and W3 int8 (25600 + 100 * 3, 16384 + 64 * 3 bytes)
    assert line == ("[ INFO ] Compressed weights (2 int4_asym, 2 int8): 338.0 KB as f16 -> 110.5 KB with scales "
                    "and zero points, 3.1x smaller")
    assert "tolerance 0.5, relative to each output's largest magnitude (also below 1; weights compressed to " \
           "int4_asym" in r.stdout
    assert "[ VALIDATE ] PASS: 1 of 1 outputs match" in r.stdout
    # without --verbose the sizes are still printed, once, on stdout after the IR's paths
    quiet = run_mo(path, "-o", str(tmp_path / "quiet"), "--compress_weights", "int8")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout.splitlines()[2].startswith("[ INFO ] Compressed weights (4 int8): 338.0 KB as f16 -> ")
    assert "Compressed weights" not in quiet.stderr
    bad = run_mo(path, "--compress_weights", "int2")
    assert bad.returncode == 1 and "invalid choice: 'int2'" in bad.stderr


def test_validate_tolerance_of_compressed_weights_is_relative_also_below_1():
    """With compressed weights an output of small magnitude is not compared absolutely: a
    difference as large as the output itself (a broken decompression) fails."""
    from mo.runtime.validate import COMPRESSED_WEIGHTS_TOLERANCE, compare_output
    expected = np.array([0.1, -0.2, 0.05], np.float32)
    tolerance = COMPRESSED_WEIGHTS_TOLERANCE["int4_asym"]
    assert compare_output("y", expected * 1.3, expected, tolerance, floor=0.0).passed
    assert not compare_output("y", -expected, expected, tolerance, floor=0.0).passed
    assert compare_output("y", -expected, expected, tolerance).passed      # absolute below 1 by default


@pytest.mark.parametrize("values,message", [
    ({"compress_weights": "int3"}, "--compress_weights must be one of int8, int4_sym, int4_asym, got 'int3'."),
    ({"group_size": 64}, "--group_size applies to int4 weight compression"),
    ({"compress_weights": "int8", "group_size": 64}, "--group_size applies to int4 weight compression"),
    ({"compress_weights": "int4_sym", "group_size": 0}, "--group_size must be positive, or -1"),
    ({"compress_weights": "int4_sym", "group_size": -2}, "--group_size must be positive, or -1"),
    ({"compress_weights": "int4_sym", "group_size": "abc"}, "--group_size must be an integer, got 'abc'."),
    ({"compress_weights": "int4_sym", "group_size": 1.5}, "--group_size must be an integer, got 1.5."),
])
def test_option_errors(values, message):
    with pytest.raises(OptionError, match=None) as e:
        make_options({"input_model": "m.onnx", **values})
    assert message in str(e.value)


def test_option_values():
    opts = make_options({"input_model": "m.onnx", "compress_weights": "INT4_ASYM", "group_size": "-1"})
    assert (opts.compress_weights, opts.group_size) == ("int4_asym", -1)
    assert make_options({"input_model": "m.onnx", "compress_weights": "int4_sym"}).group_size == 128
    assert make_options({"input_model": "m.onnx"}).compress_weights is None


# ---------------------------------------------------------------------------------- bin writer

@pytest.mark.parametrize("element_type,dtype,low,high", [("u4", np.uint8, 0, 16), ("i4", np.int8, -8, 8),
                                                         ("u8", np.uint8, 0, 256)])
def test_lazy_constant_parts_are_packed_across_odd_lengths(tmp_path, element_type, dtype, low, high):
    values = np.random.default_rng(7).integers(low, high, 101).astype(dtype)
    bounds = [0, 3, 4, 37, 38, 101]
    lazy = LazyConstant((101,), dtype, lambda: (values[a:b] for a, b in zip(bounds, bounds[1:])))
    with open(tmp_path / "w.bin", "wb") as stream:
        writer = BinWriter(stream)
        assert writer.add(np.zeros(3, np.float32), "f32") == (0, 12)
        offset, size = writer.add(lazy, element_type)
    assert (offset, size) == (12, 51 if element_type != "u8" else 101)
    assert (tmp_path / "w.bin").read_bytes()[12:] == bytes(tensor_bytes(values, element_type))
    assert np.array_equal(np.asarray(lazy), values)
