"""The command line: conversion, options, and the error contract (one message, exit 1, no
traceback unless --log_level DEBUG, no files left behind)."""
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest

from tests.utils.onnx_models import conv_relu_model, make_model, run_onnxruntime
from tests.utils.runtime import assert_close, run_ir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_mo(*args, cwd=None):
    return subprocess.run([sys.executable, os.path.join(ROOT, "mo.py"), *args], capture_output=True, text=True,
                          cwd=cwd)


@pytest.fixture
def model_path(tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(conv_relu_model(), str(path))
    return str(path)


def test_cli_converts_and_runtime_matches_onnxruntime(model_path, tmp_path):
    out = tmp_path / "out"
    r = run_mo("--input_model", model_path, "--output_dir", str(out), "--compress_to_fp16=False")
    assert r.returncode == 0, r.stderr
    assert (out / "model.xml").exists() and (out / "model.bin").exists()
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    assert_close(run_ir(str(out / "model.xml"), [x]), run_onnxruntime(model_path, [x]))


def test_version_help_and_list_transforms():
    assert run_mo("--version").stdout.startswith("mo ")
    assert "--input_model" in run_mo("--help").stdout
    listing = run_mo("--list_transforms")
    assert listing.returncode == 0 and "FrontStart" in listing.stdout and "ConstantFolding" in listing.stdout


def _assert_clean_failure(result, out_dir, *fragments):
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.count("[ ERROR ]") == 1
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr
    assert not os.path.exists(out_dir) or os.listdir(out_dir) == []


def test_truncated_file(model_path, tmp_path):
    data = open(model_path, "rb").read()
    bad = tmp_path / "truncated.onnx"
    bad.write_bytes(data[: len(data) // 2])
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", str(bad), "--output_dir", str(out)), out, "truncated.onnx")


def test_not_an_onnx_file(tmp_path):
    bad = tmp_path / "notes.onnx"
    bad.write_text("this is not a model\n" * 10)
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", str(bad), "--output_dir", str(out)), out, "notes.onnx")


def test_missing_file(tmp_path):
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", str(tmp_path / "nope.onnx"), "--output_dir", str(out)), out,
                          "does not exist")


def test_unknown_ops_are_listed_together(tmp_path):
    from onnx import TensorProto, helper
    nodes = [helper.make_node("FancyOp", ["x"], ["a"], name="fancy1"),
             helper.make_node("OtherOp", ["a"], ["b"], name="other1"),
             helper.make_node("FancyOp", ["b"], ["y"], name="fancy2", domain="")]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [1])], [("y", TensorProto.FLOAT, [1])])
    model.opset_import[0].version = 17
    path = tmp_path / "unknown.onnx"
    onnx.save(model, str(path))
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", str(path), "--output_dir", str(out)), out,
                          "FancyOp: fancy1, fancy2", "OtherOp: other1", "2 ONNX operation types")


def test_malformed_input_option(model_path, tmp_path):
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", model_path, "--output_dir", str(out), "--input", "x[1,3,8"),
                          out, "--input")


def test_a_command_line_error_is_one_line_and_points_to_help(model_path, tmp_path):
    r = run_mo(model_path, "--no_such_option", "-o", str(tmp_path))
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.splitlines() == ["[ ERROR ] unrecognized arguments: --no_such_option",
                                     "See mo --help for the options."]


@pytest.mark.parametrize("layout", ["x(nchw->nhwc)x", "x(nchw) junk(", "x(nchw)(nhwc)y"])
def test_malformed_layout_is_refused(model_path, tmp_path, layout):
    out = tmp_path / "out"
    _assert_clean_failure(run_mo(model_path, "-o", str(out), "--layout", layout), out, "Malformed --layout",
                          f"'{layout}'")


def test_shape_of_wrong_rank(model_path, tmp_path):
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", model_path, "--output_dir", str(out), "--input", "x[1,3,8]"),
                          out, "rank 3", "x")


def test_shape_that_contradicts_the_model(model_path, tmp_path):
    out = tmp_path / "out"
    r = run_mo("--input_model", model_path, "--output_dir", str(out), "--input", "x[1,5,8,8]")
    _assert_clean_failure(r, out, "conv", "channels")


def test_unknown_input_name(model_path, tmp_path):
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", model_path, "--output_dir", str(out), "--input", "nope[1]"),
                          out, "nope")


def test_debug_log_shows_traceback(tmp_path):
    r = run_mo("--input_model", str(tmp_path / "nope.onnx"), "--log_level", "DEBUG")
    assert r.returncode == 1 and "Traceback" in r.stderr
