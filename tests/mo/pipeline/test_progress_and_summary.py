"""--progress (a redrawn bar on a terminal, checked on a pseudo-terminal; plain lines otherwise)
and the logging contract: warnings show by default, --log_level INFO / --verbose / the API's
log_level= print a summary of the IR after conversion."""
import logging
import os
import pty
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from mo import convert_model
from tests.e2e.test_cli import ROOT, run_mo
from tests.utils.onnx_models import make_model

WARNING_EXTENSION = '''
import logging

from mo.front.translator import translator


@translator("onnx", "Relu")
def relu_with_warning(node, b):
    logging.getLogger("mo").warning("relu translated by the test extension")
    return [b.ReLU(node.in_port(0).get_source())]
'''


@pytest.fixture
def big_model(tmp_path):
    """x[1,512] @ w[512,4096]: 8 MiB of weights."""
    w = np.random.default_rng(0).standard_normal((512, 4096)).astype(np.float32)
    model = make_model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
                       [("x", TensorProto.FLOAT, [1, 512])], [("y", TensorProto.FLOAT, None)], {"w": w})
    path = tmp_path / "big.onnx"
    onnx.save(model, str(path))
    return str(path)


def run_on_pty(*args):
    """Run mo with stderr on a pseudo-terminal; returns (status, stdout, what the terminal got)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "mo.py"), *args], stdout=subprocess.PIPE,
                            stderr=slave, text=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:          # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read()
    status = proc.wait()
    os.close(master)
    return status, out, b"".join(chunks).decode()


def test_progress_bar_on_a_terminal(big_model, tmp_path):
    status, out, terminal = run_on_pty(big_model, "-o", str(tmp_path / "ir"), "--progress")
    assert status == 0 and "[ SUCCESS ] XML file" in out
    assert "\r[" in terminal and "[ PROGRESS ]" not in terminal
    assert "1/7 load" in terminal and "5/7 middle" in terminal and "7/7 emit" in terminal
    assert "/8.0 MB" in terminal or "/4.0 MB" in terminal            # bytes of the weights written
    assert f"[{'#' * 24}] 7/7 done" in terminal and terminal.rstrip().endswith("s")


def test_progress_plain_lines_elsewhere(big_model, tmp_path):
    r = run_mo(big_model, "-o", str(tmp_path / "ir"), "--progress", "--compress_to_fp16=False")
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("[ PROGRESS ]")]
    assert lines[0].startswith("[ PROGRESS ] 1/7 load (onnx model, 8.0 MB)")
    assert any("5/7 middle (" in line and "passes)" in line for line in lines)
    assert any("8.0 MB of 8.0 MB written" in line for line in lines)
    assert lines[-1].startswith("[ PROGRESS ] done in") and "\r" not in r.stderr


def test_stream_output_gives_plain_lines_on_a_terminal(model_path, tmp_path):
    status, _, terminal = run_on_pty(model_path, "-o", str(tmp_path / "ir"), "--progress", "--stream_output")
    assert status == 0 and "[ PROGRESS ] 1/7 load" in terminal and "\r[" not in terminal


def test_no_progress_without_the_option(model_path, tmp_path):
    status, _, terminal = run_on_pty(model_path, "-o", str(tmp_path / "ir"))
    assert status == 0 and terminal == ""


def test_warnings_show_by_default(model_path, tmp_path):
    ext = tmp_path / "ext"
    ext.mkdir()
    (ext / "warn.py").write_text(WARNING_EXTENSION)
    r = run_mo(model_path, "-o", str(tmp_path / "ir"), "--extensions", str(ext))
    assert r.returncode == 0 and "[ WARNING ] relu translated by the test extension" in r.stderr
    assert "[ INFO ]" not in r.stderr + r.stdout
    quiet = run_mo(model_path, "-o", str(tmp_path / "ir"), "--extensions", str(ext), "--log_level", "ERROR")
    assert quiet.returncode == 0 and "WARNING" not in quiet.stderr


@pytest.mark.parametrize("flags", [("--log_level", "INFO"), ("--verbose",)])
def test_info_prints_a_summary(model_path, tmp_path, flags):
    r = run_mo(model_path, "-o", str(tmp_path / "ir"), *flags)
    assert r.returncode == 0, r.stderr
    assert "[ INFO ] Inputs: x [?,3,8,8] f32" in r.stderr
    assert "[ INFO ] Outputs: y [?,4,8,8] f32; z [?,4,8,8] f32" in r.stderr
    assert "Convolution 1" in r.stderr and "ReLU 1" in r.stderr and "Sigmoid 1" in r.stderr
    assert "1 constant (216 B) compressed to fp16" in r.stderr
    assert "Rewrites that changed the graph: " in r.stderr and "CompressWeightsToFP16" in r.stderr
    kept = run_mo(model_path, "-o", str(tmp_path / "ir"), *flags, "--compress_to_fp16=False")
    assert "not compressed (float32 weights kept)" in kept.stderr


def test_api_log_level_logs_the_summary_and_restores_the_logger(model_path, caplog):
    logger = logging.getLogger("mo")
    level = logger.level
    caplog.handler.setLevel(logging.DEBUG)
    ir = convert_model(model_path, log_level="INFO")
    assert "Inputs: x [?,3,8,8] f32" in caplog.messages and logger.level == level
    assert ir.summary.op_counts["Convolution"] == 1 and ir.summary.compressed == 0    # in memory: f32 kept
    caplog.clear()
    convert_model(model_path)
    assert not any(m.startswith("Inputs:") for m in caplog.messages)


def test_api_log_level_prints_without_a_logging_setup(model_path):
    code = f"from mo import convert_model; convert_model({model_path!r}, verbose=True)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "[ INFO ] Inputs: x [?,3,8,8] f32" in r.stderr, r.stderr


def test_progress_counts_the_bytes_of_a_graph_def_read(tmp_path):
    import tensorflow as tf

    from tests.utils.tf_models import freeze, specs_for, write_pb
    w = np.random.default_rng(0).standard_normal((512, 4096)).astype(np.float32)
    path = write_pb(freeze(lambda x: tf.matmul(x, tf.constant(w)), specs_for([np.zeros((1, 512), np.float32)])),
                    tmp_path / "big.pb")
    r = run_mo(path, "-o", str(tmp_path / "ir"), "--progress")
    assert r.returncode == 0, r.stderr
    assert any(line.startswith("[ PROGRESS ] 1/7 load: 8.0 MB of 8.0 MB read") for line in r.stderr.splitlines())
