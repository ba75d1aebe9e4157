"""Layer tests of the ATen indexing lowerings."""
import pytest
import torch
import torch.nn.functional as F

from mo import convert_model
from mo.errors import ConversionError
from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import PATHS, check_module, check_scripted, torch_outputs

torch.manual_seed(0)
X = torch.randn(3, 4, 5)
IDX = torch.tensor([2, 0, 1, 2])


class Slicing(torch.nn.Module):
    def forward(self, x, idx):
        n = x.shape[2]
        return x[1], x[:, 1:3], x[..., ::2], x[:, -1], x[1:, :, 1:n - 1], x[:, None, 2], x[idx], x[:, idx], \
            x[idx, :, idx[:1] + 1], x[:, idx, idx + 1], x[x > 0], x.index_select(2, idx), \
            torch.gather(x, 1, idx[:3].view(3, 1, 1).expand(3, 2, 5)), x[idx[-1]]


class Writes(torch.nn.Module):
    def forward(self, x, idx):
        y = x.clone()
        y[idx[:2]] = 0.5
        y[y > 1] = 1.0
        z = torch.zeros(3, 4, 5).scatter(1, idx[:3].view(3, 1, 1).expand(3, 1, 5), x)
        w = torch.ones(3, 4, 5).scatter_add(2, torch.zeros(3, 4, 2, dtype=torch.long), x[..., :2])
        v = x.index_put((idx[:2],), torch.ones(5), accumulate=True)
        s = torch.slice_scatter(x, torch.zeros(3, 2, 5), dim=1, start=1, end=3)
        t = torch.select_scatter(x, torch.zeros(3, 5), 1, -1)
        r = x.scatter_reduce(2, torch.tensor([[[0, 1, 0, 1, 0]]]).expand(3, 4, 5), x, reduce="amax")
        return y, z, w, v, s, t, r


class MoreWrites(torch.nn.Module):
    def forward(self, x, idx):
        index = idx[:3].view(3, 1, 1).expand(3, 2, 5)
        return torch.zeros(3, 4, 5).scatter(1, index, 2.0), x.scatter(1, index, x, reduce="add"), \
            x.scatter_reduce(1, index, x[:, :3], "sum", include_self=False), \
            x.select(1, idx[3]), torch.select_scatter(x, torch.ones(3, 4), 2, idx[0]), \
            torch.slice_scatter(x, torch.zeros(3, 4, 2), dim=2, start=1, end=5, step=2)


class Lookups(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 4, padding_idx=0)

    def forward(self, ids):
        return self.emb(ids), F.one_hot(ids, 10), F.one_hot(ids), torch.nonzero(ids > 4)


@pytest.mark.parametrize("path", PATHS)
def test_slicing(path, tmp_path):
    check_module(Slicing(), (X, IDX), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_writes(path, tmp_path):
    check_module(Writes(), (X, IDX), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_lookups(path, tmp_path):
    check_module(Lookups(), (torch.tensor([[1, 5, 9], [0, 3, 7]]),), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_more_writes(path, tmp_path):
    check_module(MoreWrites(), (X, IDX), tmp_path, path)


# ---------------------------------------------------------------------------- index_add / copy / fill, masks

SRC = torch.randn(3, 4, 5)
FLOAT_AND_INT = [torch.float32, torch.int32, torch.int64]


class IndexWrites(torch.nn.Module):
    def forward(self, x, idx, src):
        return x.index_add(1, idx, src), x.index_add(1, idx, src, alpha=2), x.index_copy(1, idx[:2], src[:, :2]), \
            x.index_fill(2, idx - 4, -1), x.index_fill(1, idx[:1], src[0, 0, 0]), x.index_add(0, idx[:1], src[:1])


class Masks(torch.nn.Module):
    def forward(self, x, src):
        m = x > 0
        return x.masked_select(m), torch.masked_select(x, m[0]), x.masked_scatter(m, src), \
            x.masked_scatter(m[:1, 0], src)


class TakeAlongDim(torch.nn.Module):
    def forward(self, x, idx):
        return torch.take_along_dim(x, idx.view(1, 4, 1), dim=1), torch.take_along_dim(x, idx), \
            torch.take_along_dim(x, torch.argsort(x, dim=2), dim=2), \
            torch.take_along_dim(x, idx.view(1, 1, 4) - 1, dim=-1)


@pytest.mark.parametrize("dtype", FLOAT_AND_INT)
@pytest.mark.parametrize("path", PATHS)
def test_index_writes(path, dtype, tmp_path):
    check_module(IndexWrites(), ((X * 4).to(dtype), IDX, (SRC * 4).to(dtype)), tmp_path, path)


@pytest.mark.parametrize("dtype", FLOAT_AND_INT + [torch.bool])
@pytest.mark.parametrize("path", PATHS)
def test_masks(path, dtype, tmp_path):
    check_module(Masks(), ((X * 4).to(dtype), (torch.arange(60) - 30).to(dtype)), tmp_path, path)


@pytest.mark.parametrize("dtype", FLOAT_AND_INT)
@pytest.mark.parametrize("path", PATHS)
def test_take_along_dim(path, dtype, tmp_path):
    check_module(TakeAlongDim(), ((X * 4).to(dtype), IDX), tmp_path, path)


# ---------------------------------------------------------------------------- fill_diagonal, embedding_bag


class FillDiagonal(torch.nn.Module):
    def forward(self, square, tall, cube):
        square, tall, cube = square.clone(), tall.clone(), cube.clone()
        unwrapped = tall.clone()
        square.fill_diagonal_(5)
        tall.fill_diagonal_(2, wrap=True)
        unwrapped.fill_diagonal_(-1)
        cube.fill_diagonal_(7)
        return square, tall, unwrapped, cube


@pytest.mark.parametrize("dtype", FLOAT_AND_INT)
@pytest.mark.parametrize("path", PATHS)
def test_fill_diagonal(path, dtype, tmp_path):
    inputs = (torch.randn(3, 3), torch.randn(7, 3), torch.randn(3, 3, 3))
    check_module(FillDiagonal(), tuple((t * 4).to(dtype) for t in inputs), tmp_path, path)


class EmbeddingBag(torch.nn.Module):
    def __init__(self, mode, weighted=False, include_last_offset=False, padding_idx=None):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(10, 3))
        self.mode, self.weighted, self.last, self.padding = mode, weighted, include_last_offset, padding_idx

    def forward(self, ids, offsets, weights):
        return F.embedding_bag(ids, self.weight, offsets, mode=self.mode, include_last_offset=self.last,
                               per_sample_weights=weights if self.weighted else None, padding_idx=self.padding)


class FixedBags(torch.nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(10, 3, mode=mode)

    def forward(self, ids):
        return self.bag(ids)


BAG_IDS = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("mode, weighted, last, padding", [
    ("sum", False, False, None), ("mean", False, False, None), ("max", False, False, None), ("sum", True, False, None),
    ("mean", False, True, None), ("mean", False, False, 4), ("max", False, False, 4), ("sum", True, True, 2)],
    ids=["sum", "mean", "max", "weighted", "last_offset", "padding_mean", "padding_max", "weighted_last_padding"])
def test_embedding_bag(path, mode, weighted, last, padding, tmp_path):
    offsets = torch.tensor([0, 3, 3, 8]) if last else torch.tensor([0, 4, 4, 6])
    check_module(EmbeddingBag(mode, weighted, last, padding), (BAG_IDS, offsets, torch.rand(8)), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d(path, mode, tmp_path):
    check_module(FixedBags(mode), (BAG_IDS.view(2, 4).int(),), tmp_path, path)


# ---------------------------------------------------------------------------- strided views, unfold


class Strided(torch.nn.Module):
    def forward(self, x):
        return torch.as_strided(x, (2, 2), (1, 2)), torch.as_strided(x, (3, 3), (4, 1), 2), x.as_strided((4,), (5,)), \
            x.as_strided((2, 3, 2), (0, 2, 1), 1)


class Unfold(torch.nn.Module):
    def forward(self, x):
        return x.unfold(1, 2, 1), x.unfold(0, 2, 2), x.unfold(-1, 3, 2), x.unfold(2, 5, 1), x.unfold(1, 4, 3)


@pytest.mark.parametrize("dtype", FLOAT_AND_INT)
@pytest.mark.parametrize("path", PATHS)
def test_as_strided(path, dtype, tmp_path):
    check_module(Strided(), ((torch.randn(4, 5) * 4).to(dtype),), tmp_path, path)


@pytest.mark.parametrize("dtype", FLOAT_AND_INT)
@pytest.mark.parametrize("path", PATHS)
def test_unfold(path, dtype, tmp_path):
    check_module(Unfold(), ((torch.randn(4, 5, 5) * 4).to(dtype),), tmp_path, path)


class DynamicShapes(torch.nn.Module):
    def forward(self, x, idx):
        y = x.clone()
        y.fill_diagonal_(3.0)
        return x.index_fill(1, idx, 2.0), x.index_add(1, idx, torch.ones_like(x).index_select(1, idx)), \
            torch.take_along_dim(x, idx.view(1, -1), 1), x.masked_select(x > 0), x.masked_scatter(x > 0, x * 10), y, \
            torch.searchsorted(torch.sort(x[0])[0], x), x.unfold(1, 2, 1), torch.unique(x), torch.where(x > 0)[1]


def test_dynamic_shapes(tmp_path):
    """The IR follows dims that change at run time (nothing is baked from the example's shape)."""
    module = DynamicShapes().eval()
    traced = torch.jit.trace(module, (torch.randn(3, 5), torch.tensor([0, 2, 4, 1])), check_trace=False)
    torch.jit.save(traced, str(tmp_path / "m.pt"))
    xml = convert_model(input_model=str(tmp_path / "m.pt"), input="x[?,?]{f32},idx[?]{i64}",
                        output_dir=str(tmp_path), compress_to_fp16=False).xml
    for inputs in ((torch.randn(4, 6), torch.tensor([1, 3])), (torch.randn(5, 5), torch.tensor([0, 2, 4, 1, 3]))):
        assert_close(run_ir(xml, [t.numpy() for t in inputs]), torch_outputs(module, inputs))


class DynamicBags(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(10, 3))

    def forward(self, ids, offsets):
        return F.embedding_bag(ids, self.weight, offsets, mode="mean")


def test_dynamic_bags(tmp_path):
    """Bags of a run-time number of indices and offsets."""
    module = DynamicBags().eval()
    traced = torch.jit.trace(module, (torch.tensor([1, 2, 3, 4]), torch.tensor([0, 2])))
    torch.jit.save(traced, str(tmp_path / "m.pt"))
    xml = convert_model(input_model=str(tmp_path / "m.pt"), input="ids[?]{i64},offsets[?]{i64}",
                        output_dir=str(tmp_path), compress_to_fp16=False).xml
    inputs = (torch.tensor([1, 2, 3, 4, 5, 6, 7]), torch.tensor([0, 2, 2, 5]))
    assert_close(run_ir(xml, [t.numpy() for t in inputs]), torch_outputs(module, inputs))


# ---------------------------------------------------------------------------- searching, unique


class Search(torch.nn.Module):
    def forward(self, seq, v, seq2):
        return torch.searchsorted(seq, v), torch.searchsorted(seq, v, right=True), \
            torch.searchsorted(seq, v, side="right", out_int32=True), torch.searchsorted(seq2, v[:2]), \
            torch.bucketize(v, seq), torch.bucketize(v, seq, right=True, out_int32=True), \
            torch.searchsorted(seq, 3), torch.bucketize(4, seq), \
            torch.searchsorted(seq.flip(0), v, sorter=torch.argsort(seq.flip(0)))


class Unique(torch.nn.Module):
    def forward(self, x):
        return torch.unique(x), torch.unique(x, return_inverse=True, return_counts=True), \
            torch.unique(x, sorted=False, return_counts=True), \
            torch.unique(x, dim=1, return_inverse=True, return_counts=True)


SEQ = torch.tensor([1, 3, 3, 5, 7, 9])
VALUES = torch.tensor([[0, 3, 6], [9, 10, 5], [3, 3, 1]])


@pytest.mark.parametrize("dtypes", [(torch.int64, torch.int64), (torch.float32, torch.float32),
                                    (torch.float64, torch.int32)], ids=["i64", "f32", "f64_i32"])
@pytest.mark.parametrize("path", PATHS)
def test_search(path, dtypes, tmp_path):
    seq2 = torch.sort(torch.randint(0, 10, (2, 6)), dim=1)[0]
    check_module(Search(), (SEQ.to(dtypes[0]), VALUES.to(dtypes[1]), seq2.to(dtypes[0])), tmp_path, path)


@pytest.mark.parametrize("dtype", FLOAT_AND_INT)
@pytest.mark.parametrize("path", PATHS)
def test_unique(path, dtype, tmp_path):
    check_module(Unique(), (torch.tensor([[3, 1, 3, 1], [2, 7, 2, 7]]).to(dtype),), tmp_path, path)


class EmbeddingBagSizes(torch.nn.Module):
    def forward(self, weight, ids, offsets):
        out = torch.ops.aten._embedding_bag(weight, ids, offsets, False, 1)
        return out[0], out[2]


def test_embedding_bag_other_outputs_refused(tmp_path):
    """offset2bag / bag_size / max_indices depend on the mode in PyTorch's own way; a model that
    reads them is refused clearly."""
    with pytest.raises(ConversionError, match="Only the first output of embedding_bag"):
        check_module(EmbeddingBagSizes(), (torch.randn(10, 3), BAG_IDS, torch.tensor([0, 2])), tmp_path, "export")


class ComputedArguments(torch.nn.Module):
    """Arguments the model computes: index_add's alpha and index_fill's value in scripted code."""

    def forward(self, x, idx, src):
        scale = int(idx[0])
        return x.index_add(1, idx, src, alpha=scale), x.index_fill(2, idx, float(src[0, 0, 0]))


def test_computed_arguments(tmp_path):
    check_scripted(ComputedArguments(), (X, IDX, SRC), tmp_path)


class TakeAndCoordinates(torch.nn.Module):
    """take, nonzero(as_tuple=True) (aten::nonzero_numpy), also inside index_put, argwhere,
    put, index_reduce (issue 21)."""

    def forward(self, x, index):
        mask = x > 0.5
        return torch.take(x, index), *torch.nonzero(mask, as_tuple=True), \
            x.index_put(torch.nonzero(mask, as_tuple=True), torch.tensor(-1.0)), torch.argwhere(mask), \
            x.put(index, torch.ones(2, 2), accumulate=True), \
            x.index_reduce(1, torch.tensor([0, 2, 0]), torch.ones(2, 3, 4, 6) * 2, "prod")


@pytest.mark.parametrize("path", PATHS)
def test_take_and_nonzero_tuple(path, tmp_path):
    torch.manual_seed(0)
    check_module(TakeAndCoordinates(), (torch.rand(2, 3, 4, 6), torch.tensor([[0, 5], [-1, 7]])), tmp_path, path)


class Longformer(torch.nn.Module):
    """The overlapping-window view of Longformer's attention: as_strided with strides taken from
    the (non-contiguous) input."""

    def forward(self, x):
        size = list(x.size())
        size[1] = size[1] * 2 - 1
        stride = list(x.stride())
        stride[1] = stride[1] // 2
        return x.as_strided(size=size, stride=stride)


@pytest.mark.parametrize("contiguous", [False, True])
@pytest.mark.parametrize("path", ["export", "trace"])
def test_as_strided_overlapping_windows(path, contiguous, tmp_path):
    """Traced and exported modules record the input's strides; a TorchScript file does not, so
    as_strided reads a file's inputs as contiguous."""
    x = torch.randn(1, 10, 20, 40).permute(0, 2, 3, 1)
    check_module(Longformer(), (x.contiguous() if contiguous else x,), tmp_path, path)


class Segments(torch.nn.Module):
    def forward(self, x, lengths, offsets):
        return [torch.segment_reduce(x, r, lengths=lengths) for r in ("max", "min", "sum", "mean", "prod")] + \
            [torch.segment_reduce(x, r, lengths=lengths, initial=1.0) for r in ("max", "mean")] + \
            [torch.segment_reduce(x, "sum", offsets=offsets)]


@pytest.mark.parametrize("path", ["export", "trace"])
def test_segment_reduce(path, tmp_path):
    x = torch.tensor([[1.0, -2], [2, 5], [3, 0], [4, 1], [5, 7]])
    check_module(Segments(), (x, torch.tensor([2, 0, 3, 0]), torch.tensor([0, 2, 2, 5])), tmp_path, path)
