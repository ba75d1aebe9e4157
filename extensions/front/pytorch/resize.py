"""ATen resizes (upsample_* as Interpolate-11 on the spatial axes), paddings (pad /
constant_pad_nd / reflection_pad* / replication_pad*; circular as slices and Concat), grid
sampling and affine_grid_generator: their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, int_list_port, rank_of
from extensions.front.pytorch.shape import sliced
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import INT64_MAX, i64
from mo.graph.port import Port
from mo.utils.types import np_dtype

# ---------------------------------------------------------------------------- upsample


def _scales(a, n: int) -> list[float] | None:
    """The scale factors of the spatial dims, when the arguments give them."""
    if a.has("scale_factors"):
        value = a.const("scale_factors", None)
        if value is None:
            return None
        value = [float(v) for v in np.atleast_1d(value)]
        return value * n if len(value) == 1 else value
    names = [k for k in ("scales", "scales_d", "scales_h", "scales_w") if a.has(k)]
    values = [a.const(k, None) for k in names]
    if names and all(v is not None for v in values):
        return [float(v) for v in values]
    return None


def _interpolate(node, a, b, mode: str, **attrs):
    """Interpolate-11 of the spatial axes to ``output_size`` or by ``scale_factors``."""
    x = a.tensor(0)
    rank = rank_of(x, node)
    axes = np.arange(2, rank, dtype=np.int64)
    attrs = {"antialias": False, "cube_coeff": -0.75, "nearest_mode": "floor",
             "coordinate_transformation_mode": "asymmetric", **attrs}
    scales = _scales(a, rank - 2)
    if scales is not None:
        return [b.Interpolate(x, np.array(scales, np.float32), axes, mode=mode, shape_calculation_mode="scales",
                              **attrs)]
    size = a.int_list("output_size")
    if size is None:
        raise ConversionError("Neither output_size nor scale_factors is given.")
    return [b.Interpolate(x, int_list_port(b, size), axes, mode=mode, shape_calculation_mode="sizes", **attrs)]


def _corners(a) -> str:
    return "align_corners" if a.const("align_corners", False) else "pytorch_half_pixel"


@aten("aten::upsample_nearest1d", "aten::upsample_nearest2d", "aten::upsample_nearest3d")
def upsample_nearest(node, a, b):
    """Nearest: the source pixel is floor(dst * in / out)."""
    return _interpolate(node, a, b, "nearest")


@aten("aten::_upsample_nearest_exact1d", "aten::_upsample_nearest_exact2d", "aten::_upsample_nearest_exact3d")
def upsample_nearest_exact(node, a, b):
    """Nearest-exact: half-pixel coordinates, rounded."""
    return _interpolate(node, a, b, "nearest", nearest_mode="round_prefer_ceil",
                        coordinate_transformation_mode="half_pixel")


@aten("aten::upsample_linear1d", "aten::upsample_bilinear2d", "aten::upsample_trilinear3d")
def upsample_linear(node, a, b):
    """(Bi-, tri-)linear with half-pixel or align-corners coordinates."""
    mode = "linear" if rank_of(a.tensor(0), node) == 3 else "linear_onnx"
    return _interpolate(node, a, b, mode, coordinate_transformation_mode=_corners(a))


@aten("aten::upsample_bicubic2d")
def upsample_bicubic(node, a, b):
    """Bicubic (A = -0.75) with half-pixel or align-corners coordinates."""
    return _interpolate(node, a, b, "cubic", coordinate_transformation_mode=_corners(a))


@aten("aten::_upsample_bilinear2d_aa", "aten::_upsample_bicubic2d_aa")
def upsample_antialiased(node, a, b):
    """Antialiased bilinear / bicubic (interpolate(antialias=True)): the Pillow filters of
    Interpolate-11 (bicubic with A = -0.5), whose support grows with the downscaling factor. They
    place samples at pixel centres, so the align_corners form has no OpenVINO equivalent; their
    filter follows input size / output size, so a scale factor must be exactly that ratio."""
    if a.const("align_corners", False):
        raise ConversionError("Antialiased interpolation with align_corners=True cannot be expressed: OpenVINO's "
                              "antialiasing (Pillow) filters place samples at pixel centres (align_corners=False).")
    scales = _scales(a, 2)
    shape = a.tensor(0).data.get_shape()
    for scale, size in zip(scales or (), (shape or (-1, -1, -1, -1))[2:]):
        if size > 0 and abs(np.floor(size * scale + 1e-5) / size - scale) > 1e-6 * scale:
            raise ConversionError(
                f"Antialiased interpolation by scale_factor {scale:g} of a dim of {size}: PyTorch's filter follows "
                f"1 / scale_factor, OpenVINO's follows input size / output size ({size} / "
                f"{int(np.floor(size * scale + 1e-5))}). Give size=... or recompute_scale_factor=True instead.")
    mode = "bilinear_pillow" if "bilinear" in node.fw_op else "bicubic_pillow"
    return _interpolate(node, a, b, mode, cube_coeff=-0.5, coordinate_transformation_mode="pytorch_half_pixel")


# ---------------------------------------------------------------------------- padding


def _pads(node, a, x, b=None) -> tuple[list[int], list[int]]:
    """Pads given PyTorch's way (last dim first, [begin, end] pairs) as pads_begin, pads_end;
    pads the model computes (with ``b``) as 1-D i64 tensors."""
    rank = rank_of(x, node)
    items = a.int_list(1)
    if b is not None and any(isinstance(p, Port) for p in items):
        return _computed_pads(b, items, rank)
    pads = [int(p) for p in a.const(1)]
    if len(pads) % 2 or len(pads) // 2 > rank:
        raise ConversionError(f"Padding {pads} does not fit a rank-{rank} tensor.")
    begin, end = [0] * rank, [0] * rank
    for i in range(len(pads) // 2):
        begin[rank - 1 - i], end[rank - 1 - i] = pads[2 * i], pads[2 * i + 1]
    return begin, end


def _computed_pads(b, items: list, rank: int) -> tuple[Port, Port]:
    """pads_begin, pads_end of pads [last_begin, last_end, ...] of which some are computed."""
    if len(items) % 2 or len(items) // 2 > rank:
        raise ConversionError(f"Padding of {len(items)} values does not fit a rank-{rank} tensor.")
    pairs = b.Reshape(int_list_port(b, items), i64(-1, 2), special_zero=False)      # [k, 2], last dim first
    pairs = b.Concat(pairs, np.zeros((rank - len(items) // 2, 2), np.int64), axis=0) if 2 * rank > len(items) \
        else pairs
    reordered = b.Gather(pairs, np.arange(rank - 1, -1, -1, dtype=np.int64), np.int64(0))
    return b.Gather(reordered, np.int64(0), np.int64(1)), b.Gather(reordered, np.int64(1), np.int64(1))


def _pad(node, a, b, mode: str, value=0):
    """Pad in ``mode`` (negative pads crop); circular as slices of the other end and Concat."""
    x = a.tensor(0)
    begin, end = _pads(node, a, x, b if mode != "circular" else None)
    if mode == "circular":
        return [_circular(b, x, begin, end)]
    inputs = [x, *(p if isinstance(p, Port) else i64(p) for p in (begin, end))]
    if mode == "constant":
        inputs.append(const(b, 0 if value is None else value, x.data.get_dtype()))
    return [b.Pad(*inputs, pad_mode=mode)]


def _circular(b, x, begin, end):
    y = x
    for axis, (pb, pe) in enumerate(zip(begin, end)):
        if not pb and not pe:
            continue
        if pb < 0 or pe < 0:
            raise ConversionError("Circular padding that crops is not supported.")
        parts = ([sliced(b, y, axis, -pb, INT64_MAX)] if pb else []) + [y] + ([sliced(b, y, axis, 0, pe)] if pe else [])
        y = b.Concat(*parts, axis=axis)
    return y


_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "circular"}


@aten("aten::pad")
def pad(node, a, b):
    """pad(input, pad, mode, value): constant, reflect, replicate or circular."""
    mode = a.const("mode", "constant")
    if mode not in _MODES:
        raise ConversionError(f"Padding mode {mode!r} is not supported.")
    return _pad(node, a, b, _MODES[mode], a.const("value", 0))


@aten("aten::constant_pad_nd")
def constant_pad_nd(node, a, b):
    """constant_pad_nd(input, pad, value)."""
    return _pad(node, a, b, "constant", a.const("value", 0))


@aten("aten::reflection_pad1d", "aten::reflection_pad2d", "aten::reflection_pad3d")
def reflection_pad(node, a, b):
    return _pad(node, a, b, "reflect")


@aten("aten::replication_pad1d", "aten::replication_pad2d", "aten::replication_pad3d")
def replication_pad(node, a, b):
    return _pad(node, a, b, "edge")


@aten("aten::_pad_circular")
def pad_circular(node, a, b):
    return _pad(node, a, b, "circular")


# ---------------------------------------------------------------------------- grid sampling

_GRID_MODES = ("bilinear", "nearest", "bicubic")
_GRID_PADDINGS = ("zeros", "border", "reflection")


@aten("aten::grid_sampler", "aten::grid_sampler_2d", "aten::grid_sampler_3d")
def grid_sampler(node, a, b):
    """grid_sampler(input [N, C, H, W], grid [N, Ho, Wo, 2], interpolation_mode, padding_mode,
    align_corners) as GridSample-9: modes 0 bilinear, 1 nearest, 2 bicubic; paddings 0 zeros,
    1 border, 2 reflection. Volumetric (5-D) sampling, which GridSample lacks, is gathered (see
    ``_grid_sample_3d``)."""
    x, grid = a.tensor(0), a.tensor(1)
    mode, padding = int(a.const("interpolation_mode")), int(a.const("padding_mode"))
    if mode not in range(3) or padding not in range(3):
        raise ConversionError(f"grid_sample mode {mode} or padding mode {padding} is unknown.")
    if rank_of(x, node) == 5:
        return [_grid_sample_3d(node, b, x, grid, mode, padding, bool(a.const("align_corners")))]
    if rank_of(x, node) != 4:
        raise ConversionError(f"grid_sample of a rank-{x.data.get_rank()} input: it samples 4-D [N, C, H, W] or "
                              f"5-D [N, C, D, H, W] inputs.")
    return [b.GridSample(x, grid, mode=_GRID_MODES[mode], padding_mode=_GRID_PADDINGS[padding],
                         align_corners=bool(a.const("align_corners")))]


def _reflected(b, coord, low2: float, high2: float):
    """A coordinate reflected at the bounds low2 / 2 and high2 / 2 until it lies between them, as
    PyTorch's reflect_coordinates."""
    et = coord.data.get_dtype()
    if low2 == high2:
        return b.Multiply(coord, const(b, 0.0, et))
    low, span = const(b, low2 / 2, et), const(b, (high2 - low2) / 2, et)
    distance = b.Abs(b.Subtract(coord, low))
    extra = b.FloorMod(distance, span)
    flips = b.Floor(b.Divide(distance, span))
    even = b.Equal(b.FloorMod(flips, const(b, 2.0, et)), const(b, 0.0, et))
    return b.Select(even, b.Add(extra, low), b.Add(b.Subtract(span, extra), low))


def _source_index(b, coord, size, static_size: int | None, padding: int, align: bool):
    """A normalized grid coordinate [-1, 1] as a position in the input (PyTorch's
    grid_sampler_compute_source_index): unnormalized, then clipped (border) or reflected
    (reflection) into the input."""
    et = coord.data.get_dtype()
    one, two = const(b, 1.0, et), const(b, 2.0, et)
    if align:
        pos = b.Divide(b.Multiply(b.Add(coord, one), b.Subtract(size, one)), two)
    else:
        pos = b.Divide(b.Subtract(b.Multiply(b.Add(coord, one), size), one), two)
    if padding == 0:
        return pos
    if padding == 2:
        if static_size is None:
            raise ConversionError("grid_sample with reflection padding needs static spatial input dims.")
        pos = _reflected(b, pos, 0.0, 2.0 * (static_size - 1)) if align else \
            _reflected(b, pos, -1.0, 2.0 * static_size - 1)
    return b.Minimum(b.Maximum(pos, const(b, 0.0, et)), b.Subtract(size, one))


def _grid_sample_3d(node, b, x, grid, mode: int, padding: int, align: bool):
    """grid_sampler_3d: x [N, C, D, H, W] sampled at grid [N, Do, Ho, Wo, 3] (x, y, z normalized to
    [-1, 1], x along W): per output point, the values of the nearest input point or of the 8 around
    it (GatherND from x as [N, D, H, W, C]), weighted trilinearly; points outside are 0."""
    if mode not in (0, 1):
        raise ConversionError("grid_sampler_3d takes bilinear or nearest sampling (PyTorch has no 3-D bicubic).")
    et = x.data.get_dtype()
    channels_last = b.Transpose(x, i64([0, 2, 3, 4, 1]))
    shape = x.data.get_shape()
    axes = []       # per grid component x, y, z: (source position, size as int, input axis)
    for k in range(3):
        axis = 4 - k
        size = b.Gather(b.ShapeOf(x), np.int64(axis), np.int64(0))
        static = shape[axis] if shape is not None and shape[axis] >= 0 else None
        coord = b.Gather(grid, np.int64(k), np.int64(-1))
        axes.append((_source_index(b, coord, b.Convert(size, destination_type=et), static, padding, align), size))
    if mode == 1:
        corners = [[(b.Round(pos, mode="half_to_even"), None) for pos, _ in axes]]
    else:
        floors = [b.Floor(pos) for pos, _ in axes]
        corners = []
        for bits in range(8):
            corner = []
            for k, (pos, _) in enumerate(axes):
                low = floors[k]
                if bits >> k & 1:
                    corner.append((b.Add(low, const(b, 1.0, et)), b.Subtract(pos, low)))
                else:
                    corner.append((low, b.Subtract(const(b, 1.0, et), b.Subtract(pos, low))))
            corners.append(corner)
    total = None
    for corner in corners:
        inside, indices, weight = None, [], None
        for (point, w), (_, size) in zip(corner, axes):
            index = b.Convert(point, destination_type="i64")
            ok = b.LogicalAnd(b.GreaterEqual(point, const(b, 0.0, et)),
                              b.Less(point, b.Convert(size, destination_type=et)))
            inside = ok if inside is None else b.LogicalAnd(inside, ok)
            indices.append(b.Unsqueeze(b.Select(ok, index, np.int64(0)), i64([-1])))
            if w is not None:
                weight = w if weight is None else b.Multiply(weight, w)
        weight = b.Select(inside, weight if weight is not None else const(b, 1.0, et), const(b, 0.0, et))
        gathered = b.GatherND(channels_last, b.Concat(*reversed(indices), axis=-1), batch_dims=1)
        term = b.Multiply(gathered, b.Unsqueeze(weight, i64([-1])))
        total = term if total is None else b.Add(total, term)
    return b.Transpose(total, i64([0, 4, 1, 2, 3]))


def _normalized_positions(count: int, align_corners: bool):
    """The normalized coordinates of ``count`` positions along an axis: -1 .. 1 at the
    centres of the end pixels (align_corners) or at their outer edges."""
    if count == 1:
        return np.zeros(1)
    points = np.linspace(-1.0, 1.0, count)
    return points if align_corners else points * (count - 1) / count


@aten("aten::affine_grid_generator")
def affine_grid_generator(node, a, b):
    """affine_grid_generator(theta [N, 2, 3] or [N, 3, 4], size [N, C, (D,) H, W], align_corners):
    the sampling grid [N, (D,) H, W, 2 or 3] of the affine maps theta applied to the normalized
    base grid (x, y(, z), 1) of the output's positions."""
    theta = a.tensor(0)
    et = theta.data.get_dtype()
    size = [int(s) for s in a.int_list("size")]
    if len(size) not in (4, 5):
        raise ConversionError(f"affine_grid_generator makes 2-D or 3-D grids; size {size} has {len(size)} dims.")
    align = bool(a.const("align_corners", False))
    spatial = size[2:]                                       # (D,) H, W
    axes = [_normalized_positions(n, align) for n in reversed(spatial)]     # x, y(, z)
    mesh = np.meshgrid(*axes[::-1], indexing="ij")          # in (D,) H, W order
    base = np.stack(list(mesh[::-1]) + [np.ones(mesh[0].shape)], axis=-1)     # [(D,) H, W, k + 1]
    flat = b.const(base.reshape(-1, base.shape[-1]).astype(np_dtype(et)))
    grid = b.MatMul(flat, theta, transpose_b=True)           # [N, positions, k]
    return [b.Reshape(grid, i64([size[0], *spatial, len(spatial)]), special_zero=False)]
