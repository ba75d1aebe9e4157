"""--transform MakeStateful / LowLatency2: the stateful IR, run step by step in one OpenVINO infer
request (the variables carry the state), matches ONNX Runtime run on the whole sequence or with
the state fed back by hand."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from mo import convert_model
from mo.errors import OptionError
from tests.e2e.test_cli import run_mo
from tests.utils.onnx_models import make_model, run_onnxruntime
from tests.utils.runtime import assert_close, core


def _steps(ir, feeds: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """Run ``feeds`` one after the other in one infer request of the IR (an IRModel or a path)."""
    model = ir.to_openvino() if hasattr(ir, "to_openvino") else core().read_model(ir)
    request = core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
    results = []
    for feed in feeds:
        request.infer({i: x for i, x in enumerate(feed)})
        results.append([np.array(request.get_output_tensor(i).data) for i in range(len(model.outputs))])
    return results


def accumulator_model():
    """y = x + s_in; s_out = 0.5 * y: a state passed through an input and an output."""
    nodes = [helper.make_node("Add", ["x", "s_in"], ["y"]), helper.make_node("Mul", ["y", "half"], ["s_out"])]
    return make_model(nodes, [("x", TensorProto.FLOAT, [1, 4]), ("s_in", TensorProto.FLOAT, [1, 4])],
                      [("y", TensorProto.FLOAT, None), ("s_out", TensorProto.FLOAT, None)],
                      {"half": np.full((1, 4), 0.5, np.float32)})


def test_make_stateful_runs_a_sequence_step_by_step(tmp_path):
    path = str(tmp_path / "acc.onnx")
    onnx.save(accumulator_model(), path)
    r = run_mo(path, "-o", str(tmp_path / "ir"), "--transform", "MakeStateful[param_res_names={'s_in':'s_out'}]")
    assert r.returncode == 0, r.stderr
    xs = [np.random.default_rng(i).standard_normal((1, 4)).astype(np.float32) for i in range(4)]
    model = core().read_model(str(tmp_path / "ir" / "acc.xml"))
    assert [i.get_any_name() for i in model.inputs] == ["x"] and len(model.get_sinks()) == 1
    state, expected = np.zeros((1, 4), np.float32), []
    for x in xs:
        y, state = run_onnxruntime(path, [x, state])
        expected.append([y])
    for actual, want in zip(_steps(str(tmp_path / "ir" / "acc.xml"), [[x] for x in xs]), expected):
        assert_close(actual, want)


def recurrent_model(op: str, seq: int, batch: int = 2, inputs: int = 3, hidden: int = 5):
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    rng = np.random.default_rng(0)
    w = rng.uniform(-0.5, 0.5, (1, gates * hidden, inputs)).astype(np.float32)
    r = rng.uniform(-0.5, 0.5, (1, gates * hidden, hidden)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, (1, 2 * gates * hidden)).astype(np.float32)
    outputs = ["y", "y_h"] + (["y_c"] if op == "LSTM" else [])
    node = helper.make_node(op, ["x", "w", "r", "b"], outputs, hidden_size=hidden)
    return make_model([node], [("x", TensorProto.FLOAT, [seq, batch, inputs])],
                      [(o, TensorProto.FLOAT, None) for o in outputs], {"w": w, "r": r, "b": b})


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_low_latency2_feeds_a_sequence_chunk_by_chunk(op):
    x = np.random.default_rng(1).standard_normal((6, 2, 3)).astype(np.float32)
    expected = run_onnxruntime(recurrent_model(op, 6), [x])
    ir = convert_model(recurrent_model(op, 2), transform="LowLatency2", compress_to_fp16=False)
    assert len(ir.to_openvino().get_sinks()) == (2 if op == "LSTM" else 1)
    steps = _steps(ir, [[x[i:i + 2]] for i in range(0, 6, 2)])
    assert_close([np.concatenate([s[0] for s in steps])] + steps[-1][1:], [expected[0]] + expected[1:],
                 rtol=1e-4, atol=1e-5)


def test_low_latency2_with_dynamic_shapes_and_the_models_initial_state():
    x = np.random.default_rng(2).standard_normal((4, 3, 3)).astype(np.float32)
    model = recurrent_model("GRU", "T", batch="N")
    expected = run_onnxruntime(model, [x])
    for flag in ("LowLatency2", "LowLatency2[use_const_initializer=False]"):
        steps = _steps(convert_model(model, transform=flag, compress_to_fp16=False), [[x[:2]], [x[2:]]])
        assert_close([np.concatenate([steps[0][0], steps[1][0]]), steps[1][1]], expected, rtol=1e-4, atol=1e-5)


def test_transform_option_errors(tmp_path):
    with pytest.raises(OptionError, match="Unknown --transform 'Pruning'"):
        convert_model(accumulator_model(), transform="Pruning")
    with pytest.raises(OptionError, match="needs param_res_names"):
        convert_model(accumulator_model(), transform="MakeStateful")
    with pytest.raises(OptionError, match="'nope' is not an input"):
        convert_model(accumulator_model(), transform=[("MakeStateful", {"param_res_names": {"nope": "s_out"}})])
    with pytest.raises(OptionError, match="has no argument 'fast'"):
        convert_model(accumulator_model(), transform="LowLatency2[fast=True]")


def loop_model(state_as_input: bool):
    """Three iterations of s = 0.5 * s + x (an ONNX Loop carrying s); s starts at zeros, or at
    the input s0 (the reference that is fed the previous call's state)."""
    body = helper.make_graph(
        [helper.make_node("Mul", ["s_in", "half"], ["h"]), helper.make_node("Add", ["h", "x"], ["s_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [1, 4])],
        [onnx.numpy_helper.from_array(np.array(0.5, np.float32), "half")])
    loop = helper.make_node("Loop", ["trips", "cond", "s0"], ["s"], body=body, name="loop")
    inputs = [("x", TensorProto.FLOAT, [1, 4])] + ([("s0", TensorProto.FLOAT, [1, 4])] if state_as_input else [])
    inits = {"trips": np.array(3, np.int64), "cond": np.array(True)}
    if not state_as_input:
        inits["s0"] = np.zeros((1, 4), np.float32)
    return make_model([loop], inputs, [("s", TensorProto.FLOAT, None)], inits)


def test_low_latency2_keeps_a_loop_state():
    xs = [np.random.default_rng(i).standard_normal((1, 4)).astype(np.float32) for i in range(3)]
    ir = convert_model(loop_model(False), transform="LowLatency2", compress_to_fp16=False)
    assert len(ir.to_openvino().get_sinks()) == 1
    state, expected = np.zeros((1, 4), np.float32), []
    for x in xs:
        (state,) = run_onnxruntime(loop_model(True), [x, state])
        expected.append([state])
    for actual, want in zip(_steps(ir, [[x] for x in xs]), expected):
        assert_close(actual, want)


def cache_model(seq_first: bool = False):
    """A key/value-cache-like model: present.k = concat(past.k, x), present.v = concat(past.v, 2x)
    along the sequence axis (1, or 0 ``seq_first``; batch N and lengths dynamic); y sums both over
    the sequence."""
    seq = 0 if seq_first else 1
    nodes = [helper.make_node("Concat", ["past.k", "x"], ["present.k"], axis=seq),
             helper.make_node("Mul", ["x", "two"], ["x2"]),
             helper.make_node("Concat", ["past.v", "x2"], ["present.v"], axis=seq),
             helper.make_node("ReduceSum", ["present.k", "axes"], ["sk"], keepdims=0),
             helper.make_node("ReduceSum", ["present.v", "axes"], ["sv"], keepdims=0),
             helper.make_node("Add", ["sk", "sv"], ["y"])]

    def shape(length):
        return [length, "N", 3] if seq_first else ["N", length, 3]
    return make_model(nodes, [("x", TensorProto.FLOAT, shape("T")), ("past.k", TensorProto.FLOAT, shape("P")),
                              ("past.v", TensorProto.FLOAT, shape("P"))],
                      [("y", TensorProto.FLOAT, None), ("present.k", TensorProto.FLOAT, None),
                       ("present.v", TensorProto.FLOAT, None)],
                      {"two": np.array(2, np.float32), "axes": np.array([seq], np.int64)})


@pytest.mark.parametrize("seq_first", [False, True])
def test_make_stateful_by_name_pattern_with_beam_idx(seq_first):
    """States paired by pattern start empty along the sequence (batch from x) and beam_idx
    reorders them along the batch axis before each step, as the reference does by hand."""
    batch_axis = 1 if seq_first else 0
    ir = convert_model(cache_model(seq_first), compress_to_fp16=False,
                       transform=f"MakeStateful[param_res_pattern={{'past.*':'present.*'}},beam_idx=True,"
                                 f"batch_axis={batch_axis}]")
    model = ir.to_openvino()
    assert [i.get_any_name() for i in model.inputs] == ["x", "beam_idx"]
    assert [o.get_any_name() for o in model.outputs] == ["y"]
    request = core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
    assert sorted(s.name for s in request.query_state()) == ["past.kpresent.k", "past.vpresent.v"]
    rng = np.random.default_rng(3)
    steps = [(rng.standard_normal((2, 3, 3)).astype(np.float32), [0, 1]),
             (rng.standard_normal((2, 1, 3)).astype(np.float32), [1, 0]),
             (rng.standard_normal((2, 2, 3)).astype(np.float32), [1, 1])]
    if seq_first:
        steps = [(x.transpose(1, 0, 2).copy(), beam) for x, beam in steps]
    past = [np.zeros((0, 2, 3) if seq_first else (2, 0, 3), np.float32)] * 2
    for x, beam in steps:
        expected = run_onnxruntime(cache_model(seq_first), [x] + [np.take(p, beam, batch_axis) for p in past])
        past = expected[1:]
        actual = request.infer({"x": x, "beam_idx": np.array(beam, np.int32)})
        assert_close([actual["y"]], expected[:1])


@pytest.mark.parametrize("transform, message", [
    ("MakeStateful[param_res_pattern={'past':'present'}]", "same number"),
    ("MakeStateful[param_res_pattern={'past.*':'present'}]", "same number"),
    ("MakeStateful[param_res_pattern={'cache.*':'present.*'}]", "no input of the model matches 'cache.*'"),
    ("MakeStateful[param_res_pattern={'past.*':'next.*'}]", "'next.k' .* is not an output"),
    ("MakeStateful[param_res_pattern={'past.*':'present.*'},batch_axis=3]", "batch_axis 3 is not an axis"),
    ("MakeStateful[param_res_pattern={'past.*':'present.*'},batch_axis=x]", "batch_axis must be an integer"),
])
def test_make_stateful_pattern_errors(transform, message):
    with pytest.raises(OptionError, match=message):
        convert_model(cache_model(), transform=transform)
