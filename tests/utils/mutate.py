"""Seeded mutations of small models, for the fuzz test (tests/e2e/test_fuzz.py).

Each ``*_cases(count, seed, folder)`` writes ``count`` mutated model files into ``folder`` and
returns their paths with a short description of the mutations. The same seed gives the same
files. Mutations work on bytes (flips, truncation) and on the model's own structure (op types,
inputs, attributes, dims, element types, names, domains), as a careless tool or an attacker
would produce them.
"""
from __future__ import annotations

import io
import os
import random
import zipfile

import numpy as np

ONNX_OPS = ["Relu", "Add", "Conv", "Reshape", "Transpose", "Slice", "Concat", "Gather", "Resize", "MatMul", "Softmax",
            "LayerNormalization", "Pad", "Range", "Loop", "If", "Scan", "LSTM", "TopK", "Split", "Squeeze", "Expand",
            "NonMaxSuppression", "Einsum", "ConstantOfShape", "Tile", "Where", "Cast", "CumSum", "BogusOp"]
TF_OPS = ["Relu", "AddV2", "Conv2D", "Reshape", "Transpose", "StridedSlice", "ConcatV2", "GatherV2", "MatMul",
          "Softmax", "Pad", "Range", "While", "If", "Mean", "FusedBatchNormV3", "BiasAdd", "MaxPool", "Squeeze",
          "ExpandDims", "Tile", "Select", "Cast", "Cumsum", "BogusOp"]


def _flip_bytes(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        pos = rng.randrange(len(buf))
        buf[pos] ^= 1 << rng.randrange(8)
    return bytes(buf)


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(1, len(data))]


# ---------------------------------------------------------------------------- ONNX


def onnx_seeds() -> list:
    """Small valid ONNX models covering common layers, control flow and recurrence."""
    from onnx import TensorProto, helper

    from tests.utils.onnx_models import conv_relu_model, make_model
    f = TensorProto.FLOAT
    rng = np.random.default_rng(0)
    mixed = make_model([
        helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
        helper.make_node("Transpose", ["r"], ["t"], name="transpose", perm=[0, 2, 1]),
        helper.make_node("LayerNormalization", ["t", "gamma", "beta"], ["n"], name="norm", axis=-1),
        helper.make_node("MatMul", ["n", "w"], ["m"], name="matmul"),
        helper.make_node("Softmax", ["m"], ["s"], name="softmax", axis=-1),
        helper.make_node("Slice", ["s", "starts", "ends", "axes"], ["sl"], name="slice"),
        helper.make_node("Concat", ["sl", "sl"], ["c"], name="concat", axis=1),
        helper.make_node("Resize", ["c", "", "scales"], ["y"], name="resize", mode="linear"),
    ], [("x", f, [1, 4, 6])], [("y", f, None)], {
        "shape": np.array([1, 6, 4], np.int64), "gamma": np.ones(6, np.float32), "beta": np.zeros(6, np.float32),
        "w": rng.standard_normal((6, 5)).astype(np.float32), "starts": np.array([1], np.int64),
        "ends": np.array([3], np.int64), "axes": np.array([1], np.int64),
        "scales": np.array([1, 1, 2], np.float32)})
    hidden = 5
    lstm_node = helper.make_node("LSTM", ["x", "W", "R", "B"], ["y", "h", "c"], name="lstm", hidden_size=hidden)
    lstm = make_model([lstm_node],
                      [("x", f, [3, 2, 4])], [("y", f, None), ("h", f, None)], {
                          "W": rng.standard_normal((1, 4 * hidden, 4)).astype(np.float32),
                          "R": rng.standard_normal((1, 4 * hidden, hidden)).astype(np.float32),
                          "B": rng.standard_normal((1, 8 * hidden)).astype(np.float32)})
    body = helper.make_graph([helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
                              helper.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
                             [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                              helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                              helper.make_tensor_value_info("acc_in", f, [2])],
                             [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
                              helper.make_tensor_value_info("acc_out", f, [2])])
    then = helper.make_graph([helper.make_node("Relu", ["l"], ["o"])], "then", [],
                             [helper.make_tensor_value_info("o", f, [2])])
    other = helper.make_graph([helper.make_node("Neg", ["l"], ["o2"])], "else", [],
                              [helper.make_tensor_value_info("o2", f, [2])])
    control = make_model([
        helper.make_node("Loop", ["trips", "", "x"], ["l"], name="loop", body=body),
        helper.make_node("ReduceSum", ["l"], ["total"], name="sum", keepdims=0),
        helper.make_node("Greater", ["total", "zero"], ["positive"], name="greater"),
        helper.make_node("If", ["positive"], ["y"], name="if", then_branch=then, else_branch=other),
    ], [("x", f, [2])], [("y", f, None)], {"trips": np.array(3, np.int64), "zero": np.array(0, np.float32)})
    return [conv_relu_model(), mixed, lstm, control]


def _mutate_onnx(rng: random.Random, model) -> str:
    """Apply one structural mutation in place; returns its name."""
    from onnx import AttributeProto, TensorProto, helper
    graph = model.graph
    nodes = list(graph.node)
    kind = rng.choice(["op_type", "drop_input", "bogus_attr", "attr_value", "dims", "elem_type", "dup_output",
                       "domain", "input_shape"])
    node = rng.choice(nodes)
    if kind == "op_type":
        node.op_type = rng.choice(ONNX_OPS)
    elif kind == "drop_input" and node.input:
        i = rng.randrange(len(node.input))
        if rng.random() < 0.5:
            node.input[i] = ""
        else:
            del node.input[i]
    elif kind == "bogus_attr":
        value = rng.choice([rng.randint(-2 ** 40, 2 ** 40), rng.random() * 1e6, "nonsense", [1, -1, 0, 2 ** 31],
                            [0.5, float("nan")]])
        node.attribute.append(helper.make_attribute(rng.choice(["axis", "perm", "mode", "pads", "kernel_shape",
                                                                "hidden_size", "to", "bogus"]), value))
    elif kind == "attr_value" and node.attribute:
        attr = rng.choice(list(node.attribute))
        if attr.type == AttributeProto.INT:
            attr.i = rng.choice([-1, 0, 7, 2 ** 31, -2 ** 40])
        elif attr.type == AttributeProto.INTS:
            attr.ints[:] = [rng.randint(-3, 8) for _ in range(rng.randint(0, 5))]
        elif attr.type == AttributeProto.FLOAT:
            attr.f = rng.choice([float("nan"), -1.0, 1e30])
        elif attr.type == AttributeProto.STRING:
            attr.s = rng.choice([b"", b"bogus", b"\xff\xfe"])
    elif kind == "dims" and graph.initializer:
        init = rng.choice(list(graph.initializer))
        init.dims[:] = [rng.choice([0, 1, 2, 3, 7, 1 << 20]) for _ in range(rng.randint(0, 4))]
    elif kind == "elem_type":
        target = rng.choice(list(graph.input) + list(graph.output))
        target.type.tensor_type.elem_type = rng.choice([TensorProto.INT8, TensorProto.STRING, TensorProto.BOOL,
                                                        TensorProto.DOUBLE, TensorProto.UINT64, 0, 99])
    elif kind == "dup_output" and node.output:
        other = rng.choice(nodes)
        node.output[0] = rng.choice(list(other.input) or ["x"])
    elif kind == "domain":
        node.domain = rng.choice(["com.bogus", "ai.onnx.ml", "ai.onnx.preview.training"])
    elif kind == "input_shape" and graph.input:
        dims = graph.input[0].type.tensor_type.shape.dim
        if dims:
            d = rng.choice(list(dims))
            d.dim_value = rng.choice([0, 1, 5, 1 << 30])
    return kind


def onnx_cases(count: int, seed: int, folder: str) -> list[tuple[str, str]]:
    """``count`` mutated ONNX files in ``folder``: (path, what was mutated)."""
    rng = random.Random(seed)
    seeds = onnx_seeds()
    cases = []
    for n in range(count):
        base = rng.randrange(len(seeds))
        model = type(seeds[base])()
        model.CopyFrom(seeds[base])
        kinds = []
        for _ in range(rng.choice([1, 1, 2])):
            kinds.append(_mutate_onnx(rng, model))
        data = model.SerializeToString()
        roll = rng.random()
        if roll < 0.15:
            data, kinds = _flip_bytes(rng, data), kinds + ["byteflip"]
        elif roll < 0.2:
            data, kinds = _truncate(rng, data), kinds + ["truncate"]
        path = os.path.join(folder, f"onnx_{n:04d}.onnx")
        with open(path, "wb") as f:
            f.write(data)
        cases.append((path, f"seed model {base}: {'+'.join(kinds)}"))
    return cases


# ---------------------------------------------------------------------------- TensorFlow


def tf_seeds() -> list:
    """Frozen GraphDefs of small TensorFlow functions: convolution block, dense + softmax, and a
    while loop."""
    import tensorflow as tf

    from tests.utils.tf_models import freeze, specs_for
    rng = np.random.default_rng(0)
    kernel = tf.constant(rng.standard_normal((3, 3, 3, 4)).astype(np.float32))
    bias = tf.constant(rng.standard_normal(4).astype(np.float32))
    dense = tf.constant(rng.standard_normal((8, 5)).astype(np.float32))

    def conv(x):
        y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, kernel, 1, "SAME"), bias))
        return tf.reduce_mean(tf.nn.max_pool2d(y, 2, 2, "VALID"), axis=[1, 2])

    def mlp(x):
        h = tf.reshape(tf.transpose(x, [0, 2, 1]), [-1, 8])
        return tf.nn.softmax(tf.concat([tf.matmul(h, dense), tf.matmul(h, dense)[:, :2]], axis=1))

    def loop(x):
        return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0 + 1.0), (tf.constant(0), x))[1]

    return [freeze(conv, specs_for([np.zeros((1, 8, 8, 3), np.float32)])),
            freeze(mlp, specs_for([np.zeros((2, 8, 4), np.float32)])),
            freeze(loop, specs_for([np.zeros((2, 3), np.float32)]))]


def _mutate_tf(rng: random.Random, graph_def) -> str:
    nodes = [n for n in graph_def.node if n.op not in ("Placeholder",)]
    node = rng.choice(nodes)
    kind = rng.choice(["op_type", "drop_input", "bogus_attr", "dtype", "shape", "tensor"])
    if kind == "op_type":
        node.op = rng.choice(TF_OPS)
    elif kind == "drop_input" and node.input:
        del node.input[rng.randrange(len(node.input))]
    elif kind == "bogus_attr":
        attr = node.attr[rng.choice(["T", "data_format", "padding", "strides", "axis", "bogus", "Tidx"])]
        choice = rng.randrange(4)
        if choice == 0:
            attr.f = float("nan")
        elif choice == 1:
            attr.s = rng.choice([b"NCHW", b"bogus", b"SAME"])
        elif choice == 2:
            attr.i = rng.choice([-5, 0, 2 ** 40])
        else:
            attr.list.i[:] = [rng.randint(-2, 5) for _ in range(rng.randint(0, 5))]
    elif kind == "dtype":
        for key in ("T", "dtype", "DstT", "Tidx"):
            if key in node.attr:
                node.attr[key].type = rng.choice([0, 7, 20, 21, 23, 99])
                break
    elif kind == "shape":
        placeholders = [n for n in graph_def.node if n.op == "Placeholder"]
        if placeholders and "shape" in placeholders[0].attr:
            for d in placeholders[0].attr["shape"].shape.dim:
                d.size = rng.choice([-1, 0, 1, 5])
    elif kind == "tensor":
        consts = [n for n in graph_def.node if n.op == "Const"]
        if consts:
            t = rng.choice(consts).attr["value"].tensor
            t.tensor_content = t.tensor_content[: len(t.tensor_content) // 2]
    return kind


def tf_cases(count: int, seed: int, folder: str) -> list[tuple[str, str]]:
    """``count`` mutated frozen GraphDefs in ``folder``."""
    rng = random.Random(seed)
    seeds = tf_seeds()
    cases = []
    for n in range(count):
        base = rng.randrange(len(seeds))
        graph_def = type(seeds[base])()
        graph_def.CopyFrom(seeds[base])
        kinds = [_mutate_tf(rng, graph_def) for _ in range(rng.choice([1, 1, 2]))]
        data = graph_def.SerializeToString()
        if rng.random() < 0.15:
            data, kinds = _flip_bytes(rng, data), kinds + ["byteflip"]
        path = os.path.join(folder, f"tf_{n:04d}.pb")
        with open(path, "wb") as f:
            f.write(data)
        cases.append((path, f"seed graph {base}: {'+'.join(kinds)}"))
    return cases


# ---------------------------------------------------------------------------- TorchScript


def torchscript_seeds() -> list[bytes]:
    """TorchScript archives (bytes) of a scripted and a traced small module."""
    import torch

    class Scripted(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(4, 3)

        def forward(self, x):
            y = torch.relu(self.linear(x))
            for _ in range(2):
                y = y * 2.0 + 1.0
            return torch.softmax(y.reshape(-1, 3), dim=-1)

    class Traced(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

        def forward(self, x):
            return torch.nn.functional.max_pool2d(torch.sigmoid(self.conv(x)), 2).flatten(1)

    torch.manual_seed(0)
    archives = []
    for module in (torch.jit.script(Scripted().eval()), torch.jit.trace(Traced().eval(), torch.randn(1, 3, 8, 8))):
        buf = io.BytesIO()
        torch.jit.save(module, buf)
        archives.append(buf.getvalue())
    return archives


TORCHSCRIPT_INPUTS = ["x[2,4]{f32}", "x[1,3,8,8]{f32}"]


def _mutate_archive(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """Mutate one entry of the zip (code text, debug info, constants) and re-zip it."""
    src = zipfile.ZipFile(io.BytesIO(data))
    infos = src.infolist()
    target = rng.choice([i for i in infos if i.filename.endswith((".py", ".debug_pkl", ".pkl"))] or infos)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in infos:
            content = src.read(info.filename)
            if info is target:
                if info.filename.endswith(".py") and rng.random() < 0.5:
                    text = content.decode("utf-8", "replace")
                    for old, new in (("relu", "relux"), ("softmax", "bogus_softmax"), ("2.", "1e400"),
                                     ("range(2)", "range(99999999)")):
                        text = text.replace(old, new, 1) if rng.random() < 0.5 else text
                    content = text.encode()
                else:
                    content = _flip_bytes(rng, content) if content else content
            dst.writestr(info, content)
    return out.getvalue(), f"entry {target.filename.split('/')[-1]}"


def torchscript_cases(count: int, seed: int, folder: str) -> list[tuple[str, str, str]]:
    """``count`` mutated TorchScript archives: (path, description, --input for it)."""
    rng = random.Random(seed)
    seeds = torchscript_seeds()
    cases = []
    for n in range(count):
        base = rng.randrange(len(seeds))
        if rng.random() < 0.2:
            data, what = _flip_bytes(rng, seeds[base]), "byteflip"
        else:
            data, what = _mutate_archive(rng, seeds[base])
        path = os.path.join(folder, f"ts_{n:04d}.pt")
        with open(path, "wb") as f:
            f.write(data)
        cases.append((path, f"seed archive {base}: {what}", TORCHSCRIPT_INPUTS[base]))
    return cases
