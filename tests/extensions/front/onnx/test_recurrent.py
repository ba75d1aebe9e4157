"""ONNX LSTM, GRU and RNN converted with mo, run in OpenVINO and compared with ONNX Runtime, in
every direction and layout, with and without the optional inputs."""
import numpy as np
import pytest
from defusedxml import ElementTree
from onnx import TensorProto, helper

from mo import convert_model
from mo.errors import ConversionError
from tests.utils.onnx_models import make_model, run_onnxruntime
from tests.utils.runtime import assert_close, run_ir

F = TensorProto.FLOAT
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
SEQ, BATCH, INPUT, HIDDEN = 4, 3, 5, 6


def recurrent_model(cell, direction="forward", layout=0, bias=True, lengths=False, initial=False,
                    const_weights=False, outputs=None, peepholes=False, dynamic_batch=False, **attrs):
    """One ONNX ``cell`` node; returns the model and its input values (the optional inputs that
    are left out are empty names; an attribute given as None is left out; ``dynamic_batch``
    declares the batch dimension of every input as N)."""
    rng = np.random.default_rng(7)
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[cell] * HIDDEN
    state_shape = (dirs, BATCH, HIDDEN)
    values = {"X": rng.standard_normal((SEQ, BATCH, INPUT)), "W": rng.standard_normal((dirs, g, INPUT)) * 0.5,
              "R": rng.standard_normal((dirs, g, HIDDEN)) * 0.5}
    if bias:
        values["B"] = rng.standard_normal((dirs, 2 * g))
    if lengths:
        values["L"] = np.array([SEQ, 1, SEQ - 1][:BATCH], np.int32)
    if initial:
        values["H0"] = rng.standard_normal(state_shape)
        if cell == "LSTM":
            values["C0"] = rng.standard_normal(state_shape)
    if peepholes:   # constant weights: zeros, which need no peepholes
        values["P"] = np.zeros((dirs, 3 * HIDDEN)) if const_weights else rng.standard_normal((dirs, 3 * HIDDEN))
    values = {k: v.astype(np.float32) if v.dtype == np.float64 else v for k, v in values.items()}
    if layout:
        values.update({k: v.transpose(1, 0, 2) for k, v in values.items() if k in ("X", "H0", "C0")})
    names = ["X", "W", "R", "B", "L", "H0"] + (["C0", "P"] if cell == "LSTM" else [])
    node_inputs = [n if n in values else "" for n in names]
    while not node_inputs[-1]:
        node_inputs.pop()
    outputs = outputs or (["Y", "Y_h", "Y_c"] if cell == "LSTM" else ["Y", "Y_h"])
    attrs = {"hidden_size": HIDDEN, **attrs}
    node = helper.make_node(cell, node_inputs, outputs, direction=direction, layout=layout,
                            **{k: v for k, v in attrs.items() if v is not None})
    inits = {k: values.pop(k) for k in ("W", "R", "B", "P") if const_weights and k in values}
    types = {"L": TensorProto.INT32}
    def shape(name, value):
        dims = list(value.shape)
        if dynamic_batch and name in ("X", "H0", "C0", "L"):
            dims[0 if name == "L" else int(bool(layout)) if name == "X" else 1 - int(bool(layout))] = "N"
        return dims
    model = make_model([node], [(k, types.get(k, F), shape(k, v)) for k, v in values.items()],
                       [(o, F, None) for o in outputs if o], inits, opset=22, ir_version=10)
    return model, list(values.values())


def check(tmp_path, *args, **kwargs):
    """Convert ``recurrent_model(*args, **kwargs)``, run it and compare with ONNX Runtime, which
    has no batch-first (layout 1) kernels: the same model in layout 0 is its reference then."""
    model, inputs = recurrent_model(*args, **kwargs)
    paths = convert_model(input_model=model, output_dir=str(tmp_path), compress_to_fp16=False)
    if not kwargs.get("layout"):
        expected = run_onnxruntime(model, inputs)
    else:
        expected = run_onnxruntime(*recurrent_model(*args, **{**kwargs, "layout": 0}))
        expected = [o.transpose(2, 0, 1, 3) if o.ndim == 4 else o.transpose(1, 0, 2) for o in expected]
    assert_close(run_ir(paths.xml, inputs), expected, rtol=1e-4, atol=1e-5)
    return paths


@pytest.mark.parametrize("cell", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("layout", [0, 1])
def test_directions_and_layouts(tmp_path, cell, direction, layout):
    check(tmp_path, cell, direction, layout=layout, initial=True)


@pytest.mark.parametrize("cell", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bias, lengths, initial", [(False, False, False), (True, True, False), (True, True, True)])
def test_optional_inputs(tmp_path, cell, bias, lengths, initial):
    check(tmp_path, cell, "bidirectional", bias=bias, lengths=lengths, initial=initial)


@pytest.mark.parametrize("cell", ["LSTM", "GRU"])
def test_constant_weights_fold_to_reordered_constants(tmp_path, cell):
    root = ElementTree.parse(check(tmp_path, cell, "bidirectional", const_weights=True).xml).getroot()
    types = {layer.get("id"): layer.get("type") for layer in root.iter("layer")}
    seq = next(i for i, t in types.items() if t == f"{cell}Sequence")
    first_weight = 4 if cell == "LSTM" else 3
    sources = {int(e.get("to-port")): types[e.get("from-layer")] for e in root.iter("edge") if e.get("to-layer") == seq}
    assert [sources[first_weight + i] for i in range(3)] == ["Const"] * 3


@pytest.mark.parametrize("lbr", [0, 1])
def test_gru_linear_before_reset(tmp_path, lbr):
    check(tmp_path, "GRU", "bidirectional", linear_before_reset=lbr, initial=True)


def test_activations_and_clip(tmp_path):
    check(tmp_path, "LSTM", "bidirectional", activations=["Sigmoid", "Relu", "Tanh"] * 2, clip=0.5)


def test_only_last_state_used(tmp_path):
    check(tmp_path, "GRU", outputs=["", "Y_h"])


@pytest.mark.parametrize("direction, layout, lengths, initial, clip", [
    ("forward", 0, False, False, 0.0), ("reverse", 0, True, True, 0.0), ("bidirectional", 1, True, True, 0.3)])
def test_peepholes_as_loop(tmp_path, direction, layout, lengths, initial, clip):
    check(tmp_path, "LSTM", direction, layout=layout, lengths=lengths, initial=initial, peepholes=True,
          **({"clip": clip} if clip else {}))


@pytest.mark.parametrize("cell", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("direction, layout, initial", [("forward", 0, False), ("reverse", 1, True),
                                                        ("bidirectional", 0, True)])
def test_sequence_lengths_with_a_dynamic_batch_step_in_a_loop(tmp_path, cell, direction, layout, initial):
    """OpenVINO's CPU plugin ignores the sequence ops' lengths when a shape is dynamic: such a node
    becomes a Loop; with static shapes the sequence op stays."""
    xml = open(check(tmp_path / "dynamic", cell, direction, layout=layout, lengths=True, initial=initial,
                     dynamic_batch=True).xml).read()
    assert 'type="Loop"' in xml and f'type="{cell}Sequence"' not in xml
    xml = open(check(tmp_path / "static", cell, direction, layout=layout, lengths=True, initial=initial).xml).read()
    assert f'type="{cell}Sequence"' in xml


@pytest.mark.parametrize("lbr", [0, 1])
def test_gru_loop_linear_before_reset_and_clip(tmp_path, lbr):
    check(tmp_path, "GRU", "bidirectional", lengths=True, dynamic_batch=True, linear_before_reset=lbr, clip=0.7,
          activations=["Sigmoid", "Relu"] * 2)


def test_zero_peepholes_keep_lstm_sequence(tmp_path):
    xml = open(check(tmp_path, "LSTM", peepholes=True, const_weights=True).xml).read()
    assert 'type="LSTMSequence"' in xml and 'type="Loop"' not in xml


def ir_output_shapes(xml: str) -> list[tuple[int, ...]]:
    root = ElementTree.parse(xml).getroot()
    return [tuple(int(d.text) for d in layer.find("input/port").findall("dim")) for layer in root.iter("layer")
            if layer.get("type") == "Result"]


@pytest.mark.parametrize("layout, y, state", [(0, (SEQ, 2, BATCH, HIDDEN), (2, BATCH, HIDDEN)),
                                              (1, (BATCH, SEQ, 2, HIDDEN), (BATCH, 2, HIDDEN))])
def test_hidden_size_from_the_shape_of_r(tmp_path, layout, y, state):
    model, inputs = recurrent_model("LSTM", "bidirectional", layout=layout, hidden_size=None)
    paths = convert_model(input_model=model, output_dir=str(tmp_path), compress_to_fp16=False)
    assert ir_output_shapes(paths.xml) == [y, state, state]
    expected, _ = recurrent_model("LSTM", "bidirectional", layout=layout)
    if not layout:
        assert_close(run_ir(paths.xml, inputs), run_onnxruntime(expected, inputs), rtol=1e-4, atol=1e-5)


def test_without_hidden_size_or_a_known_shape_of_r_is_refused(tmp_path):
    node = helper.make_node("RNN", ["X", "W", "R"], ["Y"])
    model = make_model([node], [("X", F, [SEQ, BATCH, INPUT]), ("W", F, [1, HIDDEN, INPUT]), ("R", F, None)],
                       [("Y", F, None)], opset=22, ir_version=10)
    with pytest.raises(ConversionError, match=r"\(onnx RNN\): hidden_size is not given and the shape of R"):
        convert_model(input_model=model, output_dir=str(tmp_path))
