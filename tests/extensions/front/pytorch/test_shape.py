"""Layer tests of the ATen lowerings that rearrange tensors."""
import pytest
import torch
import torch.nn.functional as F

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)
X = torch.randn(2, 3, 4, 6)


class Views(torch.nn.Module):
    def forward(self, x):
        b = x.size(0)
        return x.view(b, -1), x.reshape(2, 3, 24), x.flatten(1), x.flatten(1, 2), x.flatten(), \
            x.unflatten(3, (2, 3)), x.view_as(torch.zeros(6, 4, 6)), x.permute(0, 2, 3, 1), x.transpose(-1, -2), \
            x[0, 0].t(), torch.movedim(x, 1, -1), x.contiguous().view(b, 3, -1).shape[-1] * x.mean()


class Squeezes(torch.nn.Module):
    def forward(self, x):
        y = x[:, :1]
        return y.squeeze(1), y.squeeze(), x.squeeze(1), y.squeeze(-3), x.unsqueeze(0), x.unsqueeze(-1), \
            x.unsqueeze(2).expand(2, 3, 5, 4, 6), y.expand(-1, 4, -1, -1), y.expand_as(x), x.repeat(1, 2, 1, 1), \
            x.repeat(2, 1, 1, 1, 1), torch.tile(x, (2,)), x.repeat_interleave(2, dim=1), x[0, 0].broadcast_to(3, 4, 6)


class Joins(torch.nn.Module):
    def forward(self, x, i):
        a, b, c = x.split([1, 1, 1], dim=1)
        d, e = x.chunk(2, dim=-1)
        f = x.split(4, dim=3)
        parts = x.unbind(1)
        return torch.cat([a, b, c], 1), torch.cat((x, i.float()), dim=-1), torch.stack([d, e], 0), \
            torch.stack(parts, -1), f[0] + 1, f[1] * 2, torch.cat([x, i], 1), parts[2]


class Moves(torch.nn.Module):
    def forward(self, x):
        return torch.flip(x, [1, -1]), torch.roll(x, 2, 3), torch.roll(x, (1, -1), (1, 2)), torch.roll(x, 5), \
            x.narrow(2, 1, 2), torch.tril(x), torch.triu(x, 1), torch.tril(x[0, 0], -1), \
            F.pixel_shuffle(torch.arange(2 * 8 * 2 * 3, dtype=torch.float32).view(2, 8, 2, 3), 2) + x.sum(), \
            F.pixel_unshuffle(x, 2), torch.diff(x, dim=1), torch.diff(x, n=2, prepend=x[..., :1]), \
            *torch.meshgrid(torch.arange(3.0), x[0, 0, 0], indexing="ij"), \
            *torch.meshgrid(x[0, :, 0, 0], x[0, 0, 0, :3], indexing="xy"), F.channel_shuffle(x.transpose(1, 3), 2)


class Aliases(torch.nn.Module):
    def forward(self, x):
        return x[0, 0].T, torch.swapaxes(x, 0, 2), torch.moveaxis(x, (0, 1), (2, 3)), \
            *torch.unsafe_split(x, 2, 3), *torch.unsafe_chunk(x, 3, 1), *x.split_with_sizes([1, 2], 1), \
            x.reshape(-1).repeat_interleave(3), torch.cat([x[0, 0]]), torch.stack([x[0, 0]], 1)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("module, inputs", [
    (Views(), (X,)), (Squeezes(), (X,)), (Joins(), (X, torch.ones(2, 3, 4, 6, dtype=torch.int32))), (Moves(), (X,)),
    (Aliases(), (X,))],
    ids=["views", "squeeze", "joins", "moves", "aliases"])
def test_shape(module, inputs, path, tmp_path):
    check_module(module, inputs, tmp_path, path)


class CopyViews(torch.nn.Module):
    """The *_copy forms of the view ops (exported programs of functionalized graphs use them)."""

    def forward(self, x):
        aten = torch.ops.aten
        return aten.view_copy(x, [2, -1]), aten.permute_copy(x, [3, 0, 2, 1]), aten.select_copy(x, 1, -1), \
            aten.slice_copy(x, 3, 1, 5, 2), aten.squeeze_copy(x[:, :1], [1]), aten.unsqueeze_copy(x, 2), \
            aten.expand_copy(x[:, :1], [2, 3, 4, 6]), *aten.split_with_sizes_copy(x, [1, 2], 1), \
            aten._unsafe_index(x, [None, torch.tensor([2, 0])]), aten.alias_copy(x), \
            aten._unsafe_index(x, [None, None, torch.tensor([[3], [0], [1]]), torch.tensor([5, 0, 2, 2])])


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
@pytest.mark.parametrize("path", PATHS)
def test_copy_views(path, dtype, tmp_path):
    check_module(CopyViews(), ((X * 3).to(dtype),), tmp_path, path)


class PixelShuffles(torch.nn.Module):
    def forward(self, x):
        return F.pixel_shuffle(x, 2), F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2), F.pixel_shuffle(x[0], 2), \
            F.pixel_shuffle(x[0, 0], 2), F.pixel_unshuffle(x[0, 0], 2)


@pytest.mark.parametrize("shape", [(2, 3, 8, 4, 6), (1, 2, 2, 4, 8, 6, 4)], ids=["rank5", "rank7"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
@pytest.mark.parametrize("path", PATHS)
def test_pixel_shuffle_batch_dims(path, dtype, shape, tmp_path):
    """pixel_shuffle of [..., C, H, W] with any number of leading dims (was refused above rank 4)."""
    check_module(PixelShuffles(), ((torch.randn(shape) * 9).to(dtype),), tmp_path, path)


class ByteViews(torch.nn.Module):
    def forward(self, x, y):
        return x.view(torch.int8), x.view(torch.uint8), y.view(torch.uint8), y.view(torch.bool), \
            (y > 0).view(torch.int8), x.view(torch.bool)


def test_dtype_view(tmp_path):
    """x.view(dtype) among one-byte types reads the same bytes (torch.jit.trace cannot record a
    dtype view, so only the export path)."""
    x = torch.tensor([0, 1, 127, 128, 200, 255], dtype=torch.uint8)
    y = torch.tensor([0, 1, -1, -128, 127, 1], dtype=torch.int8)
    check_module(ByteViews(), (x, y), tmp_path, "export")


class BitCast(torch.nn.Module):
    def forward(self, x):
        return x.view(torch.int64)


def test_dtype_view_bitcast_refused(tmp_path):
    """A view that reinterprets float bits is refused clearly (it was read as a reshape)."""
    from mo.errors import ConversionError
    with pytest.raises(ConversionError, match="no bit-cast"):
        check_module(BitCast(), (torch.randn(2, 4).double(),), tmp_path, "export")


class Stacks(torch.nn.Module):
    def forward(self, x, v, i):
        return torch.hstack([x, x * 2]), torch.hstack([v, i, v]), torch.vstack([x, v[:4]]), torch.vstack([v, i]), \
            torch.vstack([x]), torch.hstack([x[0, 0], v]), torch.vstack([x[0, 0], x[0, 1]]), torch.row_stack([x, x])


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bool])
@pytest.mark.parametrize("path", PATHS)
def test_stacks(path, dtype, tmp_path):
    check_module(Stacks(), ((torch.randn(3, 4) * 3).to(dtype), (torch.randn(5) * 3).to(dtype), torch.arange(5)),
                 tmp_path, path)


class Flips(torch.nn.Module):
    def forward(self, x):
        return tuple(torch.flip(x, dims) for dims in ([0], [1], [-1], [1, 2], [2, 3], [1, 2, 3], [3, 0], [-1, -3]))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.uint8])
@pytest.mark.parametrize("path", PATHS)
def test_flip_dims(path, dtype, tmp_path):
    check_module(Flips(), ((torch.randn(2, 3, 4, 5) * 9).to(dtype),), tmp_path, path)


class Broadcasts(torch.nn.Module):
    """broadcast_tensors, and tensor_split by sections, by indices (also as a tensor), hsplit /
    vsplit / dsplit (issue 21: tensor_split had regressed to unsupported)."""

    def forward(self, x, y, indices):
        a, b = torch.broadcast_tensors(x, y)
        return a, b, *torch.tensor_split(x, 4, dim=3), *torch.tensor_split(x, [1, 4], dim=-1), \
            *torch.tensor_split(x, (2, 1, 9), dim=2), *torch.tensor_split(x, indices, dim=3), \
            *torch.hsplit(x, 3), *torch.vsplit(x, [1]), *torch.dsplit(x, 2)


@pytest.mark.parametrize("path", PATHS)
def test_broadcast_tensors_and_tensor_split(path, tmp_path):
    check_module(Broadcasts(), (X, torch.randn(4, 1), torch.tensor([2, 5])), tmp_path, path)


class Rotations(torch.nn.Module):
    def forward(self, x):
        return torch.rot90(x, 1, (2, 3)), torch.rot90(x, 2, (1, 2)), torch.rot90(x, -1, (3, 2)), \
            torch.rot90(x, 4, (0, 1)), torch.rot90(x, 3, (0, 3)), torch.fliplr(x), torch.flipud(x)


@pytest.mark.parametrize("path", PATHS)
def test_rot90(path, tmp_path):
    check_module(Rotations(), (X,), tmp_path, path)


class PerElementRepeats(torch.nn.Module):
    """repeat_interleave with a repeat count per element (a constant list or tensor, or an
    input) and repeat_interleave(repeats) alone."""

    def forward(self, x, repeats):
        return x.repeat_interleave(torch.tensor([1, 0, 3]), dim=1), x.repeat_interleave(repeats, dim=2), \
            torch.repeat_interleave(repeats), x[0, 0, 0].repeat_interleave(torch.tensor([2, 1, 1, 0, 2, 1]))


@pytest.mark.parametrize("path", PATHS)
def test_repeat_interleave_per_element(path, tmp_path):
    check_module(PerElementRepeats(), (X, torch.tensor([2, 0, 1, 3])), tmp_path, path)


class Diagonals(torch.nn.Module):
    def forward(self, x, v):
        return torch.diagonal(x, 1, 2, 3), torch.diagonal(x, -2, 3, 1), torch.linalg.diagonal(x), torch.diag(v), \
            torch.diag(v, -2), torch.diag(x[0, 0], 1), torch.diag_embed(x[0], 1, 0, 2), \
            torch.diagflat(x[0, 0, :2], -1), \
            torch.atleast_3d(v), torch.atleast_2d(x[0, 0, 0, 0]), torch.column_stack([v, v]), torch.dstack([v, v]), \
            torch.ravel(x), x.mT, torch.block_diag(v[:2], x[0, 0], torch.tensor(7.0)), \
            torch.cartesian_prod(v[:2], v[2:]), torch.combinations(v, 2)


@pytest.mark.parametrize("path", PATHS)
def test_diagonals_and_stacks(path, tmp_path):
    check_module(Diagonals(), (X, torch.randn(5)), tmp_path, path)


class DiagonalScatter(torch.nn.Module):
    """diagonal_scatter on the main, an upper and a lower diagonal, of other dims (reversed), and
    of booleans."""

    def forward(self, x, v, w):
        return torch.diagonal_scatter(x[0, 0], v[:4]), torch.diagonal_scatter(x[0, 0], v[1:], 1), \
            torch.diagonal_scatter(x[0, 0], v[:2], -2), \
            torch.diagonal_scatter(x, torch.diagonal(x, -1, 3, 1) * 2, -1, 3, 1), \
            torch.diagonal_scatter(x[0, 0] > 0, w)


@pytest.mark.parametrize("path", PATHS)
def test_diagonal_scatter(path, tmp_path):
    check_module(DiagonalScatter(), (X, torch.randn(5), torch.tensor([True, False, True, False])), tmp_path, path)


class Gradients(torch.nn.Module):
    def forward(self, x):
        return *torch.gradient(x), *torch.gradient(x, spacing=2.0, dim=1, edge_order=2), \
            *torch.gradient(x, spacing=[0.5, 3.0], dim=[0, 3])


class GradientsAt(torch.nn.Module):
    def forward(self, x, t):
        return *torch.gradient(x, spacing=(t,), dim=1), *torch.gradient(x, spacing=(t,), dim=1, edge_order=2)


@pytest.mark.parametrize("module, inputs", [(Gradients(), (X,)),
                                            (GradientsAt(), (X[0, 0], torch.tensor([0.0, 0.5, 2.0, 2.5, 4.0, 7.0])))],
                         ids=["spacing", "coordinates"])
def test_gradient(module, inputs, tmp_path):
    """torch.gradient (aten::gradient in exported programs; torch.jit.trace cannot record it: it
    returns a list)."""
    check_module(module, inputs, tmp_path, "export")
