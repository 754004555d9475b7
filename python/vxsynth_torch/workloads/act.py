"""ACT (Action Chunking with Transformers), LeRobot inference path, random weights, batch 1, fp32.

Structure from docs/workloads.md §1.3-1.5 (read from tonyzhaozh/act and huggingface/lerobot):
ResNet-18 FrozenBN backbone -> layer4 (512x15x20 for one 480x640 camera) -> 1x1 input projection;
DETR sine 2-D position embedding; 2 one-dimensional tokens (zero latent through Linear(32->512),
state through Linear(14->512)); 4 post-norm encoder layers (nn.MultiheadAttention seq-first, q = k = x+pos,
v = x, need_weights default => explicit bmm path; FFN 512->3200->512 ReLU); 1 decoder layer (LeRobot
n_decoder_layers=1) over 100 zero queries with learned query positions; final decoder LayerNorm;
action head Linear(512->14). The VAE encoder is not on the inference path and is not built.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Dict

import torch
from torch import nn
import torch.nn.functional as F

from .resnet import ResNet18Trunk, frozen_bn


@dataclass(frozen=True)
class ActConfig:
    """Sizes; `full` values and their source are in CONFIGS (docs/workloads.md §1.2-1.3)."""
    image_hw: tuple = (480, 640)
    n_cameras: int = 1
    resnet_width: int = 64
    d_model: int = 512
    ffn: int = 3200
    heads: int = 8
    enc_layers: int = 4
    dec_layers: int = 1
    chunk: int = 100
    state_dim: int = 14
    action_dim: int = 14
    latent_dim: int = 32


CONFIGS: Dict[str, ActConfig] = {
    "full": ActConfig(),
    "tiny": ActConfig(image_hw=(64, 96), resnet_width=8, d_model=32, ffn=64, heads=4, chunk=10),
}


class SinePosEmb2d(nn.Module):
    """DETR sine embedding, dim_model/2 features per axis, temperature 10000, normalised to [0, 2pi],
    y features then x features (docs/workloads.md §1.3). Recomputed on every call, as LeRobot."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.half = dim // 2
        self.temperature = 10000.0
        self.two_pi = 2 * math.pi
        self.eps = 1e-6

    def forward(self, feat: torch.Tensor) -> torch.Tensor:
        ones = torch.ones_like(feat[0, :1])  # (1, H, W)
        y = ones.cumsum(1, dtype=torch.float32)
        x = ones.cumsum(2, dtype=torch.float32)
        y = y / (y[:, -1:, :] + self.eps) * self.two_pi
        x = x / (x[:, :, -1:] + self.eps) * self.two_pi
        i = torch.arange(self.half, dtype=torch.float32, device=feat.device)
        dim_t = self.temperature ** (2 * (i // 2) / self.half)
        px = x.unsqueeze(-1) / dim_t
        py = y.unsqueeze(-1) / dim_t
        px = torch.stack((px[..., 0::2].sin(), px[..., 1::2].cos()), dim=-1).flatten(3)
        py = torch.stack((py[..., 0::2].sin(), py[..., 1::2].cos()), dim=-1).flatten(3)
        return torch.cat((py, px), dim=3).permute(0, 3, 1, 2)  # (1, dim, H, W)


class EncoderLayer(nn.Module):
    """Post-norm DETR encoder layer: MHA(q=k=x+pos, v=x) + residual + LN; FFN(ReLU) + residual + LN."""

    def __init__(self, c: ActConfig, fk: dict) -> None:
        super().__init__()
        self.self_attn = nn.MultiheadAttention(c.d_model, c.heads, dropout=0.1, **fk)
        self.linear1 = nn.Linear(c.d_model, c.ffn, **fk)
        self.linear2 = nn.Linear(c.ffn, c.d_model, **fk)
        self.norm1 = nn.LayerNorm(c.d_model, **fk)
        self.norm2 = nn.LayerNorm(c.d_model, **fk)

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        q = k = x + pos
        x = self.norm1(x + self.self_attn(q, k, value=x)[0])
        return self.norm2(x + self.linear2(F.relu(self.linear1(x))))


class DecoderLayer(nn.Module):
    """Post-norm DETR decoder layer: self-attn, cross-attn (k = memory+pos, v = memory), FFN; 3 LNs."""

    def __init__(self, c: ActConfig, fk: dict) -> None:
        super().__init__()
        self.self_attn = nn.MultiheadAttention(c.d_model, c.heads, dropout=0.1, **fk)
        self.cross_attn = nn.MultiheadAttention(c.d_model, c.heads, dropout=0.1, **fk)
        self.linear1 = nn.Linear(c.d_model, c.ffn, **fk)
        self.linear2 = nn.Linear(c.ffn, c.d_model, **fk)
        self.norm1 = nn.LayerNorm(c.d_model, **fk)
        self.norm2 = nn.LayerNorm(c.d_model, **fk)
        self.norm3 = nn.LayerNorm(c.d_model, **fk)

    def forward(self, x, memory, qpos, mpos):
        q = k = x + qpos
        x = self.norm1(x + self.self_attn(q, k, value=x)[0])
        x = self.norm2(x + self.cross_attn(x + qpos, memory + mpos, value=memory)[0])
        return self.norm3(x + self.linear2(F.relu(self.linear1(x))))


class ACT(nn.Module):
    """ACT inference path. forward(images (n_cam,1,3,H,W), state (1,state_dim)) -> (1, chunk, action_dim)."""

    def __init__(self, c: ActConfig, device=None, dtype=None) -> None:
        super().__init__()
        fk = {"device": device, "dtype": dtype}
        self.cfg = c
        self.backbone = ResNet18Trunk(frozen_bn(**fk), c.resnet_width, **fk)
        self.img_proj = nn.Conv2d(self.backbone.out_channels, c.d_model, 1, **fk)
        self.pos2d = SinePosEmb2d(c.d_model)
        self.latent_proj = nn.Linear(c.latent_dim, c.d_model, **fk)
        self.state_proj = nn.Linear(c.state_dim, c.d_model, **fk)
        self.pos1d = nn.Embedding(2, c.d_model, **fk)
        self.encoder = nn.ModuleList([EncoderLayer(c, fk) for _ in range(c.enc_layers)])
        self.decoder = nn.ModuleList([DecoderLayer(c, fk) for _ in range(c.dec_layers)])
        self.decoder_norm = nn.LayerNorm(c.d_model, **fk)
        self.query_pos = nn.Embedding(c.chunk, c.d_model, **fk)
        self.action_head = nn.Linear(c.d_model, c.action_dim, **fk)

    def forward(self, images: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        c = self.cfg
        # Zero latent created on the CPU and copied each call, as LeRobot (docs/workloads.md §1.5).
        latent = torch.zeros(1, c.latent_dim, dtype=state.dtype).to(state.device)
        tokens = [self.latent_proj(latent), self.state_proj(state)]  # 2 x (1, D)
        x1d = torch.stack(tokens, dim=0)                              # (2, 1, D)
        pos1d = self.pos1d.weight.unsqueeze(1)                        # (2, 1, D)
        feats, poss = [], []
        for cam in range(images.shape[0]):                             # one shared backbone, Python loop
            f = self.backbone(images[cam])
            p = self.pos2d(f).to(f.dtype)
            f = self.img_proj(f)
            feats.append(f.flatten(2).permute(2, 0, 1))                # (HW, 1, D)
            poss.append(p.flatten(2).permute(2, 0, 1))
        x = torch.cat([x1d] + feats, dim=0)
        pos = torch.cat([pos1d] + poss, dim=0)
        for layer in self.encoder:
            x = layer(x, pos)
        y = torch.zeros(c.chunk, 1, c.d_model, dtype=x.dtype, device=x.device)
        qpos = self.query_pos.weight.unsqueeze(1)
        for layer in self.decoder:
            y = layer(y, x, qpos, pos)
        y = self.decoder_norm(y).transpose(0, 1)                      # (1, chunk, D)
        return self.action_head(y)


def build(config: str = "full", device=None, dtype=torch.float32, seed: int = 0):
    """Build ACT with random weights directly on `device`; returns (model, inputs) with inputs the
    example batch (images (n_cam,1,3,H,W) ~ N(0,1) as normalised pixels, state (1,14))."""
    c = CONFIGS[config]
    torch.manual_seed(seed)
    model = ACT(c, device=device, dtype=dtype).eval()
    g = torch.Generator(device="cpu").manual_seed(seed + 1)
    images = torch.randn(c.n_cameras, 1, 3, *c.image_hw, generator=g).to(device=device, dtype=dtype)
    state = torch.randn(1, c.state_dim, generator=g).to(device=device, dtype=dtype)
    return model, (images, state)


def with_cameras(config: str, n: int) -> ActConfig:
    return replace(CONFIGS[config], n_cameras=n)
