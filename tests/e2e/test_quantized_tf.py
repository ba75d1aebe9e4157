"""TensorFlow quantization-aware models run in int8: FakeQuantWithMinMaxVars(PerChannel) on
activations and kernels (as TensorFlow's QAT writes them: symmetric per-channel kernels, or any
range) and QuantizeAndDequantizeV4. The frozen graph converts with mo's defaults, computes what
TensorFlow computes, and runs its convolutions and matrix products in u8/i8 wherever OpenVINO's
converter's IR does (every one where it cannot convert the graph). The NHWC layout's Transposes
move through the FakeQuantizes and the kernels are stored as integers in the convolutions'
order."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.utils.quantized_models import assert_quantized_close, assert_runs_int8
from tests.utils.runtime import run_ir
from tests.utils.tf_models import convert_pb, freeze, specs_for, write_pb


def quantized_cnn(form: str, symmetric: bool):
    """Conv -> Relu -> conv (stride 2) -> depthwise conv -> mean -> MatMul, each input and kernel
    fake-quantized the way ``form`` says."""
    import tensorflow as tf
    rng = np.random.default_rng(0)
    kernels = [rng.standard_normal(shape).astype(np.float32) * 0.3
               for shape in ((3, 3, 3, 16), (3, 3, 16, 32), (3, 3, 32, 1), (32, 10))]

    def activations(x, low, high):
        if form == "fake_quant":
            return tf.quantization.fake_quant_with_min_max_vars(x, low, high, num_bits=8)
        return tf.raw_ops.QuantizeAndDequantizeV4(input=x, input_min=low, input_max=high, signed_input=low < 0,
                                                  num_bits=8, range_given=True)

    def kernel(w):
        axes = tuple(range(w.ndim - 1))
        low, high = w.min(axis=axes), w.max(axis=axes)
        if symmetric:
            high = np.maximum(-low, high)
            low = -high
        if form == "fake_quant":
            return tf.quantization.fake_quant_with_min_max_vars_per_channel(tf.constant(w), low, high, num_bits=8,
                                                                            narrow_range=True)
        bound = float(high.max())
        return tf.raw_ops.QuantizeAndDequantizeV4(input=tf.constant(w), input_min=-bound, input_max=bound,
                                                  signed_input=True, num_bits=8, range_given=True,
                                                  narrow_range=True)

    def model(x):
        y = tf.nn.relu(tf.nn.conv2d(activations(x, -3.0, 3.0), kernel(kernels[0]), 1, "SAME") + 0.1)
        y = tf.nn.relu(tf.nn.conv2d(activations(y, 0.0, 6.0), kernel(kernels[1]), 2, "SAME"))
        y = tf.nn.relu(tf.nn.depthwise_conv2d(activations(y, 0.0, 6.0), kernel(kernels[2]), [1, 1, 1, 1], "SAME"))
        y = tf.reduce_mean(activations(y, 0.0, 6.0), axis=[1, 2])
        return tf.matmul(activations(y, 0.0, 6.0), kernel(kernels[3]))
    return model


def ovc_ir(pb: str, tmp_path) -> str | None:
    xml = str(tmp_path / "ovc" / "model.xml")
    done = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ovc"), pb, "--output_model", xml],
                          capture_output=True)
    return xml if done.returncode == 0 else None


def frozen_output(graph_def, x: np.ndarray) -> np.ndarray:
    import tensorflow as tf
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session() as session:
            return session.run("Identity:0", {"x0:0": x})


# asymmetric per-channel kernels need a zero point: the CPU runs those convolutions in float, for
# OpenVINO's converter's IR as for mo's (the matrix product in i8 for both)
@pytest.mark.parametrize("form,symmetric,int8", [("fake_quant", True, 4), ("fake_quant", False, None),
                                                 ("quantize_dequantize_v4", True, 4)])
def test_quantized_tf_cnn_runs_in_int8(tmp_path, form, symmetric, int8):
    x = np.random.default_rng(1).standard_normal((2, 32, 32, 3)).astype(np.float32)
    graph_def = freeze(quantized_cnn(form, symmetric), specs_for([x]))
    pb = write_pb(graph_def, tmp_path / "model.pb")
    xml = convert_pb(pb, tmp_path / "mo", compress_to_fp16=True)
    assert_quantized_close(run_ir(xml, [x])[0], frozen_output(graph_def, x), steps=0.01)
    low, total = assert_runs_int8(xml, ovc_ir(pb, tmp_path))
    assert int8 is None or low == total == int8
