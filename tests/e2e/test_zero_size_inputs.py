"""Models whose inputs have a dimension of 0 (an empty batch, no channels, an empty axis): each
one-node ONNX model converts into an IR the CPU plugin compiles and runs with ONNX Runtime's
results, three times in a row (an output left uninitialised by a kernel would differ between runs),
at f32 and with the plugin's default precision (bf16 where the CPU has it: the plugin refused to
compile a MatMul over an empty inner dim only then).
Such products and reductions over no elements are made constants by extensions/middle/
empty_reductions.py; cases ONNX Runtime itself refuses (a Reshape of an empty tensor to a
non-empty shape, global pools over empty spatial dims, LayerNormalization over an empty axis, an
LSTM over an empty batch: it aborts) are left out."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from mo import convert_model
from tests.utils.onnx_models import make_model, run_onnxruntime
from tests.utils.runtime import assert_close, core, run_ir


def ones(*shape, dtype=np.float32):
    return np.ones(shape, dtype)


X0 = ones(2, 0, 3)
I64 = np.int64
CASES = {  # name -> (op, inputs, attributes, initializers, outputs)
    **{op: (op, {"x": X0}, {}, {}, 1) for op in ("Relu", "Sigmoid", "Exp", "Abs", "Sqrt", "Tanh", "Erf", "Identity")},
    **{op: (op, {"a": X0, "b": ones(1, 1, 3)}, {}, {}, 1) for op in ("Add", "Mul", "Div", "Pow", "Max")},
    **{f"{op}_{axis}": (op, {"x": X0}, {"keepdims": 0}, {"axes": np.array([axis], I64)}, 1)
       for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceLogSumExp")
       for axis in (1, 2)},
    "Softmax_empty_rows": ("Softmax", {"x": X0}, {"axis": -1}, {}, 1),
    "Softmax_empty_axis": ("Softmax", {"x": ones(2, 3, 0)}, {"axis": -1}, {}, 1),
    "Concat_empty_part": ("Concat", {"a": X0, "b": ones(2, 4, 3)}, {"axis": 1}, {}, 1),
    "Transpose": ("Transpose", {"x": X0}, {"perm": [2, 0, 1]}, {}, 1),
    "Reshape_minus_one": ("Reshape", {"x": X0}, {}, {"s": np.array([-1, 3], I64)}, 1),
    "Gather_empty_indices": ("Gather", {"x": ones(4, 3)}, {}, {"i": np.zeros(0, I64)}, 1),
    "Conv_empty_batch": ("Conv", {"x": ones(0, 2, 5, 5)}, {}, {"w": ones(4, 2, 3, 3)}, 1),
    "Conv_padding_only": ("Conv", {"x": ones(1, 2, 0, 5)}, {"pads": [1, 1, 1, 1]}, {"w": ones(4, 2, 1, 1)}, 1),
    "Conv_no_channels": ("Conv", {"x": ones(1, 0, 5, 5)}, {}, {"w": ones(4, 0, 3, 3), "b": ones(4)}, 1),
    "ConvTranspose_empty_batch": ("ConvTranspose", {"x": ones(0, 2, 3, 3)}, {}, {"w": ones(2, 4, 3, 3)}, 1),
    "MaxPool_empty_batch": ("MaxPool", {"x": ones(0, 2, 4, 4)}, {"kernel_shape": [2, 2]}, {}, 1),
    "BatchNormalization": ("BatchNormalization", {"x": ones(0, 2, 3)}, {}, {k: ones(2) for k in "sbmv"}, 1),
    "LayerNormalization_empty_rows": ("LayerNormalization", {"x": ones(0, 4)}, {}, {"s": ones(4)}, 1),
    "InstanceNormalization_empty_hw": ("InstanceNormalization", {"x": ones(1, 2, 0)}, {}, {"s": ones(2), "b": ones(2)},
                                       1),
    "MatMul_empty_inner": ("MatMul", {"a": ones(4, 2, 0), "b": ones(0, 5)}, {}, {}, 1),
    "MatMul_empty_rows": ("MatMul", {"a": ones(0, 2), "b": ones(2, 4)}, {}, {}, 1),
    "Gemm_empty_inner": ("Gemm", {"a": ones(3, 0), "b": ones(0, 4)}, {}, {"c": np.arange(4.0, dtype=np.float32)}, 1),
    "Einsum_empty_inner": ("Einsum", {"a": ones(3, 0), "b": ones(0, 4)}, {"equation": "ij,jk->ik"}, {}, 1),
    "TopK_empty_rows": ("TopK", {"x": ones(0, 5)}, {}, {"k": np.array([2], I64)}, 2),
    "ArgMax_empty_rows": ("ArgMax", {"x": ones(0, 5)}, {"axis": 1}, {}, 1),
    "CumSum": ("CumSum", {"x": X0}, {}, {"axis": np.array(1, I64)}, 1),
    "Pad_empty": ("Pad", {"x": ones(2, 0)}, {}, {"p": np.array([0, 1, 0, 1], I64)}, 1),
    "Tile_empty": ("Tile", {"x": ones(2, 0)}, {}, {"r": np.array([2, 3], I64)}, 1),
    "Where_empty": ("Where", {"c": np.ones((0, 3), bool), "a": ones(0, 3), "b": ones(1, 3)}, {}, {}, 1),
    "Cast_empty": ("Cast", {"x": X0}, {"to": TensorProto.INT32}, {}, 1),
    "Split_empty_part": ("Split", {"x": ones(4, 3)}, {}, {"s": np.array([0, 4], I64)}, 2),
    "ScatterND_no_updates": ("ScatterND", {"x": ones(4, 3)}, {}, {"i": np.zeros((0, 1), I64), "u": ones(0, 3)}, 1),
    "NonZero_empty": ("NonZero", {"x": ones(0, 3)}, {}, {}, 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_zero_size_input_converts_compiles_and_runs(name, tmp_path):
    op, inputs, attrs, inits, outputs = CASES[name]
    out_names = [f"y{i}" for i in range(outputs)]
    node = helper.make_node(op, list(inputs) + list(inits), out_names, **attrs)
    model_inputs = [(k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape)) for k, v in inputs.items()]
    model = make_model([node], model_inputs, [(o, 0, None) for o in out_names], inits, opset=18)
    for out in model.graph.output:
        out.type.Clear()
    expected = run_onnxruntime(model, list(inputs.values()))
    onnx.save(model, tmp_path / "m.onnx")
    xml = convert_model(input_model=str(tmp_path / "m.onnx"), output_dir=str(tmp_path / "ir"),
                        compress_to_fp16=False).xml
    for _ in range(3):
        assert_close(run_ir(xml, list(inputs.values())), expected, rtol=1e-5, atol=1e-6)
    default = core().compile_model(xml, "CPU")      # the user's default inference precision
    results = default(list(inputs.values()))
    assert_close([results[o] for o in default.outputs], expected, rtol=1e-2, atol=1e-2)
