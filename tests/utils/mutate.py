"""Seeded mutations of small models, for the fuzz test (tests/e2e/test_fuzz.py).

Each ``*_cases(count, seed, folder)`` writes ``count`` mutated model files into ``folder`` and
returns their paths with a short description of the mutations. The same seed gives the same
files. Mutations work on bytes (flips, truncation) and on the model's own structure (op types,
inputs, attributes, dims, element types, names, domains; the declared shapes, ranks and element
types of the model inputs; output port indices; the inputs and outputs of sub-graph bodies and
the nodes inside them; opsets), as a careless tool or an attacker would produce them.
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
    scan_body = helper.make_graph([helper.make_node("Add", ["sum_in", "next"], ["sum_out"]),
                                   helper.make_node("Identity", ["sum_out"], ["scan_out"])], "scan_body",
                                  [helper.make_tensor_value_info("sum_in", f, [2]),
                                   helper.make_tensor_value_info("next", f, [2])],
                                  [helper.make_tensor_value_info("sum_out", f, [2]),
                                   helper.make_tensor_value_info("scan_out", f, [2])])
    scan = make_model([helper.make_node("Scan", ["initial", "x"], ["y", "z"], name="scan", num_scan_inputs=1,
                                        body=scan_body)],
                      [("initial", f, [2]), ("x", f, [3, 2])], [("y", f, [2]), ("z", f, [3, 2])], opset=11)
    # weights, target shapes and scales that come in as model inputs: their declared shapes,
    # ranks and types decide what the ops see
    fed = make_model([
        helper.make_node("Conv", ["x", "W"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Reshape", ["c", "shape"], ["r"], name="reshape"),
        helper.make_node("Resize", ["r", "", "scales"], ["y"], name="resize", mode="nearest"),
        helper.make_node("Range", ["start", "limit", "delta"], ["steps"], name="range"),
    ], [("x", f, [1, 1, 5, 5]), ("W", f, [2, 1, 3, 3]), ("shape", TensorProto.INT64, [4]),
        ("scales", f, [4]), ("start", f, []), ("limit", f, []), ("delta", f, [])],
        [("y", f, None), ("steps", f, None)], opset=13)
    return [conv_relu_model(), mixed, lstm, control, scan, fed]


# declared dimensions and element types a mutated model input may get
INPUT_DIMS = [0, 1, 5, 1 << 30, 2 ** 31, 2 ** 62, 2 ** 63 - 1, -1, -5]
INPUT_TYPES = list(range(1, 29))


def _mutate_input_shape(rng: random.Random, value_info) -> None:
    """One declared dim of a model input changed, or a symbolic one."""
    dims = value_info.type.tensor_type.shape.dim
    if dims:
        d = rng.choice(list(dims))
        if rng.random() < 0.15:
            d.dim_param = "N"
        else:
            d.dim_value = rng.choice(INPUT_DIMS)


def _mutate_input_rank(rng: random.Random, value_info) -> None:
    """The declared rank of a model input changed: no shape at all, a scalar, a dim more or less,
    or one long dim."""
    tt = value_info.type.tensor_type
    choice = rng.randrange(5)
    if choice == 0:
        tt.ClearField("shape")
    elif choice == 1:
        del tt.shape.dim[:]
    elif choice == 2:
        tt.shape.dim.add().dim_value = rng.choice([1, 2, 3])
    elif choice == 3 and tt.shape.dim:
        del tt.shape.dim[rng.randrange(len(tt.shape.dim))]
    else:
        del tt.shape.dim[:]
        tt.shape.dim.add().dim_value = rng.choice([1, 4, 1 << 30, 2 ** 31])


def _mutate_subgraph(rng: random.Random, graph) -> str:
    """A body of an If/Loop/Scan node loses or gains an input or output, or one of its nodes is
    mutated as a main-graph node would be."""
    bodies = [a.g for n in graph.node for a in n.attribute if a.type == a.GRAPH]
    if not bodies:
        return "subgraph(none)"
    body = rng.choice(bodies)
    choice = rng.randrange(5)
    if choice == 0 and body.output:
        del body.output[rng.randrange(len(body.output))]
    elif choice == 1 and body.input:
        del body.input[rng.randrange(len(body.input))]
    elif choice == 2 and body.output:
        body.output.append(body.output[rng.randrange(len(body.output))])
    elif choice == 3 and body.input:
        body.input.append(body.input[rng.randrange(len(body.input))])
    elif body.node:
        node = rng.choice(list(body.node))
        if rng.random() < 0.5:
            node.op_type = rng.choice(ONNX_OPS)
        elif node.input:
            del node.input[rng.randrange(len(node.input))]
    return "subgraph"


def _mutate_onnx(rng: random.Random, model) -> str:
    """Apply one structural mutation in place; returns its name."""
    from onnx import AttributeProto, TensorProto, helper
    graph = model.graph
    nodes = list(graph.node)
    kind = rng.choice(["op_type", "drop_input", "bogus_attr", "attr_value", "dims", "elem_type", "dup_output",
                       "domain", "input_shape", "input_rank", "input_dtype", "subgraph", "opset", "name_chars"])
    node = rng.choice(nodes)
    inputs = [i for i in graph.input if i.name not in {t.name for t in graph.initializer}]
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
    elif kind == "input_shape" and inputs:
        _mutate_input_shape(rng, rng.choice(inputs))
    elif kind == "input_rank" and inputs:
        _mutate_input_rank(rng, rng.choice(inputs))
    elif kind == "input_dtype" and inputs:
        rng.choice(inputs).type.tensor_type.elem_type = rng.choice(INPUT_TYPES)
    elif kind == "subgraph":
        return _mutate_subgraph(rng, graph)
    elif kind == "opset":
        if rng.random() < 0.5:
            model.opset_import[0].version = rng.choice([0, 1, 7, 9, 11, 13, 18, 21])
        else:
            model.opset_import.add(domain="com.bogus", version=rng.choice([1, 9999]))
    elif kind == "name_chars":
        node.name = rng.choice(['a"b<c>&d', "x'y", "", "a\nb", "/".join(["n"] * 40)])
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
    kind = rng.choice(["op_type", "drop_input", "bogus_attr", "dtype", "shape", "tensor", "port_index", "input_rank",
                       "input_dtype"])
    placeholders = [n for n in graph_def.node if n.op == "Placeholder"]
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
        if placeholders and "shape" in placeholders[0].attr:
            for d in placeholders[0].attr["shape"].shape.dim:
                d.size = rng.choice([-1, 0, 1, 5] + INPUT_DIMS)
    elif kind == "port_index" and node.input:
        i = rng.randrange(len(node.input))
        if not node.input[i].startswith("^"):
            node.input[i] = node.input[i].split(":")[0] + f":{rng.choice([1, 2, 99])}"
    elif kind == "input_rank" and placeholders:
        shape = rng.choice(placeholders).attr["shape"].shape
        choice = rng.randrange(4)
        if choice == 0:
            del shape.dim[:]
            shape.unknown_rank = True
        elif choice == 1:
            del shape.dim[:]
        elif choice == 2:
            shape.dim.add().size = rng.choice([1, 3])
        elif shape.dim:
            del shape.dim[rng.randrange(len(shape.dim))]
    elif kind == "input_dtype" and placeholders:
        rng.choice(placeholders).attr["dtype"].type = rng.choice([1, 2, 3, 4, 5, 6, 9, 10, 14, 17, 19, 22, 23])
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
