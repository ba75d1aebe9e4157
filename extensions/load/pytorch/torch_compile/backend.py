"""The backend's compile step: Dynamo graph -> ATen graph -> partitions -> OpenVINO parts.

1. The Dynamo graph is lowered to ATen. Operations without a translator are decomposed when
   torch has a decomposition for them (``decompositions``). When no gradient is needed (no
   input requires one, or grad mode is off), ``make_fx`` traces it once on Dynamo's fake inputs
   (``lower_for_inference``: about a third of AOT autograd's time, which traces twice),
   functionalized when its shapes are static; a graph that writes to one of its inputs (or, with
   symbolic shapes, to any tensor), or whose tracing fails, is lowered by AOT autograd instead,
   which also keeps gradients working (backward passes run in PyTorch).
2. The ATen graph's parameters and buffers (the inputs Dynamo marks static, less the buffers
   the model writes) are frozen: they become Consts of the IR, and the part falls back to
   PyTorch if one of them is changed in place later. ``addmm(b, x, t(w))`` (torch.nn.Linear)
   becomes ``linear(x, w, b)`` again, so the IR keeps the weight as stored.
3. torch.fx's capability-based partitioner groups the nodes whose operation has a translator in
   mo's registry; each group becomes a submodule, converted through mo's pipeline (the FX
   decoder in ``extensions/load/pytorch/fx_module.py``) and run by the OpenVINO runtime. A group
   mo cannot convert, and every node outside the groups, stays PyTorch code.
"""
from __future__ import annotations

import functools
import hashlib
import logging
import operator
import os
import time
from collections import Counter
from dataclasses import dataclass, field

from mo.errors import ConversionError, OptionError

log = logging.getLogger("mo.compile")

# FX call targets that are not ATen operators but that the decoder handles
_PYTHON_TARGETS = frozenset({operator.getitem})


@dataclass
class BackendOptions:
    device: str = "CPU"
    inference_precision: str | None = None
    cache_dir: str | None = None
    fallback: bool = True
    compress_to_fp16: bool = False
    config: dict = field(default_factory=dict)

    @classmethod
    def parse(cls, options: dict | None) -> "BackendOptions":
        options = dict(options or {})
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(options) - known)
        if unknown:
            raise OptionError(f"Unknown option(s) {unknown} of the torch.compile backend 'mo'; it takes "
                              f"{sorted(known)}.")
        opts = cls(**options)
        if not isinstance(opts.config, dict):
            raise OptionError("The option 'config' of the backend 'mo' must be a dict of OpenVINO properties.")
        return opts

    def properties(self) -> dict:
        props = dict(self.config)
        if self.inference_precision:
            props["INFERENCE_PRECISION_HINT"] = self.inference_precision
        if self.cache_dir and "CACHE_DIR" not in props:   # OpenVINO keeps its compiled blobs there too
            props["CACHE_DIR"] = os.path.join(self.cache_dir, "openvino")
        return props


@functools.cache
def registry():
    """mo's registry of the built-in translators (built once per process)."""
    from mo.registry import Registry
    return Registry.build()


def aten_name(target) -> str | None:
    """'aten::add' for an ATen OpOverload (or packet), None for anything else."""
    schema = getattr(target, "_schema", None)
    return schema.name if schema is not None else getattr(target, "_qualified_op_name", None)


def unsupported_reason(node) -> str | None:
    """Why mo cannot convert an FX call node, or None when it can."""
    import torch
    if node.op != "call_function":
        return f"{node.op} nodes stay in PyTorch"
    if node.target in _PYTHON_TARGETS:
        return None
    if isinstance(node.target, torch._ops.OpOverload):
        name = aten_name(node.target)
    else:   # Python arithmetic on symbolic sizes, decoded as the ATen operation it stands for
        from extensions.load.pytorch.exported import python_op
        aten = python_op(node.target)
        if aten is None:
            return f"'{getattr(node.target, '__name__', node.target)}' is not an ATen operator"
        name = aten[0]
    if registry().translator("pytorch", name) is None:
        return f"mo has no translator for {name}"
    val = node.meta.get("val")
    for v in val if isinstance(val, (list, tuple)) else [val]:
        if hasattr(v, "device") and v.device.type != "cpu":
            return f"its result is on device {v.device}"
    return None


@functools.cache
def decompositions() -> dict:
    """Torch's core decompositions of the ATen operators mo has no translator for."""
    from torch._decomp import core_aten_decompositions
    reg = registry()
    return {op: fn for op, fn in core_aten_decompositions().items()
            if reg.translator("pytorch", aten_name(op) or "") is None}


def compile_graph(gm, example_inputs, options: dict | None):
    opts = BackendOptions.parse(options)
    real_inputs = list(example_inputs)
    if not opts.inference_precision and "INFERENCE_PRECISION_HINT" not in opts.config:
        opts.inference_precision = model_precision(real_inputs)
    started = time.perf_counter()
    lowered = None if _needs_autograd(real_inputs) else lower_for_inference(gm)
    if lowered is not None:
        aten_gm, static = lowered
        log.info("mo: graph lowered to %d ATen nodes for inference in %.2f s", len(aten_gm.graph.nodes),
                 time.perf_counter() - started)
        return _compile_real(aten_gm, real_inputs, static, opts).forward
    return lower_with_aot_autograd(gm, real_inputs, opts, started)


# torch float types -> OpenVINO inference precisions
_PRECISIONS = {"torch.float32": "f32", "torch.bfloat16": "bf16", "torch.float16": "f16"}


def model_precision(inputs: list) -> str:
    """The inference precision of the model's own computation, so that the OpenVINO parts
    compute as eager PyTorch does (as inductor's code does), not in the CPU plugin's default
    (bf16 where the CPU has it): the CPU autocast type when the graph is compiled under
    ``torch.autocast("cpu", ...)``, bf16 (f16) when every floating input and weight of the
    graph has that type, else f32."""
    import torch
    if torch.is_autocast_enabled("cpu"):
        return _PRECISIONS.get(str(torch.get_autocast_dtype("cpu")), "f32")
    floats = {str(x.dtype) for x in inputs if isinstance(x, torch.Tensor) and x.is_floating_point()}
    return _PRECISIONS[floats.pop()] if len(floats) == 1 and floats <= set(_PRECISIONS) else "f32"


def _needs_autograd(inputs: list) -> bool:
    """Whether the graph's results need gradients (what AOT autograd itself decides by)."""
    import torch
    return torch.is_grad_enabled() and any(isinstance(x, torch.Tensor) and x.requires_grad for x in inputs)


def _compile_real(aten_gm, real_inputs: list, static: set, opts: "BackendOptions"):
    """``compile_aten`` with the real values of the static inputs, outside any fake tensor mode
    (the conversion reads the real weights)."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    with unset_fake_temporarily():
        return compile_aten(aten_gm, frozen_inputs(aten_gm, real_inputs, static), opts)


def lower_for_inference(gm):
    """(ATen graph, indices of its static inputs) traced by ``make_fx`` from the Dynamo graph's
    fake inputs (so dimensions Dynamo made symbolic stay symbolic), or None when the graph must
    go through AOT autograd: it changes global state (grad mode, autocast) or calls a
    higher-order operator, its tracing fails (AOT autograd then reports the error or asks
    Dynamo to restart), or it writes to one of its inputs (a buffer, e.g. BatchNorm's running
    statistics in training, or the caller's tensor: AOT autograd writes the results back) or,
    with symbolic shapes, to any tensor."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx
    placeholders = gm.graph.find_nodes(op="placeholder")
    fakes = [n.meta.get("example_value") for n in placeholders]
    if any(v is None for v in fakes) or any(_changes_state(n) for n in gm.graph.nodes if n.op == "call_function"):
        return None
    # Functionalized, in-place operations on intermediate values become their functional forms
    # (ReLU(inplace=True), masked_fill_ ...; a write to an input stays a copy_). Not with symbolic
    # dimensions: functionalization specializes them (Dynamo would recompile for every shape).
    traced = gm if _symbolic(fakes) else torch.func.functionalize(gm, remove="mutations")
    try:
        aten_gm = make_fx(traced, decomposition_table=decompositions(), tracing_mode="fake",
                          _allow_non_fake_inputs=True)(*fakes)
    except Exception as e:   # noqa: BLE001 (AOT autograd gets the graph instead)
        log.debug("mo: make_fx cannot lower the graph (%s: %s); AOT autograd lowers it", type(e).__name__, e)
        return None
    if any(isinstance(n.target, torch._ops.OpOverload) and n.target._schema.is_mutable
           for n in aten_gm.graph.nodes if n.op == "call_function"):
        return None
    aten_gm.graph.eliminate_dead_code()
    static = {i for i, n in enumerate(placeholders)
              if n.meta.get("tensor_dict", {}).get("_dynamo_static_input_type")}
    return aten_gm, static


def _symbolic(values: list) -> bool:
    """Whether any of the fake inputs is a symbolic integer or has a symbolic dimension."""
    import torch
    return any(isinstance(v, torch.SymInt) or
               (isinstance(v, torch.Tensor) and any(isinstance(d, torch.SymInt) for d in v.shape)) for v in values)


def _changes_state(node) -> bool:
    import torch
    if isinstance(node.target, torch._ops.HigherOrderOperator):
        return True
    name = getattr(node.target, "__name__", "")
    return name in _STATE_CHANGERS


# Dynamo graph calls that set global state which make_fx would not trace as AOT autograd does
_STATE_CHANGERS = frozenset({"_set_grad_enabled", "_enter_autocast", "_exit_autocast", "_enter_inference_mode",
                             "_exit_inference_mode", "set_grad_enabled"})


def lower_with_aot_autograd(gm, real_inputs: list, opts: "BackendOptions", started: float):
    """AOT autograd lowers the graph to a functional ATen graph; its forward is converted, its
    backward (when gradients are needed) runs in PyTorch."""
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_func

    def forward_compiler(aten_gm, fake_inputs):
        from torch._guards import TracingContext
        context = TracingContext.try_get()
        metadata = context.fw_metadata if context else None
        static = set(metadata.static_input_indices) if metadata else set()
        # a buffer the model writes (BatchNorm statistics in training) is an input like any other
        static -= {i for i, info in enumerate(metadata.input_info if metadata else []) if info.mutates_data}
        log.info("mo: graph lowered to %d ATen nodes by AOT autograd in %.2f s", len(aten_gm.graph.nodes),
                 time.perf_counter() - started)
        return make_boxed_func(_compile_real(aten_gm, real_inputs, static, opts).forward)

    def backward_compiler(aten_gm, fake_inputs):   # gradients are computed by PyTorch
        return make_boxed_func(aten_gm.forward)

    return aot_autograd(fw_compiler=forward_compiler, bw_compiler=backward_compiler,
                        decompositions=dict(decompositions()))(gm, real_inputs)


def frozen_inputs(aten_gm, real_inputs: list, static: set) -> dict:
    """Placeholder name -> tensor for the static inputs (parameters, buffers) of the ATen graph
    whose real value is known and matches the placeholder."""
    placeholders = [n for n in aten_gm.graph.nodes if n.op == "placeholder"]
    frozen = {}
    if len(placeholders) != len(real_inputs):
        return frozen
    for i, node in enumerate(placeholders):
        value, val = real_inputs[i], node.meta.get("val")
        if i in static and hasattr(value, "dtype") and hasattr(val, "dtype") and value.dtype == val.dtype \
                and tuple(value.shape) == tuple(val.shape) and value.device.type == "cpu":
            frozen[node.name] = value
    return frozen


def restore_linear(aten_gm) -> None:
    """``addmm(bias, x, t(w))`` and ``mm(x, t(w))`` of a weight ``w`` (what AOT autograd makes of
    torch.nn.Linear) become ``linear(x, w, bias)`` again: the IR then multiplies by the weight as
    it is stored (MatMul transpose_b) instead of holding a transposed copy of it."""
    import torch
    aten = torch.ops.aten
    for node in list(aten_gm.graph.nodes):
        if node.op != "call_function" or node.target not in (aten.addmm.default, aten.mm.default) or node.kwargs:
            continue
        transposed = node.args[-1]
        if getattr(transposed, "target", None) is not aten.t.default or transposed.args[0].op != "placeholder":
            continue
        bias = [node.args[0]] if node.target is aten.addmm.default else []
        with aten_gm.graph.inserting_before(node):
            linear = aten_gm.graph.call_function(aten.linear.default, (node.args[-2], transposed.args[0], *bias))
        linear.meta = dict(node.meta)
        node.replace_all_uses_with(linear)
        aten_gm.graph.erase_node(node)
    aten_gm.graph.eliminate_dead_code()
    aten_gm.recompile()


def compile_aten(aten_gm, frozen: dict, opts: BackendOptions):
    """The ATen graph (a GraphModule) with its supported parts replaced by OpenVINO calls."""
    from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
    from torch.fx.passes.operator_support import OperatorSupport

    restore_linear(aten_gm)

    reasons: dict = {}

    class Support(OperatorSupport):
        def is_node_supported(self, submodules, node) -> bool:
            reason = unsupported_reason(node)
            if reason is not None:
                reasons[node.name] = reason
            return reason is None

    partitioner = CapabilityBasedPartitioner(aten_gm, Support(), allows_single_node_partition=True)
    partitions = partitioner.propose_partitions()
    fallen = Counter(f"{_describe(n)} ({reasons[n.name]})" for n in aten_gm.graph.nodes
                     if n.op == "call_function" and n.name in reasons)
    if fallen:
        if not opts.fallback:
            raise ConversionError("torch.compile backend 'mo' (fallback=False): cannot convert "
                                  + "; ".join(sorted(fallen)))
        log.info("mo: %d operation(s) stay in PyTorch: %s", sum(fallen.values()),
                 ", ".join(f"{k} x{v}" for k, v in sorted(fallen.items())))
    fused = partitioner.fuse_partitions(partitions)
    calls = [n for n in fused.graph.nodes if n.op == "call_module"]
    for call in calls:
        sub = fused.get_submodule(call.target)
        sub_frozen = {}
        placeholders = [n for n in sub.graph.nodes if n.op == "placeholder"]
        for arg, ph in zip(call.args, placeholders):
            if getattr(arg, "op", None) == "placeholder" and arg.name in frozen:
                sub_frozen[ph.name] = frozen[arg.name]
        part = convert_part(sub, sub_frozen, call.target, opts)
        if part is not None:
            part.install(sub)
    fused.recompile()
    return fused


def _describe(node) -> str:
    return aten_name(node.target) or getattr(node.target, "__name__", str(node.target))


def convert_part(sub, frozen: dict, name: str, opts: BackendOptions):
    """The OpenVINO module replacing submodule ``sub``, or None when it stays in PyTorch."""
    from extensions.load.pytorch.torch_compile.runtime import OpenVINOPart
    ops = Counter(_describe(n) for n in sub.graph.nodes if n.op == "call_function")
    started = time.perf_counter()
    try:
        if opts.cache_dir:
            folder = os.path.join(opts.cache_dir, part_key(sub, frozen, opts))
            xml = os.path.join(folder, "part.xml")
            if os.path.exists(xml):
                part = OpenVINOPart(sub, frozen, xml, opts)
                log.info("mo: %s (%d operations) loaded from the cache %s and compiled in %.2f s", name,
                         sum(ops.values()), folder, time.perf_counter() - started)
                return part
            convert_to(sub, frozen, folder, opts)
            part = OpenVINOPart(sub, frozen, xml, opts)
        else:     # the IR goes to OpenVINO in memory: no files written and read back
            part = OpenVINOPart(sub, frozen, convert_to(sub, frozen, None, opts), opts)
    except Exception as e:   # a refused model, a converter bug or an IR the device cannot compile
        if not opts.fallback:
            raise
        what = "mo cannot convert it" if isinstance(e, ConversionError) else f"{type(e).__name__}"
        log.warning("mo: %s stays in PyTorch: %s (%s)", name, what, e)
        return None
    log.info("mo: %s converted and compiled for %s (inference precision %s) in %.2f s: %s", name, opts.device,
             part.compiled.get_property("INFERENCE_PRECISION_HINT").to_string(), time.perf_counter() - started,
             ", ".join(f"{k} x{v}" for k, v in sorted(ops.items())))
    return part


def convert_to(sub, frozen: dict, folder: str | None, opts: BackendOptions):
    """Convert the submodule with mo's pipeline: into ``folder/part.xml`` (returns the xml path),
    or, with no folder, in memory (returns the ``IRModel``)."""
    from extensions.load.pytorch.fx_module import FxModule
    from mo import convert_model
    result = convert_model(FxModule(sub, frozen, "part"), framework="pytorch", output_dir=folder,
                           model_name="part", compress_to_fp16=opts.compress_to_fp16)
    return result if folder is None else result.xml


def part_key(sub, frozen: dict, opts: BackendOptions) -> str:
    """A digest of the submodule's code, the signature of its inputs and its frozen weights and
    constants."""
    from extensions.load.pytorch.exported import module_attribute
    from mo.version import VERSION
    digest = hashlib.sha256(f"mo {VERSION} fp16={opts.compress_to_fp16}\n{sub.code}".encode())
    for node in sub.graph.nodes:
        if node.op == "placeholder":
            val = node.meta.get("val")
            digest.update(f"{node.name}:{getattr(val, 'dtype', type(val).__name__)}:{_signature(val)}:"
                          f"{node.name in frozen}\n".encode())
            _hash_tensor(digest, frozen.get(node.name))
        elif node.op == "get_attr":
            _hash_tensor(digest, module_attribute(sub, node.target))
    return digest.hexdigest()[:32]


def _hash_tensor(digest, tensor) -> None:
    import torch
    if not isinstance(tensor, torch.Tensor):
        return
    data = tensor.detach().contiguous().view(-1)
    digest.update(f"{data.dtype}:{tuple(tensor.shape)}\n".encode())
    if data.numel():
        digest.update(data.view(torch.uint8).numpy())


def _signature(val) -> str:
    from extensions.load.pytorch.exported import shape_of
    shape = shape_of(val)
    return "scalar" if shape is None else str(shape)
