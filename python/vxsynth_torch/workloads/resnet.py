"""ResNet-18 written from its published structure (He et al. 2016; torchvision's layer naming), with a
pluggable normalisation layer: FrozenBatchNorm2d for ACT (docs: docs/workloads.md §1.3) and
GroupNorm(C/16, C) for Diffusion Policy (§2.3). No torchvision dependency.

Shapes: input (B, 3, H, W) -> layer4 feature (B, 8*width, ceil(H/32), ceil(W/32)); width = 64 for the
real network (channels 64/128/256/512), smaller for the CPU `tiny` configurations.
"""
from __future__ import annotations

from typing import Callable, Optional

import torch
from torch import nn


class FrozenBatchNorm2d(nn.Module):
    """BatchNorm with fixed statistics and affine, as DETR/ACT: y = x*scale + shift with
    scale = w / sqrt(var + eps), shift = b - mean*scale (eps 1e-5; docs/workloads.md §1.3).
    The four tensors are buffers, not parameters, so they are not counted as parameters."""

    def __init__(self, num_features: int, eps: float = 1e-5, device=None, dtype=None) -> None:
        super().__init__()
        fk = {"device": device, "dtype": dtype}
        self.eps = eps
        self.register_buffer("weight", torch.ones(num_features, **fk))
        self.register_buffer("bias", torch.zeros(num_features, **fk))
        self.register_buffer("running_mean", torch.zeros(num_features, **fk))
        self.register_buffer("running_var", torch.ones(num_features, **fk))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Same elementwise sequence as DETR's FrozenBatchNorm2d (reshape/rsqrt/mul/sub/mul/add).
        w = self.weight.reshape(1, -1, 1, 1)
        b = self.bias.reshape(1, -1, 1, 1)
        rv = self.running_var.reshape(1, -1, 1, 1)
        rm = self.running_mean.reshape(1, -1, 1, 1)
        scale = w * (rv + self.eps).rsqrt()
        shift = b - rm * scale
        return x * scale + shift


NormFactory = Callable[[int], nn.Module]


def frozen_bn(device=None, dtype=None) -> NormFactory:
    return lambda c: FrozenBatchNorm2d(c, device=device, dtype=dtype)


def group_norm_c16(device=None, dtype=None) -> NormFactory:
    """GroupNorm with C/16 groups (DP `obs_encoder_group_norm`, docs/workloads.md §2.3)."""
    return lambda c: nn.GroupNorm(max(1, c // 16), c, device=device, dtype=dtype)


class BasicBlock(nn.Module):
    """conv3x3(stride)-norm-relu-conv3x3-norm, + identity or 1x1(stride)-norm downsample, relu."""

    def __init__(self, cin: int, cout: int, stride: int, norm: NormFactory, device=None, dtype=None):
        super().__init__()
        fk = {"device": device, "dtype": dtype}
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False, **fk)
        self.bn1 = norm(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False, **fk)
        self.bn2 = norm(cout)
        self.downsample: Optional[nn.Sequential] = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False, **fk), norm(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        idt = x if self.downsample is None else self.downsample(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + idt)


class ResNet18Trunk(nn.Module):
    """ResNet-18 without avgpool/fc: stem conv7x7 s2 + norm + relu + maxpool3x3 s2, then four stages of
    two BasicBlocks with widths (w, 2w, 4w, 8w), strides (1, 2, 2, 2). 20 convolutions in total
    (17 3x3/7x7 + 3 1x1 downsample), matching docs/workloads.md §1.4's table for w = 64."""

    def __init__(self, norm: NormFactory, width: int = 64, device=None, dtype=None):
        super().__init__()
        fk = {"device": device, "dtype": dtype}
        self.conv1 = nn.Conv2d(3, width, 7, 2, 3, bias=False, **fk)
        self.bn1 = norm(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        chans = [width, 2 * width, 4 * width, 8 * width]
        cin = width
        for i, c in enumerate(chans):
            stride = 1 if i == 0 else 2
            layer = nn.Sequential(BasicBlock(cin, c, stride, norm, **fk), BasicBlock(c, c, 1, norm, **fk))
            setattr(self, f"layer{i + 1}", layer)
            cin = c
        self.out_channels = chans[-1]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        return self.layer4(x)
