"""A small hybrid vision transformer in the shape of timm's ``vit_small_r26_s32_224`` (timm needs
torchvision, which cannot be installed beside this torch): a ResNetV2 backbone (weight-standardized
convolutions with TensorFlow-style "same" padding, GroupNorm, bottlenecks whose last norm is added
to the shortcut), a 1x1 patch projection of its feature map, a class token, position embeddings
and pre-norm transformer blocks."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


def _same_padding(size: int, kernel: int, stride: int) -> int:
    return max((math.ceil(size / stride) - 1) * stride + kernel - size, 0)


def pad_same(x: torch.Tensor, kernel: int, stride: int, value: float = 0.0) -> torch.Tensor:
    """Pad as TensorFlow's "SAME" does (the extra row and column at the end), computed from the
    input's size as timm does."""
    ph, pw = (_same_padding(s, kernel, stride) for s in x.shape[-2:])
    return F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2], value=value)


class StdConv2dSame(nn.Conv2d):
    """Convolution of standardized weights (zero mean, unit variance per output channel)."""

    def __init__(self, cin: int, cout: int, kernel: int, stride: int = 1):
        super().__init__(cin, cout, kernel, stride, bias=False)

    def forward(self, x):
        x = pad_same(x, self.kernel_size[0], self.stride[0])
        weight = F.batch_norm(self.weight.reshape(1, self.out_channels, -1), None, None, training=True,
                              momentum=0.0, eps=1e-6).reshape_as(self.weight)
        return F.conv2d(x, weight, None, self.stride)


class Bottleneck(nn.Module):
    """ResNetV2 bottleneck (timm's non-pre-activation form): conv-norm-relu x2, conv-norm, + the
    shortcut, relu."""

    def __init__(self, cin: int, cout: int, stride: int, groups: int):
        super().__init__()
        mid = cout // 4
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(StdConv2dSame(cin, cout, 1, stride), nn.GroupNorm(groups, cout))
        self.conv1, self.norm1 = StdConv2dSame(cin, mid, 1), nn.GroupNorm(groups, mid)
        self.conv2, self.norm2 = StdConv2dSame(mid, mid, 3, stride), nn.GroupNorm(groups, mid)
        self.conv3, self.norm3 = StdConv2dSame(mid, cout, 1), nn.GroupNorm(groups, cout)

    def forward(self, x):
        shortcut = x if self.downsample is None else self.downsample(x)
        x = F.relu(self.norm1(self.conv1(x)))
        x = F.relu(self.norm2(self.conv2(x)))
        return F.relu(self.norm3(self.conv3(x)) + shortcut)


class HybridViT(nn.Module):
    def __init__(self, image: int = 64, width: int = 32, dim: int = 48, heads: int = 4, depth: int = 2,
                 groups: int = 4, classes: int = 10):
        super().__init__()
        self.stem_conv, self.stem_norm = StdConv2dSame(3, width, 7, 2), nn.GroupNorm(groups, width)
        blocks, cin = [], width
        for stage, cout in enumerate((2 * width, 4 * width)):
            blocks += [Bottleneck(cin, cout, 1 if stage == 0 else 2, groups), Bottleneck(cout, cout, 1, groups)]
            cin = cout
        self.stages = nn.Sequential(*blocks)
        self.proj = nn.Conv2d(cin, dim, 1)
        tokens = (image // 8) ** 2
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, tokens + 1, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = F.relu(self.stem_norm(self.stem_conv(x)))
        x = F.max_pool2d(pad_same(x, 3, 2, value=float("-inf")), 3, 2)
        x = self.proj(self.stages(x)).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


def hybrid_vit(seed: int = 0) -> HybridViT:
    """The model with random weights and non-trivial GroupNorm affine parameters, in eval mode."""
    torch.manual_seed(seed)
    model = HybridViT()
    for module in model.modules():
        if isinstance(module, nn.GroupNorm):
            nn.init.uniform_(module.weight, 0.5, 1.5)
            nn.init.uniform_(module.bias, -0.5, 0.5)
    return model.eval()
