"""Quantized PyTorch values as the loader sees them (eager-mode ``torch.ao.quantization`` models).

* A quantized tensor (qint8 / quint8 / qint32, e.g. the weight of a quantized Linear) becomes
  the ATen call that makes it from its integer values: ``_make_per_tensor_quantized_tensor`` or
  ``_make_per_channel_quantized_tensor`` of a u8 / i8 / i32 Const, so the IR keeps the integers
  and dequantizes them at run time (``extensions/front/pytorch/quantized.py``).
* The packed parameters of ``quantized::linear`` / ``conv*d`` (a TorchScript object) are unpacked
  into their weight, bias and convolution attributes: those ops get one argument each instead.
* In the graph a quantized tensor is its dequantized float value (the value on the quantization
  grid); ``builder.call`` records the quantized type a node's outputs have (``quant_dtype``,
  from the quantize call or the inputs) for the translators that requantize.
"""
from __future__ import annotations

from typing import Any

from extensions.load.pytorch.schema import ArgSpec, synthetic
from mo.errors import InputModelError
from mo.graph.node import Node

# quantized torch dtype name -> (smallest, largest) integer value
QUANT_RANGES = {"quint8": (0, 255), "qint8": (-128, 127), "qint32": (-2 ** 31, 2 ** 31 - 1)}
# the integer type of each quantized type's values
_INT_TYPES = {"torch.uint8": "quint8", "torch.int8": "qint8", "torch.int32": "qint32"}

# ops that make a quantized tensor of the type their ``dtype`` argument names
QUANTIZERS = frozenset({"aten::quantize_per_tensor", "aten::quantize_per_channel"})
# ops whose result is a plain (float or integer) tensor even of a quantized input
DEQUANTIZERS = frozenset({"aten::dequantize", "aten::int_repr", "aten::q_scale", "aten::q_zero_point",
                          "aten::q_per_channel_scales", "aten::q_per_channel_zero_points", "aten::size",
                          "quantized::linear_dynamic", "quantized::linear_relu_dynamic",
                          "quantized::linear_dynamic_fp16",
                          "quantized::linear_relu_dynamic_fp16", "aten::dim", "aten::numel"})


def is_quantized(tensor) -> bool:
    return bool(getattr(tensor, "is_quantized", False))


def quantized_call(tensor) -> tuple[str, tuple[ArgSpec, ...], list]:
    """(ATen op, specs, argument values) that make the quantized torch ``tensor`` from its
    integers. Every tensor is a copy: unpacked parameters may point into memory of packed ones,
    which go with the module once it is loaded."""
    import torch
    ints = tensor.int_repr().clone()
    scheme = tensor.qscheme()
    if scheme in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        return ("aten::_make_per_tensor_quantized_tensor",
                synthetic("Tensor self", "float scale", "int zero_point"),
                [ints, float(tensor.q_scale()), int(tensor.q_zero_point())])
    if scheme in (torch.per_channel_affine, torch.per_channel_symmetric, torch.per_channel_affine_float_qparams):
        axis = int(tensor.q_per_channel_axis())
        return ("aten::_make_per_channel_quantized_tensor",
                synthetic("Tensor self", "Tensor scale", "Tensor zero_point", "int axis"),
                [ints, tensor.q_per_channel_scales().float().clone(), tensor.q_per_channel_zero_points().clone(),
                 axis])
    raise InputModelError(f"A quantized tensor with the quantization scheme {scheme} cannot be converted; only "
                          f"per-tensor and per-channel affine quantization are supported.")


def quant_dtype_of_ints(tensor) -> str | None:
    """The quantized type a tensor of integers stands for (u8: quint8...)."""
    return _INT_TYPES.get(str(tensor.dtype))


def _is_script_object(value: Any) -> bool:
    return type(value).__name__ == "ScriptObject"


def _copy(tensor):
    """A tensor of its own (what packed parameters give may point into their memory)."""
    return None if tensor is None else tensor.clone()


def _squeezed(tensor, dim: int):
    """A quantized tensor without its unit dimension ``dim``."""
    import torch
    if tensor.qscheme() not in (torch.per_channel_affine, torch.per_channel_symmetric):
        return tensor.squeeze(dim)
    axis = int(tensor.q_per_channel_axis())
    return torch._make_per_channel_quantized_tensor(tensor.int_repr().squeeze(dim), tensor.q_per_channel_scales(),
                                                    tensor.q_per_channel_zero_points(),
                                                    axis - 1 if axis > dim else axis)


_CONV_SPECS = synthetic("Tensor weight", "Optional[Tensor] bias", "List[int] stride", "List[int] padding",
                        "List[int] dilation", "int groups", "bool transposed", "List[int] output_padding")


def _unpack(kind: str, packed) -> tuple[tuple[ArgSpec, ...], list]:
    """Specs and values of what a packed-parameters object holds."""
    import torch
    cls = packed._type().qualified_name().rsplit(".", 1)[-1]
    if cls == "LinearPackedParamsBase":
        if kind.endswith("_fp16"):     # dynamic quantization to float16: float16 values unpacked as float32
            weight, bias = torch.ops.quantized.linear_unpack_fp16(packed)
            weight = weight.half()
        else:
            weight, bias = torch.ops.quantized.linear_unpack(packed)
        return synthetic("Tensor weight", "Optional[Tensor] bias"), [weight, _copy(bias)]
    if cls == "EmbeddingPackedParamsBase":
        weight = torch.ops.quantized.embedding_bag_unpack(packed)
        if str(weight.dtype) != "torch.quint8":
            raise InputModelError(f"'{kind}' with {weight.dtype} weights is not supported (only 8-bit ones).")
        return synthetic("Tensor weight"), [weight]
    if cls in ("Conv2dPackedParamsBase", "Conv3dPackedParamsBase"):
        weight, bias = packed.unpack()
        attrs = [list(packed.stride()), list(packed.padding()), list(packed.dilation())]
        out_pad = list(packed.output_padding())
        if "1d" in kind:     # conv1d is packed as a conv2d over a unit height
            attrs = [v[1:] for v in attrs]
            out_pad = out_pad[1:]
            weight = _squeezed(weight, 2)
        return _CONV_SPECS, [weight, _copy(bias), *attrs, int(packed.groups()), bool(packed.transpose()), out_pad]
    raise InputModelError(f"'{kind}' takes packed parameters of class {cls}, which the converter cannot read.")


def expand_packed(kind: str, specs: tuple[ArgSpec, ...], values: list) -> tuple[tuple[ArgSpec, ...], list]:
    """The arguments of a ``quantized::`` op with its packed-parameters argument replaced by the
    weight, bias (and convolution attributes) it holds; other ops' arguments as they are."""
    if not any(_is_script_object(v) for v in values):
        return specs, values
    out_specs: list[ArgSpec] = []
    out_values: list = []
    for spec, value in zip(specs, values):
        if _is_script_object(value):
            more_specs, more_values = _unpack(kind, value)
            out_specs.extend(more_specs)
            out_values.extend(more_values)
        else:
            out_specs.append(spec)
            out_values.append(value)
    return tuple(out_specs), out_values


# ATen ops whose quantized kernels compute new values (averages, interpolations) and round them
# onto their input's grid: the float translation is quantized again with the input's parameters
AVERAGING = frozenset({"aten::adaptive_avg_pool1d", "aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool3d",
                       "aten::avg_pool1d", "aten::avg_pool2d", "aten::avg_pool3d", "aten::mean",
                       "aten::upsample_bilinear2d", "aten::upsample_bicubic2d", "aten::upsample_linear1d",
                       "aten::upsample_trilinear3d"})
# ops that move values of a grid without leaving it
_ON_GRID = frozenset({"Reshape", "Squeeze", "Unsqueeze", "Transpose", "ReLU", "MaxPool"})


def input_grid(node) -> Node | None:
    """The FakeQuantize (constant ranges) that put input 0 of ``node`` on its grid, found through
    ops that keep values on it; None when there is none."""
    port = node.in_port(0).get_source() if node.is_in_port_connected(0) else None
    while port is not None and port.node.op in _ON_GRID:
        port = port.node.in_port(0).get_source()
    if port is None or port.node.op != "FakeQuantize":
        return None
    fq = port.node
    return fq if all(fq.in_value(i) is not None for i in (3, 4)) else None


def requantize_like_input(node, b, outputs: list) -> list:
    """The float outputs of a quantized averaging op rounded onto its input's grid, as PyTorch's
    quantized kernel gives them."""
    fq = input_grid(node)
    if fq is None:
        return outputs
    low, high = fq.in_port(3).get_source(), fq.in_port(4).get_source()
    return [y if y is None or y.data.get_dtype() != low.data.get_dtype()
            else b.FakeQuantize(y, low, high, low, high, levels=int(fq.levels)) for y in outputs]
