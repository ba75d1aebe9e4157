"""Builds the op-form Graph of a PyTorch model; shared by the TorchScript and the ExportedProgram
decoders.

A decoder walks its graph and keeps, per value, what it currently is (``env``): an output Port,
a Python constant (number, list, string, dtype, None, torch tensor) or a list/tuple/dict of
those. ``call`` adds one node per ATen operation (``fw_op`` = ``aten::name``) with one input port
per schema argument:

* a graph value is linked to its port;
* a number or list of numbers becomes a Const on its port (Python scalars marked
  ``pytorch_scalar``: they take the tensor's type in arithmetic);
* a constant tensor becomes a Const (its numpy value shares the tensor's memory);
* None leaves the port unconnected; strings, dtypes (as element types), devices... are not
  inputs; every constant argument is also kept by name in ``const_args``;
* a list holding graph values gets one extra port per element after the schema arguments
  (``list_args[arg index]`` = their port numbers, None for a None element).

In-place operations (``aten::relu_``) become their out-of-place form, and the result is bound
to the mutated value for every later reader (``assign``); when the mutated value is a view
(slice, select, reshape, transpose...) of another value, that base value is rebuilt with the
matching scatter and rebound too.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from extensions.load.pytorch.quantized import (
    DEQUANTIZERS,
    QUANTIZERS,
    expand_packed,
    is_quantized,
    quant_dtype_of_ints,
    quantized_call,
)
from extensions.load.pytorch.schema import ArgSpec, base_type, is_dtype_type, synthetic
from extensions.load.pytorch.types import (
    bf16_bits,
    complex_parts_type,
    element_type_of_dtype,
    is_number,
    is_number_list,
    scalar_array,
    tensor_to_array,
)
from mo.graph.building import mark_complex
from mo.graph.graph import Graph
from mo.graph.node import Node
from mo.graph.port import Port

# the augmented assignments of scripted code (x &= y): in-place forms of the dunder operators
_INPLACE_DUNDERS = {"aten::__iand__": "aten::__and__", "aten::__ior__": "aten::__or__",
                    "aten::__ixor__": "aten::__xor__", "aten::__ilshift__": "aten::__lshift__",
                    "aten::__irshift__": "aten::__rshift__"}


# ops that read their input's memory through explicit strides: the decoders record the input's
# strides (``input_strides``) so a non-contiguous input is read in its memory order
STRIDED_READS = frozenset({"aten::as_strided", "aten::as_strided_copy", "aten::as_strided_scatter"})


def split_inplace(kind: str) -> tuple[str, bool]:
    """('aten::relu', True) for 'aten::relu_', ('aten::__and__', True) for 'aten::__iand__';
    other dunder names like 'aten::__and__' are not in-place."""
    if kind in _INPLACE_DUNDERS:
        return _INPLACE_DUNDERS[kind], True
    if kind.endswith("_") and not kind.endswith("__"):
        return kind[:-1], True
    return kind, False


# view op -> how a new value of the view is written back into its base
_SCATTER_SPECS = {
    "aten::slice": ("aten::slice_scatter", synthetic("Tensor self", "Tensor src", "int dim", "Optional[int] start",
                                                     "Optional[int] end", "int step")),
    "aten::select": ("aten::select_scatter", synthetic("Tensor self", "Tensor src", "int dim", "int index")),
}
_RESHAPE_VIEWS = frozenset({"aten::view", "aten::reshape", "aten::unsqueeze", "aten::squeeze", "aten::flatten",
                            "aten::view_as", "aten::reshape_as", "aten::unflatten"})
_SAME_VIEWS = frozenset({"aten::detach", "aten::alias", "aten::contiguous"})
VIEW_OPS = frozenset(_SCATTER_SPECS) | _RESHAPE_VIEWS | _SAME_VIEWS | {"aten::transpose", "aten::permute",
                                                                       "aten::t"}


def torch_view_as_real(tensor):
    """A complex torch tensor as a numpy array of [..., 2] (real, imaginary) pairs."""
    import torch
    return torch.view_as_real(tensor.detach().cpu().resolve_conj()).numpy()


class TorchGraphBuilder:
    """The Graph being built, the current binding of each value and the view relations."""

    def __init__(self, context):
        self.graph = Graph(context=context)
        self.registry = context.registry
        self.env: dict[Any, Any] = {}
        self._views: dict[Any, tuple[Any, str, list]] = {}
        self._tensor_consts: dict[int, tuple[Any, Port]] = {}
        self._quant_dtypes: dict[Port, str] = {}    # output port -> quantized type of its values
        # where meta tensors (parameters without values) get theirs, by name: a checkpoint folder's
        # files (checkpoint_folder.StoredWeights)
        self.weights = None

    # ----------------------------------------------------------------- leaves
    def parameter(self, name: str, shape: tuple | None, element_type: str, complex_: bool = False) -> Port:
        """A model input; a complex one (``complex_``: ``element_type`` is its parts' type) is
        [..., 2] pairs, marked complex."""
        if complex_ and shape is not None:
            shape = tuple(shape) + (2,)
        node = self.registry.op("Parameter").create(self.graph, (), name=name, shape=shape,
                                                    element_type=element_type)
        node.out_port(0).add_tensor_names([name])
        return mark_complex(node.out_port(0)) if complex_ else node.out_port(0)

    def tensor(self, tensor, name: str | None = None) -> Port:
        """A Const holding a torch tensor (one per tensor object)."""
        found = self._tensor_consts.get(id(tensor))
        if found is not None and found[0] is tensor:
            return found[1]
        if tensor.is_meta and tensor.numel() == 0:     # empty: its value needs no data
            import torch
            port = self.tensor(torch.empty(tuple(tensor.shape), dtype=tensor.dtype), name)
            self._tensor_consts[id(tensor)] = (tensor, port)
            return port
        if self.weights is not None and tensor.is_meta:
            port = self.weights.port(self, tensor, name)
            self._tensor_consts[id(tensor)] = (tensor, port)
            return port
        bits = bf16_bits(tensor)
        if bits is not None:      # behind a Convert to bf16 that only keeps its raw bits from readers
            port = self.stored_const(bits, "bf16", name, "bf16")
            self._tensor_consts[id(tensor)] = (tensor, port)
            return port
        if is_quantized(tensor):     # its integers, dequantized by a node
            kind, specs, values = quantized_call(tensor)
            port = self.call(kind, specs, values, 1, name or "quantized_constant").out_port(0)
            self._tensor_consts[id(tensor)] = (tensor, port)
            return port
        parts = complex_parts_type(tensor.dtype)
        if parts:
            value, et = torch_view_as_real(tensor), parts
        else:
            value, et = tensor_to_array(tensor)
        port = self.registry.op("Const").create(self.graph, (), name=name or "constant", value=value,
                                                element_type=et).out_port(0)
        if parts:
            mark_complex(port)
        if name:
            port.add_tensor_names([name])
        self._tensor_consts[id(tensor)] = (tensor, port)
        return port

    def stored_const(self, value: np.ndarray, element_type: str, name: str | None, compute_type: str) -> Port:
        """A weight as it is stored (``value`` a view of a file or a tensor; bf16 as its raw bit
        patterns, which only the IR writer reads), computed on as ``compute_type``: a 16-bit
        float weight of an f32 model passes a Convert to f32 marked ``decompression``; a raw one
        computed in its own type a Convert to that type. Such Converts are not folded: the raw
        bits never reach a reader of values, and no f32 copy of the weight is made."""
        from mo.utils.types import np_dtype
        name_ = name or "constant"
        converted = compute_type != element_type or value.dtype != np_dtype(element_type)
        # named as --compress_to_fp16 names its Consts: the weight's name on what computes with it
        const = self.registry.op("Const").create(self.graph, (), name=f"{name_}_compressed" if converted else name_,
                                                 value=np.zeros(0, np_dtype(element_type)), element_type=element_type)
        const["value"] = value
        port = const.out_port(0)
        if converted:
            decompress = element_type in ("f16", "bf16") and compute_type == "f32"
            port = self.registry.op("Convert").create(
                self.graph, [port], name=name_, destination_type=compute_type,
                rt_info={"decompression": None} if decompress else {}, foldable=False).out_port(0)
        if name:
            port.add_tensor_names([name])
        return port

    def number(self, value: Any) -> Port:
        """A Const holding a Python number (a wrapped number for type promotion) or a list."""
        node = self.registry.op("Const").create(self.graph, (), name="scalar" if is_number(value) else "list",
                                                value=scalar_array(value))
        if is_number(value):
            node["pytorch_scalar"] = True
        return node.out_port(0)

    def complex_number(self, value: complex) -> Port:
        """A Python complex number: an f32 (real, imaginary) pair marked complex, a wrapped number
        (it takes the tensor's type in arithmetic)."""
        node = self.registry.op("Const").create(self.graph, (), name="scalar",
                                                value=np.array([value.real, value.imag], np.float32))
        node["pytorch_scalar"] = True
        return mark_complex(node.out_port(0))

    def as_port(self, value: Any) -> Port:
        if isinstance(value, Port):
            return value
        if isinstance(value, complex):
            return self.complex_number(value)
        if is_number(value) or is_number_list(value):
            return self.number(value)
        if _is_tensor(value):
            return self.tensor(value)
        raise ValueError(f"{type(value).__name__} value {value!r} cannot be a tensor input")

    def result(self, port: Port, name: str) -> Node:
        node = self.registry.op("Result").create(self.graph, [port], name=f"{name}/sink_port_0")
        taken = any(name in names for n in self.graph.op_nodes() if n.id != port.node.id
                    for names in (n.get("tensor_names") or {}).values())
        if not taken:   # an output name that another tensor has already is left out
            port.add_tensor_names([name])
        return node

    # ----------------------------------------------------------------- operations
    def call(self, kind: str, specs: tuple[ArgSpec, ...], values: list, num_outputs: int, name: str,
             source: str | None = None) -> Node:
        """Add a node for operation ``kind`` with argument ``values`` bound to ``specs``."""
        specs, values = expand_packed(kind, specs, values)
        node = self.graph.add_op({"name": name, "fw_op": kind, "op": None, "num_outputs": num_outputs,
                                  "arg_names": tuple(s.name for s in specs),
                                  "arg_types": tuple(s.type for s in specs),
                                  "const_args": {}, "list_args": {}, "source": source})
        extra = len(specs)
        for i, (spec, value) in enumerate(zip(specs, values)):
            if isinstance(value, Port):
                value.connect(node.in_port(i))
            elif value is None:
                node.const_args[spec.name] = None
            elif is_dtype_type(spec.type) or _is_dtype(value):
                node.const_args[spec.name] = element_type_of_dtype(value)
            elif is_number(value) or (is_number_list(value) and base_type(spec.type) != "List[Tensor]"):
                self.number(value).connect(node.in_port(i))
                node.const_args[spec.name] = value
            elif _is_tensor(value):
                self.tensor(value).connect(node.in_port(i))
            elif isinstance(value, complex):
                self.complex_number(value).connect(node.in_port(i))
            elif isinstance(value, (list, tuple)):
                ports = []
                for item in value:
                    if item is None:
                        ports.append(None)
                        continue
                    self.as_port(item).connect(node.in_port(extra))
                    ports.append(extra)
                    extra += 1
                node.list_args[i] = ports
            else:
                node.const_args[spec.name] = value if isinstance(value, (str, bool)) else str(value)
        self._record_quant_dtype(node, kind, specs, values)
        return node

    def _record_quant_dtype(self, node: Node, kind: str, specs, values: list) -> None:
        """The quantized type of the node's outputs (``quant_dtype``): the one a quantize call
        names, or its first quantized input's."""
        qtype = None
        if kind in QUANTIZERS:
            qtype = node.const_args.get("dtype")
        elif kind.startswith("aten::_make_per_"):
            qtype = quant_dtype_of_ints(values[0])
        elif kind not in DEQUANTIZERS:
            flat = [v for value in values for v in (value if isinstance(value, (list, tuple)) else [value])]
            qtype = next((self._quant_dtypes[v] for v in flat if isinstance(v, Port) and v in self._quant_dtypes),
                         None)
        if qtype is None:
            return
        node["quant_dtype"] = qtype
        for i in range(node.get("num_outputs") or 1):
            self._quant_dtypes[node.out_port(i)] = qtype

    # ----------------------------------------------------------------- mutation
    def record_view(self, key: Any, base_key: Any, kind: str, values: list) -> None:
        """``key`` is a view of ``base_key`` made by ``kind`` with argument ``values``."""
        if kind in VIEW_OPS:
            self._views[key] = (base_key, kind, list(values))

    def assign(self, key: Any, port: Port, source: str | None = None) -> None:
        """Value ``key`` now holds ``port`` (an in-place op wrote it); bases it is a view of are
        rebuilt from it."""
        self.env[key] = port
        view = self._views.get(key)
        if view is None:
            return
        base_key, kind, values = view
        base = self.env[base_key]
        name = f"{port.node.name}/update_base"
        if kind in _SCATTER_SPECS:
            scatter_kind, specs = _SCATTER_SPECS[kind]
            node = self.call(scatter_kind, specs, [base, port, *values[1:]], 1, name, source)
        elif kind in _RESHAPE_VIEWS:
            node = self.call("aten::reshape_as", synthetic("Tensor self", "Tensor other"), [port, base], 1, name,
                             source)
        elif kind in _SAME_VIEWS:
            self.assign(base_key, port, source)
            return
        elif kind == "aten::t":
            node = self.call("aten::t", synthetic("Tensor self"), [port], 1, name, source)
        elif kind == "aten::transpose":
            node = self.call(kind, synthetic("Tensor self", "int dim0", "int dim1"), [port, *values[1:3]], 1, name,
                             source)
        else:   # permute by constant dims: the inverse permutation
            inverse = [int(i) for i in np.argsort([int(d) for d in values[1]])]
            node = self.call(kind, synthetic("Tensor self", "List[int] dims"), [port, inverse], 1, name, source)
        self.assign(base_key, node.out_port(0), source)


def _is_tensor(value: Any) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "detach") and hasattr(value, "dtype")


def _is_dtype(value: Any) -> bool:
    return type(value).__name__ == "dtype" and type(value).__module__ == "torch"
