"""TorchScript decoder: the graph of a ScriptModule's ``forward`` as an op-form Graph.

The forward graph is copied and inlined (calls of submodules become their bodies). ``prim::``
nodes are resolved while decoding: constants, attribute reads of the module (parameters and
buffers become Consts sharing the tensors' memory), list/tuple/dict construction, unpacking and
item writes, ``prim::If`` on a condition known at load time, loops with a known trip count
(unrolled); Python arithmetic on constants is computed. Every other node becomes one graph node
(see ``builder.TorchGraphBuilder.call``).

Control flow on values the model computes becomes sub-graph ops: ``prim::If`` an If whose bodies
are the two branches, ``prim::Loop`` a Loop over its block. A body is decoded by a decoder of its
own over a body graph (``_BodyEnv``): a value of the enclosing code it reads enters as a body
Parameter, one it writes in place comes back as an output (a carried value of the Loop).

List, tuple and dict inputs become one Parameter per tensor of the example (``xs_0``, ``d_key``),
and ``out=`` arguments are bound to the results of the functional op.
"""
from __future__ import annotations

import logging
import math
import operator
import re
from typing import Any

from extensions.load.pytorch.builder import TorchGraphBuilder, split_inplace
from extensions.load.pytorch.schema import from_schema_text, synthetic
from extensions.load.pytorch.types import complex_parts_type, element_type_of_dtype, is_number, is_torch_file
from mo.errors import InputModelError
from mo.graph.port import Port

log = logging.getLogger("mo")

# Python operations on constants that the decoder computes instead of adding nodes
_CONST_FOLD = {
    "aten::add": operator.add, "aten::sub": operator.sub, "aten::mul": operator.mul,
    "aten::floordiv": operator.floordiv, "aten::remainder": operator.mod, "aten::neg": operator.neg,
    "aten::eq": operator.eq, "aten::ne": operator.ne, "aten::lt": operator.lt, "aten::le": operator.le,
    "aten::gt": operator.gt, "aten::ge": operator.ge, "aten::__not__": operator.not_,
    "aten::__and__": operator.and_, "aten::__or__": operator.or_, "aten::Int": int, "aten::Float": float,
    "aten::Bool": bool, "aten::len": len, "aten::__is__": operator.is_, "aten::__isnot__": operator.is_not,
    "aten::div": operator.truediv, "aten::ScalarImplicit": lambda x: x, "prim::min": min, "prim::max": max,
    "aten::floor": math.floor, "aten::ceil": math.ceil, "aten::sqrt": math.sqrt,
    "aten::__contains__": lambda seq, item: item in seq, "aten::list": list, "aten::str": str,
    "aten::format": lambda text, *args: text.format(*args), "aten::__xor__": operator.xor,
    "aten::__lshift__": operator.lshift, "aten::__rshift__": operator.rshift,
    "aten::__derive_index": lambda index, start, step: start + index * step,
    "aten::__range_length": lambda lo, hi, step: len(range(lo, hi, step)),
}
# operations that return their input (dropout at inference) or an alias of it
_ALIASES = frozenset({"aten::detach", "prim::unchecked_cast", "aten::contiguous", "aten::dropout",
                      "aten::feature_dropout", "aten::alpha_dropout"})
# operations that return a copy of their input value
_COPIES = frozenset({"prim::NumToTensor", "aten::clone", "aten::lift_fresh", "aten::lift_fresh_copy"})
# questions about where and how a tensor lives, whose answer at inference is known: CPU, no
# gradients, no nested / sparse / quantized tensors, no autocast
_KNOWN = {"prim::device": "cpu", "prim::is_cuda": False, "prim::is_nested": False, "prim::requires_grad": False,
          "aten::is_grad_enabled": False, "prim::is_sparse": False, "prim::is_mkldnn": False,
          "prim::is_quantized": False, "prim::is_meta": False, "prim::is_xpu": False, "prim::is_mps": False,
          "aten::is_autocast_enabled": False, "aten::is_autocast_cpu_enabled": False, "prim::layout": 0,
          "aten::_get_tracing_state": False, "aten::is_scripting": True, "prim::is_vulkan": False,
          "aten::is_inference_mode_enabled": True}
# writes into a Python list or dict value (the index or key known)
_CONTAINER_WRITES = frozenset({"aten::append", "aten::extend", "aten::insert", "aten::_set_item"})
# nodes without an effect on the computed values
_IGNORED = frozenset({"prim::RaiseException", "aten::warn", "prim::Print", "aten::_assert_int_or_pair",
                      "prim::SetAttr"})


# A scripted loop is unrolled while it is decoded; past this many iterations it is refused (a
# `while True` loop has trip count INT64_MAX and would never finish).
MAX_UNROLLED_ITERATIONS = 4096
_ENDLESS = 2 ** 63 - 1     # the trip count TorchScript gives a `while` loop


def source_of(node) -> str | None:
    """'file.py:line' of a TorchScript node: the innermost frame outside torch itself, else the
    location the graph printer shows; None when the archive's debug information is damaged."""
    damaged = (RuntimeError, UnicodeDecodeError, MemoryError)    # torch reads damaged debug info lazily
    try:
        text = node.sourceRange()
    except damaged:
        return None
    frames = re.findall(r"^(.+?)\((\d+)\): ", text, flags=re.M)
    for path, line in frames:
        if not is_torch_file(path):
            return f"{path}:{line}"
    try:     # printing the node costs more than its source range: only when that has no answer
        printed = str(node).splitlines()[0].split(" # ", 1)
    except damaged:
        return None
    if len(printed) == 2 and printed[1].strip() not in ("", ":0:0"):
        return printed[1].strip().rsplit(":", 1)[0]
    return f"{frames[0][0]}:{frames[0][1]}" if frames else None


def _clean_name(debug_name: str) -> str:
    """'x.1' -> 'x' (TorchScript numbers repeated names); plain numbers stay as they are."""
    base = re.sub(r"\.\d+$", "", debug_name)
    return base or debug_name


def _tensor_info(value) -> tuple[tuple | None, str | None]:
    """(shape, element type) of a graph input whose TorchScript type carries them (traced in
    this process), else (None, None)."""
    import torch
    t = value.type()
    if not isinstance(t, torch._C.TensorType):
        return None, None
    sizes = t.varyingSizes() if t.dim() is not None else None
    shape = None if sizes is None else tuple(-1 if d is None else int(d) for d in sizes)
    dtype = t.dtype()
    return shape, (complex_parts_type(dtype) or element_type_of_dtype(dtype) if dtype is not None else None)


class TorchScriptDecoder:
    """Decodes one ScriptModule (or scripted function); ``examples`` are (name, tensor) pairs of
    the inputs it was traced with, which give the inputs' shapes and types."""

    def __init__(self, builder: TorchGraphBuilder, module, examples: list | None = None):
        self.b = builder
        self.module = module
        self.examples = examples or []

    def decode(self) -> None:
        import torch
        method, graph = forward_graph(self.module)
        inputs = list(graph.inputs())
        if inputs and not isinstance(inputs[0].type(), torch._C.TensorType) and method is not None:
            self.b.env[inputs[0].unique()] = self.module
            inputs = inputs[1:]
        defaults = _defaults(method, len(inputs))
        by_name = dict(self.examples)
        for i, value in enumerate(inputs):
            name = _clean_name(value.debugName())
            shape, et = _tensor_info(value)
            example = by_name.get(name, self.examples[i][1] if i < len(self.examples) else None)
            if example is None and defaults[i] is None and str(value.type()).startswith("Optional"):
                self.b.env[value.unique()] = None    # an optional input left out stays None
                continue
            if isinstance(value.type(), (torch._C.ListType, torch._C.TupleType, torch._C.DictType)):
                self.b.env[value.unique()] = self._structured_input(name, value.type(), example)
                continue
            parts = complex_parts_type(example.dtype if hasattr(example, "dtype") else
                                       getattr(value.type(), "dtype", lambda: None)())
            if hasattr(example, "shape") and hasattr(example, "dtype"):
                shape, et = tuple(int(d) for d in example.shape), parts or element_type_of_dtype(example.dtype)
            port = self.b.parameter(name, shape, et or "f32", complex_=bool(parts))
            if et is None:
                port.node["element_type_unknown"] = True    # f32 unless --input says otherwise
            self.b.env[value.unique()] = port
        self.decode_block(graph)
        flat = []
        for value in graph.outputs():
            _flatten(self.b.env[value.unique()], _clean_name(value.debugName()), flat)
        if not flat:
            raise InputModelError("The TorchScript model has no tensor outputs.")
        for name, item in flat:
            self.b.result(self.b.as_port(item), name)

    def _structured_input(self, name: str, value_type, example):
        """A list / tuple / dict input: one Parameter per tensor of the example, named like
        torch.export names them (``xs_0``, ``d_key``)."""
        import torch
        if isinstance(example, dict) and isinstance(value_type, torch._C.DictType):
            return {key: self._structured_input(f"{name}_{key}", value_type.getValueType(), item)
                    for key, item in example.items()}
        if isinstance(example, (list, tuple)) and not isinstance(value_type, torch._C.DictType):
            if isinstance(value_type, torch._C.TupleType):
                types = value_type.elements()
            else:
                types = [value_type.getElementType()] * len(example)
            if len(types) != len(example):
                raise InputModelError(f"Input '{name}' is a tuple of {len(types)} values, but example_input gives "
                                      f"{len(example)}.")
            items = [self._structured_input(f"{name}_{i}", t, item) for i, (t, item) in enumerate(zip(types, example))]
            return tuple(items) if isinstance(value_type, torch._C.TupleType) else items
        if hasattr(example, "shape") and hasattr(example, "dtype") and isinstance(value_type, torch._C.TensorType):
            return self.b.parameter(name, tuple(int(d) for d in example.shape), element_type_of_dtype(example.dtype))
        if isinstance(example, (bool, int, float)) and not isinstance(value_type, torch._C.TensorType):
            return example      # a number the model is called with: a constant of the conversion
        raise InputModelError(f"Input '{name}' is a {value_type} value: give it (a dict, list or tuple of tensors) in "
                              f"example_input, so that its structure and shapes are known.")

    def decode_block(self, block) -> None:
        for node in block.nodes():
            self.decode_node(node)

    def value(self, v) -> Any:
        return self.b.env[v.unique()]

    def decode_node(self, node) -> None:
        kind = node.kind()
        outs = list(node.outputs())
        env = self.b.env
        if kind == "prim::Constant":
            value = outs[0].toIValue() if outs else None
            if _is_tensor_like(value) and value.dim() == 0 and not value.is_complex():
                value = value.item()    # a Python number the tracer recorded as a 0-d tensor
            env[outs[0].unique()] = value
            return
        if kind in _IGNORED:
            return
        if kind in _KNOWN:
            env[outs[0].unique()] = _KNOWN[kind]
            return
        ins = [self.value(v) for v in node.inputs()]
        if kind == "prim::GetAttr":
            obj = ins[0]
            attr = node.s("name")
            env[outs[0].unique()] = False if attr == "training" else getattr(obj, attr)
            return
        if kind in ("prim::ListConstruct", "prim::TupleConstruct"):
            env[outs[0].unique()] = list(ins) if kind == "prim::ListConstruct" else tuple(ins)
            return
        if kind == "prim::DictConstruct":
            env[outs[0].unique()] = {ins[i]: ins[i + 1] for i in range(0, len(ins), 2)}
            return
        if kind in ("prim::ListUnpack", "prim::TupleUnpack"):
            self._unpack(node, ins[0], outs)
            return
        if (kind in _ALIASES or kind in _COPIES) and not isinstance(ins[0], (list, tuple)):
            env[outs[0].unique()] = ins[0]
            if kind in _ALIASES and isinstance(ins[0], Port):   # in-place writes to it reach the input
                self.b.record_view(outs[0].unique(), node.inputsAt(0).unique(), "aten::alias", [])
            return
        if kind in ("prim::TupleIndex", "aten::__getitem__") and isinstance(ins[0], (list, tuple, dict)):
            env[outs[0].unique()] = ins[0][ins[1]] if not isinstance(ins[1], Port) else self._dynamic_index(node)
            return
        if kind == "aten::list" and isinstance(ins[0], (list, tuple)):
            env[outs[0].unique()] = list(ins[0])      # a copy: later item assignments leave the source alone
            return
        if kind in _CONTAINER_WRITES and isinstance(ins[0], (list, dict)) and _is_constant(ins[1:-1]):
            self._container_write(node, kind, ins, outs)    # the Python list / dict itself changes
            return
        if kind == "aten::_set_item":
            self._set_item(node, ins, outs)
            return
        if kind == "aten::wait" and not isinstance(ins[0], Port):
            env[outs[0].unique()] = ins[0]      # the result of a forked call decoded in place
            return
        if kind == "prim::fork":
            self._fork(node, ins, outs)
            return
        if kind == "prim::If":
            self._if(node, ins[0], outs)
            return
        if kind == "prim::Loop":
            self._loop(node, ins[0], ins[1], ins[2:], outs)
            return
        if kind in ("aten::__range_length", "aten::__derive_index") and not all(_is_constant(v) for v in ins):
            env[outs[0].unique()] = self._range_arithmetic(node, kind, ins)
            return
        if kind == "aten::dim" and isinstance(ins[0], Port) and ins[0].node.get("op") == "Parameter" \
                and ins[0].node.get("shape") is not None:
            env[outs[0].unique()] = len(ins[0].node.shape)    # the rank of a model input is known
            return
        if kind in ("aten::__is__", "aten::__isnot__") and None in ins and any(isinstance(v, Port) for v in ins):
            env[outs[0].unique()] = kind == "aten::__isnot__"   # a value the model computes is never None
            return
        if kind in ("prim::max", "prim::min") and len(ins) == 1 and isinstance(ins[0], (list, tuple)) \
                and not _is_constant(ins[0]):
            env[outs[0].unique()] = self._list_extreme(node, kind, ins[0])
            return
        if kind in _CONST_FOLD and all(_is_constant(v) and not _is_tensor_like(v) for v in ins):
            try:
                env[outs[0].unique()] = _CONST_FOLD[kind](*ins)
                return
            except (TypeError, ValueError, ZeroDivisionError):
                pass    # not Python values after all: a node computes it
        self._call(node, kind, ins, outs)

    def _call(self, node, kind, ins, outs) -> None:
        base_kind, inplace = split_inplace(kind)
        schema = node.schema()
        specs = from_schema_text(schema) if schema != "(no schema)" else \
            synthetic(*[f"Tensor arg{i}" for i in range(len(ins))])
        name = _clean_name(outs[0].debugName()) if outs else base_kind
        list_output = len(outs) == 1 and str(outs[0].type()).startswith("List[Tensor]")
        count = self._list_length(node, outs[0]) if list_output else len(outs)
        targets = _out_arguments(schema, specs) if not inplace else []
        if targets:     # `out=` tensors: the functional op, its results then written to them
            specs = tuple(s for i, s in enumerate(specs) if i not in targets)
            ins = [v for i, v in enumerate(ins) if i not in targets]
        created = self.b.call(base_kind, specs, ins, count, name, source_of(node))
        if targets:
            self._write_outs(node, created, targets)
            return
        if list_output:
            self.b.env[outs[0].unique()] = [created.out_port(i) for i in range(count)]
        else:
            for i, out in enumerate(outs):
                port = created.out_port(i)
                port.add_tensor_names([out.debugName()])
                self.b.env[out.unique()] = port
        if inplace and node.inputsAt(0).type().kind() == "TensorType":
            self.b.assign(node.inputsAt(0).unique(), created.out_port(0), source_of(node))
        if outs and len(ins) and isinstance(ins[0], Port):
            self.b.record_view(outs[0].unique(), node.inputsAt(0).unique(),
                               "aten::alias" if inplace else base_kind, ins)

    def _write_outs(self, node, created, targets: list[int]) -> None:
        """Bind the results of an op called with ``out=`` tensors to those tensors (in their
        types, as PyTorch casts into them) and to the op's own outputs."""
        type_as = synthetic("Tensor self", "Tensor other")
        for i, (target, out) in enumerate(zip(targets, node.outputs())):
            old = self.value(node.inputsAt(target))
            port = created.out_port(i)
            if isinstance(old, Port):
                port = self.b.call("aten::type_as", type_as, [port, old], 1, f"{created.name}/out{i}",
                                   source_of(node)).out_port(0)
            self.b.assign(node.inputsAt(target).unique(), port, source_of(node))
            self.b.env[out.unique()] = port

    def _list_length(self, node, out) -> int:
        """Number of tensors a list-returning operation gives, from how the list is used."""
        lengths = []
        for use in out.uses():
            user = use.user
            if user.kind() == "prim::ListUnpack":
                return len(list(user.outputs()))
            if user.kind() == "aten::__getitem__":
                idx = user.inputsAt(1)
                if idx.node().kind() == "prim::Constant":
                    lengths.append(int(idx.toIValue()) + 1)
        kind = node.kind()
        args = [self.value(v) for v in node.inputs()]
        if kind == "aten::chunk" and is_number(args[1]):
            return int(args[1])
        if kind in ("aten::split_with_sizes", "aten::split") and isinstance(args[1], (list, tuple)):
            return len(args[1])
        if kind == "aten::where" and len(args) == 1 and isinstance(args[0], Port) \
                and args[0].node.get("op") == "Parameter" and args[0].node.get("shape") is not None:
            return max(len(args[0].node.shape), 1)      # where(condition) of a model input: one tensor per dim
        if lengths and all(x >= 0 for x in lengths):
            return max(lengths)
        raise InputModelError(f"Cannot tell how many tensors '{kind}' at {source_of(node)} returns; only lists "
                              f"that are unpacked or indexed by constants are supported.")

    def _unpack(self, node, seq, outs) -> None:
        if isinstance(seq, (list, tuple)):
            if len(seq) != len(outs):
                raise InputModelError(f"Unpacking {len(seq)} values into {len(outs)} at {source_of(node)}.")
            for out, item in zip(outs, seq):
                self.b.env[out.unique()] = item
            return
        # a list of ints computed in the graph (a 1-D tensor): one element each
        specs = synthetic("List[int] list", "int idx")
        for i, out in enumerate(outs):
            created = self.b.call("aten::__getitem__", specs, [seq, i], 1, _clean_name(out.debugName()),
                                  source_of(node))
            self.b.env[out.unique()] = created.out_port(0)

    def _body_builder(self) -> tuple[TorchGraphBuilder, _BodyEnv]:
        """A builder over a new body graph whose values fall back to this graph's."""
        from extensions.ops.control_flow import new_body
        builder = TorchGraphBuilder(self.b.graph.context)
        builder.graph = new_body(self.b.graph)
        builder.env = env = _BodyEnv(self.b.env, builder)
        builder._views = self.b._views      # a write into a view reaches its base, also across bodies
        return builder, env

    def _body_results(self, builder, values: list, name: str, what: str) -> list:
        """Result nodes of a body for the block output ``values`` (tensors or numbers)."""
        results = []
        for i, (value, item) in enumerate(values):
            if not isinstance(item, Port) and not is_number(item) and not _is_tensor_like(item):
                raise InputModelError(f"{what} gives a {type(item).__name__} ({value.type()}); only tensors and "
                                      f"numbers are supported there.")
            port = builder.as_port(item)
            results.append(builder.registry.op("Result").create(builder.graph, [port], name=f"{name}/result_{i}"))
        return results

    def _branch(self, block, name: str):
        """A branch block decoded into a body graph: (builder, env, result nodes)."""
        builder, env = self._body_builder()
        TorchScriptDecoder(builder, self.module).decode_block(block)
        values = [(v, env[v.unique()]) for v in block.outputs()]
        results = self._body_results(builder, values, name, "A branch of an `if` on a value the model computes")
        return builder, env, results

    def _runtime_loop(self, node, trip, cond, carried: list, outs) -> None:
        """A Loop: the block is the body, with the iteration number and the carried values as
        Parameters (each carried result keeps its initial value's type); tensors of the
        enclosing graph enter as further inputs."""
        from extensions.ops.control_flow import port_entry
        block = next(iter(node.blocks()))
        params, block_outs = list(block.inputs()), list(block.outputs())
        name = _clean_name(outs[0].debugName()) if outs else "loop"
        what = f"A loop at {source_of(node)} that cannot be unrolled"
        builder, env = self._body_builder()
        type_as = synthetic("Tensor self", "Tensor other")
        create = builder.registry.op("Parameter").create
        counter = create(builder.graph, (), name=f"{name}/iteration", shape=(), element_type="i64")
        env[params[0].unique()] = counter.out_port(0)
        carried_params = []
        for k, (param, value) in enumerate(zip(params[1:], carried)):
            if not isinstance(value, Port) and not is_number(value) and not _is_tensor_like(value):
                raise InputModelError(f"{what} carries a {type(value).__name__} ({param.type()}) from one iteration "
                                      f"to the next; only tensors and numbers are supported.")
            p = create(builder.graph, (), name=f"{name}/carried_{k}", shape=None, element_type="f32")
            p["element_type_unknown"] = True
            env[param.unique()] = p.out_port(0)
            carried_params.append(p)
        TorchScriptDecoder(builder, self.module).decode_block(block)
        if env[block_outs[0].unique()] is True and cond is True and is_number(trip) and trip >= _ENDLESS:
            raise InputModelError(f"A loop at {source_of(node)} never stops: it runs more than "
                                  f"{MAX_UNROLLED_ITERATIONS} iterations when unrolled and has no exit condition "
                                  f"(a `while True` loop without a break the model can reach).")
        values = [(block_outs[0], env[block_outs[0].unique()])]
        for k, (value, p) in enumerate(zip(block_outs[1:], carried_params)):
            item = builder.as_port(env[value.unique()]) if is_number(env[value.unique()]) else env[value.unique()]
            if isinstance(item, Port):      # the type the loop starts with (TorchScript keeps it)
                item = builder.call("aten::type_as", type_as, [item, p.out_port(0)], 1, f"{name}/carried_{k}_out",
                                    source_of(node)).out_port(0)
            values.append((value, item))
        results = self._body_results(builder, values, name, what)
        # values of the enclosing code the body writes: carried from one iteration to the next
        written = list(env.written)
        written_params = [env.parameter_of(key, what) for key in written]
        for j, (key, param) in enumerate(zip(written, written_params)):
            port = builder.call("aten::type_as", type_as, [builder.as_port(env[key]), param], 1,
                                f"{name}/written_{j}", source_of(node)).out_port(0)
            results.append(builder.registry.op("Result").create(builder.graph, [port], name=f"{name}/written_{j}"))
        _drop_dead(builder.graph)
        inputs = [self.b.as_port(trip), self.b.as_port(cond)] + [self.b.as_port(c) for c in carried]
        input_map = [port_entry(-1, counter, purpose="current_iteration")]
        input_map += [port_entry(2 + k, p) for k, p in enumerate(carried_params)]
        for outer_port, param in env.inputs:
            input_map.append(port_entry(len(inputs), param.node))
            inputs.append(outer_port)
        output_map = [port_entry(-1, results[0], purpose="execution_condition")]
        output_map += [port_entry(k, r) for k, r in enumerate(results[1:])]
        back_edges = [{"from": r.id, "to": p.id} for r, p in zip(results[1:], carried_params)]
        back_edges += [{"from": r.id, "to": p.node.id} for r, p in zip(results[len(outs) + 1:], written_params)]
        created = self.b.registry.op("Loop").create(
            self.b.graph, inputs, name=name, bodies={"body": builder.graph}, input_port_map=input_map,
            output_port_map=output_map, back_edges=back_edges, num_outputs=len(outs) + len(written),
            source=source_of(node))
        for i, out in enumerate(outs):
            self.b.env[out.unique()] = created.out_port(i)
        for j, key in enumerate(written):
            self.b.env[key] = created.out_port(len(outs) + j)

    def _runtime_if(self, node, cond: Port, outs) -> None:
        """An `if` on a value the model computes: an If whose bodies are the two branches; the
        tensors the branches read from the enclosing graph are its inputs after the condition."""
        from extensions.ops.control_flow import port_entry
        name = _clean_name(outs[0].debugName()) if outs else "if"
        branches = {}
        for body_name, block in zip(("then_body", "else_body"), node.blocks()):
            branches[body_name] = self._branch(block, f"{name}/{body_name}")
        # values of the enclosing code a branch writes: further outputs (the other branch passes them)
        written = list(dict.fromkeys(k for _, env, _ in branches.values() for k in env.written))
        if not outs and not written:    # the branches only check (raise): nothing to compute
            return
        what = f"An `if` at {source_of(node)} on a value the model computes"
        for body_name, (builder, env, results) in branches.items():
            for j, key in enumerate(written):
                port = env.parameter_of(key, what) if key not in env.written else builder.as_port(env[key])
                results.append(builder.registry.op("Result").create(builder.graph, [port],
                                                                    name=f"{name}/{body_name}/written_{j}"))
            _drop_dead(builder.graph)
        outer: list[Port] = []
        input_map, output_map = [], []
        for body_name, (_, env, results) in branches.items():
            for outer_port, param in env.inputs:
                if outer_port not in outer:
                    outer.append(outer_port)
                input_map.append(port_entry(1 + outer.index(outer_port), param.node, body_name))
            output_map += [port_entry(i, r, body_name) for i, r in enumerate(results)]
        created = self.b.registry.op("If").create(
            self.b.graph, [cond, *outer], name=name, bodies={k: v[0].graph for k, v in branches.items()},
            input_port_map=input_map, output_port_map=output_map, num_outputs=len(outs) + len(written),
            source=source_of(node))
        for i, out in enumerate(outs):
            port = created.out_port(i)
            port.add_tensor_names([out.debugName()])
            self.b.env[out.unique()] = port
        for j, key in enumerate(written):
            self.b.env[key] = created.out_port(len(outs) + j)

    def _stacked(self, node, items) -> Port:
        """The elements of a list (numbers or same-shaped tensors) stacked along a new dim 0."""
        specs = synthetic("Tensor[] tensors", "int dim")
        return self.b.call("aten::stack", specs, [list(items), 0], 1, "stack", source_of(node)).out_port(0)

    def _list_extreme(self, node, kind: str, items) -> Port:
        """max / min of a list of numbers some of which the model computes: a 0-d tensor."""
        stacked = self._stacked(node, items)
        specs = synthetic("Tensor self", "List[int] dim", "bool keepdim")
        reduce = "aten::amax" if kind == "prim::max" else "aten::amin"
        return self.b.call(reduce, specs, [stacked, [0], False], 1, _clean_name(node.outputsAt(0).debugName()),
                           source_of(node)).out_port(0)

    def _dynamic_index(self, node):
        """list[i] with a computed i: a Gather from the stacked elements (numbers, or tensors of
        one shape); a dict key must be known when converting."""
        seq, index = (self.value(v) for v in node.inputs())
        if isinstance(seq, dict) or not seq or any(item is None or isinstance(item, (str, list, tuple, dict))
                                                   for item in seq):
            raise InputModelError(
                f"Indexing a {type(seq).__name__} by a value the model computes at {source_of(node)} is not "
                f"supported: dict keys, and indices into lists of non-tensor values, must be known when converting.")
        specs = synthetic("Tensor self", "Tensor idx")
        return self.b.call("aten::__getitem__", specs, [self._stacked(node, seq), index], 1,
                           _clean_name(node.outputsAt(0).debugName()), source_of(node)).out_port(0)

    def _container_write(self, node, kind: str, ins, outs) -> None:
        """list.append / extend / insert, list[i] = v and dict[k] = v on a list or dict the decoder
        holds (indices and keys known): the Python object changes, as it does in the model."""
        container = ins[0]
        if isinstance(self.b.env, _BodyEnv) and self.b.env.is_entered(container):
            raise InputModelError(
                f"A loop or `if` at {source_of(node)} that is converted to a Loop / If changes a list or dict of "
                f"the enclosing code ({kind.split('::')[1]}); only tensors and numbers can pass between them.")
        if kind == "aten::append":
            container.append(ins[1])
        elif kind == "aten::extend":
            container.extend(ins[1])
        elif kind == "aten::insert":
            container.insert(ins[1], ins[2])
        else:
            container[ins[1]] = ins[2]
        if outs:
            self.b.env[outs[0].unique()] = container

    def _scalar_op(self, node, kind: str, x, y) -> Port:
        specs = synthetic("Scalar self", "Scalar other")
        return self.b.call(kind, specs, [x, y], 1, kind.split("::")[1], source_of(node)).out_port(0)

    def _range_arithmetic(self, node, kind: str, ins) -> Port:
        """__range_length(lo, hi, step) = max(0, ceil((hi - lo) / step)) and __derive_index(i,
        start, step) = start + i * step on values the model computes."""
        if kind == "aten::__derive_index":
            index, start, step = ins
            return self._scalar_op(node, "aten::add", start, self._scalar_op(node, "aten::mul", index, step))
        lo, hi, step = ins
        negated = self._scalar_op(node, "aten::floordiv", self._scalar_op(node, "aten::sub", lo, hi), step)
        return self._scalar_op(node, "aten::maximum", self._scalar_op(node, "aten::mul", negated, -1), 0)

    def _loop(self, node, trip, cond, carried: list, outs) -> None:
        """A loop: unrolled when its trip count is known and its conditions are known at each
        iteration; else a Loop over the block as body."""
        if cond is False:
            for out, value in zip(outs, carried):
                self.b.env[out.unique()] = value
            return
        if is_number(trip) and cond is True:
            env, views = dict(self.b.env), dict(self.b._views)
            try:
                self._unrolled_loop(node, int(trip), carried, outs)
                return
            except _NotUnrollable as e:
                log.info("A loop at %s is converted to a Loop: %s", source_of(node), e)
                self.b.env.clear()
                self.b.env.update(env)
                self.b._views = views
        self._runtime_loop(node, trip, cond, carried, outs)

    def _unrolled_loop(self, node, count: int, carried: list, outs) -> None:
        """A loop with a trip count known at load time, decoded once per iteration; _NotUnrollable
        when its condition is computed or it runs too many iterations."""
        block = next(iter(node.blocks()))
        params = list(block.inputs())
        results = list(block.outputs())
        values = list(carried)
        for i in range(count):
            if i == MAX_UNROLLED_ITERATIONS:
                raise _NotUnrollable(f"it runs more than {MAX_UNROLLED_ITERATIONS} iterations")
            self.b.env[params[0].unique()] = i
            for param, value in zip(params[1:], values):
                self.b.env[param.unique()] = value
            self.decode_block(block)
            go_on = self.b.env[results[0].unique()]
            if go_on is not True and go_on is not False:
                raise _NotUnrollable("it stops on a condition the model computes")
            values = [self.b.env[v.unique()] for v in results[1:]]
            if go_on is False:        # a `break` on values known when converting
                break
        for out, value in zip(outs, values):
            self.b.env[out.unique()] = value

    def _set_item(self, node, ins, outs) -> None:
        """list[idx] = el / dict[key] = value: the list or dict itself changes, so every later
        reader of it sees the item (an int list the model computes is a tensor rebound to the
        updated one)."""
        if isinstance(ins[0], (list, dict)) and not isinstance(ins[1], Port):
            ins[0][ins[1]] = ins[2]
            updated = ins[0]
        elif isinstance(ins[0], Port) and outs:
            self._call(node, "aten::_set_item", ins, outs)
            updated = self.b.env[outs[0].unique()]
        else:
            raise InputModelError(f"Assigning an item of a list by a computed index at {source_of(node)} is not "
                                  f"supported.")
        self.b.env[node.inputsAt(0).unique()] = updated
        if outs:
            self.b.env[outs[0].unique()] = updated

    def _fork(self, node, ins, outs) -> None:
        """torch.jit.fork(fn, args): the forked graph decoded in place (inference runs it at
        once); its result is the future that aten::wait gives back."""
        import torch
        graph = node.g("Subgraph").copy()
        torch._C._jit_pass_inline(graph)
        outer_env, outer_views = self.b.env, self.b._views
        self.b.env, self.b._views = {}, {}      # the subgraph numbers its values from 0 again
        try:
            for param, value in zip(graph.inputs(), ins):
                self.b.env[param.unique()] = value
            self.decode_block(graph)
            results = [self.b.env[v.unique()] for v in graph.outputs()]
        finally:
            self.b.env, self.b._views = outer_env, outer_views
        self.b.env[outs[0].unique()] = results[0] if len(results) == 1 else tuple(results)

    def _if(self, node, cond, outs) -> None:
        if isinstance(cond, Port):
            self._runtime_if(node, cond, outs)
            return
        blocks = list(node.blocks())
        block = blocks[0] if cond else blocks[1]
        self.decode_block(block)
        for out, value in zip(outs, block.outputs()):
            self.b.env[out.unique()] = self.b.env[value.unique()]


def _out_arguments(schema: str, specs) -> list[int]:
    """Positions of the keyword-only tensors an op writes its results to (``out=`` overloads:
    ``*, Tensor(a!) out``)."""
    written = set(re.findall(r"Tensor\(\w+!\)\s+(\w+)", schema)) if schema != "(no schema)" else set()
    return [i for i, s in enumerate(specs) if s.kwarg_only and s.name in written]


class _NotUnrollable(Exception):
    """A loop that unrolling cannot decode (it becomes a Loop)."""


def _drop_dead(body) -> None:
    """Nodes of a body that no Result reads (a loop whose unrolling was abandoned) go."""
    body.remove_dead_nodes(keep=[p.id for p in body.nodes_by_op("Parameter")])


class _BodyEnv(dict):
    """The values a branch body sees: its own, and the enclosing graph's, looked up on first use;
    a tensor of the enclosing graph enters the body through a body Parameter (``inputs``: the
    (outer port, body parameter port) pairs, in the order they were first read). Values of the
    enclosing graph the body writes (in-place ops) are listed in ``written``: the If / Loop gives
    their new values back."""

    def __init__(self, outer: dict, builder: TorchGraphBuilder):
        super().__init__()
        self.outer = outer
        self.builder = builder
        self.inputs: list[tuple[Port, Port]] = []
        self.written: list = []
        self._params: dict[Port, Port] = {}
        self._entered: set[int] = set()      # ids of the enclosing code's lists and dicts seen here

    def __missing__(self, key):
        value = self._enter(self.outer[key])
        super().__setitem__(key, value)
        return value

    def __setitem__(self, key, value):
        if key not in self.written and self.knows_outside(key):
            self.written.append(key)
        super().__setitem__(key, value)

    def knows_outside(self, key) -> bool:
        """Whether ``key`` is a value of the enclosing code."""
        outer = self.outer
        return dict.__contains__(outer, key) or (isinstance(outer, _BodyEnv) and outer.knows_outside(key))

    def parameter_of(self, key, what: str) -> Port:
        """The body Parameter standing for the enclosing code's value ``key`` (a tensor)."""
        value = self._enter(self.outer[key])
        if not isinstance(value, Port):
            raise InputModelError(f"{what} changes a {type(value).__name__} of the enclosing code; only tensors "
                                  f"and numbers can pass between them.")
        return value

    def _enter(self, value):
        if isinstance(value, Port):
            if value not in self._params:
                param = self.builder.registry.op("Parameter").create(self.builder.graph, (), name=value.node.name,
                                                                     shape=None, element_type="f32")
                param["element_type_unknown"] = True       # the If gives it the outer tensor's
                self._params[value] = param.out_port(0)
                self.inputs.append((value, param.out_port(0)))
            return self._params[value]
        if isinstance(value, dict):
            entered = {k: self._enter(v) for k, v in value.items()}
        elif isinstance(value, (list, tuple)):
            entered = type(value)(self._enter(v) for v in value)
        else:
            return value
        self._entered.add(id(entered))
        return entered

    def is_entered(self, value) -> bool:
        """Whether ``value`` is (a copy of) a list or dict of the enclosing code."""
        return id(value) in self._entered


def forward_graph(module):
    """(the forward method or None, a copy of its graph with every call inlined): the graph the
    decoder reads."""
    import torch
    method = _forward_method(module)
    try:
        graph = (method.graph if method is not None else module.graph).copy()
    except RuntimeError as e:    # a module whose code defines no forward (a corrupt or edited archive)
        raise InputModelError(f"The TorchScript module has no forward method to convert ({e}): the archive is "
                              f"corrupt or was not saved from a module with forward.") from e
    torch._C._jit_pass_inline(graph)
    return method, graph


def _forward_method(module):
    """The forward method (of an overloaded forward, the first one that takes only tensors)."""
    import torch
    if hasattr(module, "forward"):
        return module.forward
    if not hasattr(module, "_c"):
        return None
    for name in sorted(n for n in module._c._method_names() if n.startswith("forward__")):
        method = module._c._get_method(name)
        types = [a.type for a in method.schema.arguments[1:]]
        if all(isinstance(t, torch._C.TensorType) or str(t) == "Optional[Tensor]" for t in types):
            return method
    return None


def _defaults(method, count: int) -> list:
    """Default values of the method's inputs (a marker object where there is none)."""
    none = [object()] * count
    schema = getattr(method, "schema", None)
    if schema is None:
        return none
    args = [a for a in schema.arguments if a.name != "self"][:count]
    return [a.default_value if a.has_default_value() else object() for a in args] + none[len(args):]


def _is_constant(value) -> bool:
    return not isinstance(value, Port) and not (isinstance(value, (list, tuple)) and
                                               any(isinstance(v, Port) for v in value))


def _is_tensor_like(value) -> bool:
    return hasattr(value, "detach") and hasattr(value, "dtype")


def _flatten(value, name: str, out: list) -> None:
    """(name, tensor) pairs of a (nested) tuple/list/dict output, in order."""
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, str(key), out)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _flatten(item, f"{name}.{i}", out)
    elif value is not None:
        out.append((name, value))
