"""Diffusion Policy, CNN variant (ConditionalUnet1D), PushT-image classic configuration, random weights,
batch 1, fp32, DDPM with 100 inference steps.

Structure from docs/workloads.md §2.2-2.4 (real-stanford/diffusion_policy, robomimic, LeRobot
classic defaults): observation encoder = center crop 96->84, ResNet-18 trunk with GroupNorm(C/16) (no
pretraining), SpatialSoftmax (1x1 conv 512->32 keypoints, softmax over H*W, expected x,y on a [-1,1] grid),
Linear(64->64)+ReLU; 2 observation frames batched through one shared encoder; global condition
2 x (64 + state 2) = 132. ConditionalUnet1D down dims 512/1024/2048, kernel 5, GroupNorm(8), Mish,
FiLM (cond_predict_scale), diffusion step embedding 128 -> cond 260; horizon 16, action dim 2.
DDPM: squaredcos_cap_v2 betas, epsilon prediction, clip_sample, fixed_small variance, fresh noise per step.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Sequence

import torch
from torch import nn
import torch.nn.functional as F

from .resnet import ResNet18Trunk, group_norm_c16


@dataclass(frozen=True)
class DpConfig:
    image_hw: tuple = (96, 96)
    crop_hw: tuple = (84, 84)
    n_obs: int = 2
    state_dim: int = 2
    action_dim: int = 2
    horizon: int = 16
    resnet_width: int = 64
    keypoints: int = 32
    feature_dim: int = 64
    down_dims: tuple = (512, 1024, 2048)
    kernel: int = 5
    n_groups: int = 8
    step_embed: int = 128
    steps: int = 100


CONFIGS: Dict[str, DpConfig] = {
    "full": DpConfig(),
    "tiny": DpConfig(image_hw=(40, 40), crop_hw=(32, 32), resnet_width=16, keypoints=8, feature_dim=16,
                     down_dims=(16, 32, 64), step_embed=16, steps=3),
}


class SpatialSoftmax(nn.Module):
    """robomimic/LeRobot SpatialSoftmax: 1x1 conv to K keypoints, softmax over H*W, expected (x, y)."""

    def __init__(self, cin: int, hw: Sequence[int], k: int, fk: dict) -> None:
        super().__init__()
        self.nets = nn.Conv2d(cin, k, 1, **fk)
        self.k = k
        h, w = hw
        ys, xs = torch.meshgrid(torch.linspace(-1.0, 1.0, h), torch.linspace(-1.0, 1.0, w), indexing="ij")
        grid = torch.stack((xs.reshape(-1), ys.reshape(-1)), dim=1)  # (H*W, 2)
        self.register_buffer("pos_grid", grid.to(**fk))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.nets(x)
        att = F.softmax(f.reshape(-1, f.shape[2] * f.shape[3]), dim=-1)
        return (att @ self.pos_grid).reshape(-1, self.k, 2)


class RgbEncoder(nn.Module):
    def __init__(self, c: DpConfig, fk: dict) -> None:
        super().__init__()
        self.c = c
        self.backbone = ResNet18Trunk(group_norm_c16(**fk), c.resnet_width, **fk)
        fh, fw = (math.ceil(c.crop_hw[0] / 32), math.ceil(c.crop_hw[1] / 32))
        self.pool = SpatialSoftmax(self.backbone.out_channels, (fh, fw), c.keypoints, fk)
        self.out = nn.Linear(2 * c.keypoints, c.feature_dim, **fk)

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        h, w = img.shape[-2:]
        ch, cw = self.c.crop_hw
        t, l = (h - ch) // 2, (w - cw) // 2
        img = img[..., t:t + ch, l:l + cw]  # eval-time center crop
        return F.relu(self.out(self.pool(self.backbone(img)).flatten(1)))


class Conv1dBlock(nn.Module):
    """Conv1d(k, pad k//2) -> GroupNorm(n_groups) -> Mish."""

    def __init__(self, cin: int, cout: int, k: int, g: int, fk: dict) -> None:
        super().__init__()
        self.block = nn.Sequential(nn.Conv1d(cin, cout, k, padding=k // 2, **fk), nn.GroupNorm(g, cout, **fk), nn.Mish())

    def forward(self, x):
        return self.block(x)


class CondResBlock1d(nn.Module):
    """ConditionalResidualBlock1D with FiLM scale+bias from Mish -> Linear(cond -> 2*cout)."""

    def __init__(self, cin: int, cout: int, cond: int, k: int, g: int, fk: dict) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Conv1dBlock(cin, cout, k, g, fk), Conv1dBlock(cout, cout, k, g, fk)])
        self.cout = cout
        self.cond_encoder = nn.Sequential(nn.Mish(), nn.Linear(cond, 2 * cout, **fk))
        self.residual_conv = nn.Conv1d(cin, cout, 1, **fk) if cin != cout else nn.Identity()

    def forward(self, x: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        out = self.blocks[0](x)
        emb = self.cond_encoder(cond).reshape(cond.shape[0], 2, self.cout, 1)
        out = emb[:, 0] * out + emb[:, 1]
        out = self.blocks[1](out)
        return out + self.residual_conv(x)


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        half = self.dim // 2
        f = math.log(10000) / (half - 1)
        f = torch.exp(torch.arange(half, device=t.device) * -f)
        e = t[:, None].float() * f[None, :]
        return torch.cat((e.sin(), e.cos()), dim=-1)


class ConditionalUnet1D(nn.Module):
    """down: [Res(in,out), Res(out,out), Downsample(k3 s2) except last]; mid: 2 x Res; up: cat skip,
    Res(2*out,in), Res(in,in), Upsample(ConvTranspose k4 s2); final Conv1dBlock + Conv1d 1x1.
    The level-0 skip is pushed but never consumed (quirk of both reference repos, §2.3)."""

    def __init__(self, c: DpConfig, global_cond: int, fk: dict) -> None:
        super().__init__()
        dsed = c.step_embed
        self.diffusion_step_encoder = nn.Sequential(
            SinusoidalPosEmb(dsed), nn.Linear(dsed, 4 * dsed, **fk), nn.Mish(), nn.Linear(4 * dsed, dsed, **fk))
        cond = dsed + global_cond
        dims = [c.action_dim] + list(c.down_dims)
        in_out = list(zip(dims[:-1], dims[1:]))
        k, g = c.kernel, c.n_groups
        self.down_modules = nn.ModuleList()
        for i, (a, b) in enumerate(in_out):
            last = i >= len(in_out) - 1
            self.down_modules.append(nn.ModuleList([
                CondResBlock1d(a, b, cond, k, g, fk), CondResBlock1d(b, b, cond, k, g, fk),
                nn.Conv1d(b, b, 3, 2, 1, **fk) if not last else nn.Identity()]))
        mid = dims[-1]
        self.mid_modules = nn.ModuleList([CondResBlock1d(mid, mid, cond, k, g, fk), CondResBlock1d(mid, mid, cond, k, g, fk)])
        self.up_modules = nn.ModuleList()
        for i, (a, b) in enumerate(reversed(in_out[1:])):
            last = i >= len(in_out) - 1
            self.up_modules.append(nn.ModuleList([
                CondResBlock1d(2 * b, a, cond, k, g, fk), CondResBlock1d(a, a, cond, k, g, fk),
                nn.ConvTranspose1d(a, a, 4, 2, 1, **fk) if not last else nn.Identity()]))
        start = c.down_dims[0]
        self.final_conv = nn.Sequential(Conv1dBlock(start, start, k, g, fk), nn.Conv1d(start, c.action_dim, 1, **fk))

    def forward(self, sample: torch.Tensor, t: torch.Tensor, global_cond: torch.Tensor) -> torch.Tensor:
        x = sample.transpose(1, 2)  # (B, Da, T)
        cond = torch.cat([self.diffusion_step_encoder(t), global_cond], dim=-1)
        h: List[torch.Tensor] = []
        for r1, r2, down in self.down_modules:
            x = r2(r1(x, cond), cond)
            h.append(x)
            x = down(x)
        for m in self.mid_modules:
            x = m(x, cond)
        for r1, r2, up in self.up_modules:
            x = torch.cat((x, h.pop()), dim=1)
            x = up(r2(r1(x, cond), cond))
        return self.final_conv(x).transpose(1, 2)


def squaredcos_cap_v2_alphas_cumprod(n: int) -> List[float]:
    """Betas of Nichol & Dhariwal's cosine schedule capped at 0.999 (diffusers `squaredcos_cap_v2`)."""
    def abar(t: float) -> float:
        return math.cos((t + 0.008) / 1.008 * math.pi / 2) ** 2
    out, prod = [], 1.0
    for i in range(n):
        beta = min(1 - abar((i + 1) / n) / abar(i / n), 0.999)
        prod *= 1.0 - beta
        out.append(prod)
    return out


class DiffusionPolicy(nn.Module):
    """forward(images (n_obs,3,H,W), state (n_obs,state_dim)) -> actions (1, horizon, action_dim)."""

    def __init__(self, c: DpConfig, device=None, dtype=None) -> None:
        super().__init__()
        fk = {"device": device, "dtype": dtype}
        self.c = c
        self.rgb_encoder = RgbEncoder(c, fk)
        self.unet = ConditionalUnet1D(c, c.n_obs * (c.feature_dim + c.state_dim), fk)
        self.alphas_cumprod = squaredcos_cap_v2_alphas_cumprod(c.steps)

    def encode(self, images: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        feats = self.rgb_encoder(images)                       # (n_obs, F): both frames batched
        return torch.cat([feats, state], dim=-1).reshape(1, -1)

    def denoise_step(self, x: torch.Tensor, i: int, gcond: torch.Tensor) -> torch.Tensor:
        """One DDPM step at timestep index i (counting down): U-Net + diffusers-style scheduler update."""
        ac = self.alphas_cumprod
        t = len(ac) - 1 - i
        tt = torch.full((1,), t, dtype=torch.long, device=x.device)
        eps = self.unet(x, tt, gcond)
        a_t = ac[t]
        a_prev = ac[t - 1] if t > 0 else 1.0
        b_t, b_prev = 1 - a_t, 1 - a_prev
        cur_a = a_t / a_prev
        cur_b = 1 - cur_a
        x0 = ((x - math.sqrt(b_t) * eps) / math.sqrt(a_t)).clamp(-1, 1)
        prev = (math.sqrt(a_prev) * cur_b / b_t) * x0 + (math.sqrt(cur_a) * b_prev / b_t) * x
        if t > 0:
            var = max(b_prev / b_t * cur_b, 1e-20)
            prev = prev + math.sqrt(var) * torch.randn_like(x)
        return prev

    def forward(self, images: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        c = self.c
        gcond = self.encode(images, state)
        x = torch.randn(1, c.horizon, c.action_dim, device=images.device, dtype=images.dtype)
        for i in range(c.steps):
            x = self.denoise_step(x, i, gcond)
        return x


def build(config: str = "full", device=None, dtype=torch.float32, seed: int = 0):
    c = CONFIGS[config]
    torch.manual_seed(seed)
    model = DiffusionPolicy(c, device=device, dtype=dtype).eval()
    g = torch.Generator(device="cpu").manual_seed(seed + 1)
    images = torch.rand(c.n_obs, 3, *c.image_hw, generator=g).to(device=device, dtype=dtype)
    state = torch.randn(c.n_obs, c.state_dim, generator=g).to(device=device, dtype=dtype)
    return model, (images, state)
