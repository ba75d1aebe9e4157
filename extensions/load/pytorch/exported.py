"""ExportedProgram decoder: the FX graph of a ``torch.export`` program as an op-form Graph.

A program that writes into tensors is first functionalised (``run_decompositions`` with an empty
table: in-place ops and writes into views become out-of-place ops and scatters, nothing else is
decomposed); one that does not is decoded as it is (``needs_functionalising``). Placeholders
are bound through the graph signature: parameters, buffers and lifted constants become Consts
sharing the tensors' memory, user inputs become Parameters whose symbolic dimensions
(``torch.export.Dim``) stay dynamic. Each ``call_function`` of an ATen operator becomes one node;
``operator.getitem`` picks an output, and Python arithmetic on symbolic sizes becomes the ATen
scalar operation it stands for. ``torch.cond`` becomes an If whose bodies are the branch graphs.
"""
from __future__ import annotations

import logging
import math
import operator
import re
import warnings
from typing import Any

from extensions.load.pytorch.builder import TorchGraphBuilder, split_inplace
from extensions.load.pytorch.schema import bind, from_function_schema, synthetic
from extensions.load.pytorch.types import complex_parts_type, element_type_of_dtype, is_torch_file
from mo.errors import InputModelError
from mo.graph.port import Port

log = logging.getLogger("mo")

_BINARY = synthetic("number self", "number other")
_UNARY = synthetic("number self")
# Python functions FX records on symbolic sizes -> (ATen operation, its argument specs)
_PYTHON_OPS = {
    operator.add: ("aten::add", _BINARY), operator.sub: ("aten::sub", _BINARY),
    operator.mul: ("aten::mul", _BINARY), operator.truediv: ("aten::div", _BINARY),
    operator.floordiv: ("aten::floordiv", _BINARY), operator.mod: ("aten::remainder", _BINARY),
    operator.pow: ("aten::pow", _BINARY), operator.neg: ("aten::neg", _UNARY),
    operator.eq: ("aten::eq", _BINARY), operator.ne: ("aten::ne", _BINARY), operator.lt: ("aten::lt", _BINARY),
    operator.le: ("aten::le", _BINARY), operator.gt: ("aten::gt", _BINARY), operator.ge: ("aten::ge", _BINARY),
    math.sqrt: ("aten::sqrt", _UNARY), math.floor: ("aten::floor", _UNARY), math.ceil: ("aten::ceil", _UNARY),
}
_SYM_OPS = {"sym_float": ("aten::Float", _UNARY), "sym_int": ("aten::Int", _UNARY),
            "sym_max": ("aten::maximum", _BINARY), "sym_min": ("aten::minimum", _BINARY),
            "sym_not": ("aten::logical_not", _UNARY), "_sym_sqrt": ("aten::sqrt", _UNARY),
            "sym_sqrt": ("aten::sqrt", _UNARY)}


def python_op(target) -> tuple | None:
    """(ATen operation, argument specs) a Python function FX records on symbolic sizes stands
    for (``operator.add``, ``sym_max`` ...), or None."""
    return _PYTHON_OPS.get(target) or _SYM_OPS.get(getattr(target, "__name__", None))


# checks and hints without an effect on the computed values
_IGNORED = frozenset({"aten::_assert_tensor_metadata", "aten::_assert_scalar", "aten::sym_constrain_range_for_size",
                      "aten::sym_constrain_range", "aten::_assert_async", "aten::_print"})


# in-place operators that change no value (detach_ only drops autograd history: transformers'
# caches call it on their empty placeholders)
_VALUE_PRESERVING_INPLACE = frozenset({"aten::detach_"})


def needs_functionalising(program) -> bool:
    """Whether the program writes into a tensor (an in-place or out= operator, an input or buffer
    it mutates) or holds a higher-order operator. A program that does neither is decoded as
    torch.export gives it: functionalising would only trace it again (23 s of a 45 s conversion
    of a 34-layer Llama) to spell a few operators differently (``to`` as ``_to_copy``, ``reshape``
    as ``view``), which the translators take in either form."""
    import torch
    signature = program.graph_signature
    if signature.buffers_to_mutate or getattr(signature, "user_inputs_to_mutate", None):
        return True
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        target = node.target
        if isinstance(target, torch._ops.OpOverload):
            if target._schema.is_mutable and target._schema.name not in _VALUE_PRESERVING_INPLACE:
                return True
        elif isinstance(target, torch._ops.HigherOrderOperator):
            return True
    return False


def op_kind(target) -> str:
    """The operation the target of an FX ``call_function`` node stands for, as the decoder names
    it (``aten::gelu``, ``aten::add`` for Python's ``+`` on sizes, ``python::name`` otherwise)."""
    import torch
    if isinstance(target, torch._ops.OpOverload):
        return target._schema.name
    if target in _PYTHON_OPS:
        return _PYTHON_OPS[target][0]
    name = getattr(target, "__name__", str(target))
    return _SYM_OPS[name][0] if name in _SYM_OPS else f"python::{name}"


def functionalised(program):
    """The program the decoder reads: functionalised when it writes into tensors (see
    ``needs_functionalising``), as it is otherwise or when it cannot be."""
    try:
        if needs_functionalising(program):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return program.run_decompositions({})
    except Exception as e:   # a program that cannot be functionalised is decoded as it is
        log.warning("Could not functionalise the exported program (%s: %s); in-place writes into views "
                    "may be missed.", type(e).__name__, e)
    return program


def source_of(node) -> str | None:
    """'file.py:line' of the innermost frame outside torch in the node's stack trace."""
    trace = node.meta.get("stack_trace") or ""
    frames = re.findall(r'File "(.+?)", line (\d+)', trace)
    for path, line in reversed(frames):
        if not is_torch_file(path):
            return f"{path}:{line}"
    return f"{frames[-1][0]}:{frames[-1][1]}" if frames else None


def shape_of(val) -> tuple | None:
    """A FakeTensor's shape with symbolic dims as -1 (a symbol known to be a number is that number)."""
    from torch.fx.experimental.symbolic_shapes import is_concrete_int
    shape = getattr(val, "shape", None)
    if shape is None:
        return None
    return tuple(int(d) if is_concrete_int(d) else -1 for d in shape)


def _dim_symbols(val) -> tuple:
    """The size symbol of each dim of a FakeTensor (None for a number): inputs whose dims share
    a symbol have one size there (the program's shape constraints; extensions/middle/
    shape_symbols.py reads them)."""
    from torch.fx.experimental.symbolic_shapes import is_concrete_int
    return tuple(None if is_concrete_int(d) else str(d) for d in val.shape)


class ExportedProgramDecoder:
    """Decodes one ExportedProgram."""

    def __init__(self, builder: TorchGraphBuilder, program):
        self.b = builder
        self.program = program

    def decode(self) -> None:
        program = functionalised(self.program)
        signature = program.graph_signature
        lifted = {**signature.inputs_to_parameters, **signature.inputs_to_buffers,
                  **signature.inputs_to_lifted_tensor_constants}
        tensors = {**program.state_dict, **program.constants}
        for node in program.graph.nodes:
            if node.op == "placeholder":
                self._placeholder(node, lifted, tensors, signature.user_inputs)
            elif node.op == "call_function":
                self._call(node)
            elif node.op == "get_attr":
                self.b.env[node.name] = module_attribute(program.graph_module, node.target)
            elif node.op == "output":
                self._outputs(node, program)
            else:
                raise InputModelError(f"Unexpected FX node '{node.name}' ({node.op}) in the exported program.")

    def _placeholder(self, node, lifted: dict, tensors: dict, user_inputs) -> None:
        if node.name in lifted:
            target = lifted[node.name]
            if target not in tensors:
                raise InputModelError(f"The exported program has no value for '{target}'.")
            self.b.env[node.name] = self.b.tensor(tensors[target], target)
            return
        if node.name not in user_inputs:
            raise InputModelError(f"Input '{node.name}' of the exported program is neither a user input nor a "
                                  f"parameter, buffer or constant.")
        val = node.meta.get("val")
        if not hasattr(val, "dtype"):
            # a Python number input: it was specialised into the program, nothing reads it
            self.b.env[node.name] = val
            return
        parts = complex_parts_type(val.dtype)
        port = self.b.parameter(node.name, shape_of(val), parts or element_type_of_dtype(val.dtype),
                                complex_=bool(parts))
        port.node["dim_symbols"] = _dim_symbols(val) + ((None,) if parts else ())
        self.b.env[node.name] = port

    def _value(self, arg) -> Any:
        """An FX argument with the nodes it refers to replaced by their current values."""
        import torch.fx
        if isinstance(arg, torch.fx.Node):
            return self.b.env[arg.name]
        if isinstance(arg, (list, tuple)):
            return type(arg)(self._value(a) for a in arg)
        if isinstance(arg, dict):
            return {k: self._value(v) for k, v in arg.items()}
        return arg

    def _call(self, node) -> None:
        import torch
        target = node.target
        env = self.b.env
        if target is operator.getitem:
            seq, idx = self._value(node.args[0]), node.args[1]
            env[node.name] = seq[idx]
            return
        args = [self._value(a) for a in node.args]
        kwargs = {k: self._value(v) for k, v in node.kwargs.items()}
        if target is getattr(getattr(torch.ops, "higher_order", None), "cond", None):
            self._cond(node, *args)
            return
        if isinstance(target, torch._ops.OpOverload):
            kind = target._schema.name
            if kind in _IGNORED:
                return
            specs = from_function_schema(target._schema)
            try:
                values = bind(specs, args, kwargs)
            except ValueError as e:
                raise InputModelError(f"Cannot bind the arguments of '{node.name}' ({kind}): {e}") from e
        elif python_op(target) is not None:
            kind, specs = python_op(target)
            values = args
        else:
            name = getattr(target, "__name__", str(target))
            kind, specs, values = f"python::{name}", synthetic(*[f"Tensor arg{i}" for i in range(len(args))]), args
        base_kind, inplace = split_inplace(kind)
        val = node.meta.get("val")
        many = isinstance(val, (list, tuple))
        count = len(val) if many else 1
        created = self.b.call(base_kind, specs, values, count, node.name, source_of(node))
        if many:
            env[node.name] = [created.out_port(i) for i in range(count)]
            for i in range(count):
                created.out_port(i).add_tensor_names([f"{node.name}.{i}"])
        else:
            env[node.name] = created.out_port(0)
            created.out_port(0).add_tensor_names([node.name])
        if node.args and isinstance(node.args[0], torch.fx.Node):   # a program left with in-place ops
            if inplace:
                self.b.assign(node.args[0].name, created.out_port(0), source_of(node))
            self.b.record_view(node.name, node.args[0].name, "aten::alias" if inplace else base_kind, values)

    def _cond(self, node, pred, true_fn, false_fn, operands) -> None:
        """torch.cond(pred, true_fn, false_fn, operands): an If whose bodies are the two branch
        graphs, each reading the operands through its placeholders."""
        from extensions.ops.control_flow import new_body, port_entry
        operands = list(operands)
        if not isinstance(pred, Port) or not all(isinstance(o, Port) for o in operands):
            raise InputModelError(f"torch.cond '{node.name}' at {source_of(node)} takes a predicate and operands "
                                  f"that are not all tensors; only tensors are supported.")
        bodies, input_map, output_map, count = {}, [], [], None
        for body_name, module in (("then_body", true_fn), ("else_body", false_fn)):
            builder = TorchGraphBuilder(self.b.graph.context)
            builder.graph = new_body(self.b.graph)
            decoder = ExportedProgramDecoder(builder, None)
            placeholders = [n for n in module.graph.nodes if n.op == "placeholder"]
            if len(placeholders) != len(operands):
                raise InputModelError(f"A branch of torch.cond '{node.name}' takes {len(placeholders)} operands, "
                                      f"not {len(operands)}.")
            for i, ph in enumerate(placeholders):
                param = builder.registry.op("Parameter").create(builder.graph, (), name=f"{node.name}/{ph.name}",
                                                                shape=None, element_type="f32")
                param["element_type_unknown"] = True
                builder.env[ph.name] = param.out_port(0)
                input_map.append(port_entry(1 + i, param, body_name))
            results = []
            for inner in module.graph.nodes:
                if inner.op == "call_function":
                    decoder._call(inner)
                elif inner.op == "get_attr":
                    builder.env[inner.name] = module_attribute(module, inner.target)
                elif inner.op == "output":
                    outs = inner.args[0] if isinstance(inner.args[0], (list, tuple)) else [inner.args[0]]
                    for j, out in enumerate(outs):
                        port = builder.as_port(decoder._value(out))
                        results.append(builder.registry.op("Result").create(builder.graph, [port],
                                                                            name=f"{node.name}/{body_name}/{j}"))
            if count is not None and count != len(results):
                raise InputModelError(f"The branches of torch.cond '{node.name}' give {count} and {len(results)} "
                                      f"results.")
            count = len(results)
            output_map += [port_entry(j, r, body_name) for j, r in enumerate(results)]
            bodies[body_name] = builder.graph
        created = self.b.registry.op("If").create(self.b.graph, [pred, *operands], name=node.name, bodies=bodies,
                                                  input_port_map=input_map, output_port_map=output_map,
                                                  num_outputs=count, source=source_of(node))
        self.b.env[node.name] = [created.out_port(j) for j in range(count)]

    def _outputs(self, node, program) -> None:
        from torch.export.graph_signature import OutputKind
        outputs = list(node.args[0]) if isinstance(node.args[0], (list, tuple)) else [node.args[0]]
        specs = program.graph_signature.output_specs
        user = [(out, spec) for out, spec in zip(outputs, specs) if spec.kind == OutputKind.USER_OUTPUT]
        names = _output_names(program, len(user))
        for i, (out, _) in enumerate(user):
            value = self._value(out)
            if value is None:
                continue
            default = out.name if hasattr(out, "name") else f"output_{i}"
            self.b.result(self.b.as_port(value), names[i] if names and names[i] else default)


def module_attribute(module, target: str):
    """The attribute of ``module`` a ``get_attr`` node's dotted ``target`` names."""
    obj = module
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _output_names(program, count: int) -> list[str | None] | None:
    """Names of the user outputs from the output tree (dict keys, ModelOutput fields), if any."""
    try:
        import torch.utils._pytree as pytree
        tree = pytree.tree_unflatten(list(range(count)), program.call_spec.out_spec)
    except Exception:
        return None
    names: list[str | None] = [None] * count

    def walk(obj, prefix) -> None:
        if isinstance(obj, int):
            if prefix and 0 <= obj < count:
                names[obj] = prefix
        elif hasattr(obj, "items"):
            for key, item in obj.items():
                walk(item, f"{prefix}.{key}" if prefix else str(key))
        elif isinstance(obj, (list, tuple)):
            for i, item in enumerate(obj):
                walk(item, f"{prefix}.{i}" if prefix else None)

    walk(tree, None)
    return names
