"""pi0 (openpi): PaliGemma = SigLIP So400m/14 + Gemma 2B, plus a Gemma-300M action expert, flow matching.
Random weights (N(0, 0.02) in every Linear/Embedding/Conv, zero biases, zero RMSNorm weights), batch 1, bf16.

Structure from docs/workloads.md §3.2-3.7 (Physical-Intelligence/openpi, PyTorch port):
- 3 image slots of 224x224, each through SigLIP separately (openpi loops per camera), 256 tokens each;
  patch embedding Conv2d(3->1152, 14, s14) and the position embedding kept in fp32 (§3.7), the 27
  pre-LN layers (width 1152, MLP 4304, 16 heads of 72, GELU-tanh) in bf16, final LN, projector 1152->2048.
- 48 language tokens (20 valid, 28 padding masked), embedding 257152x2048 scaled by sqrt(2048).
- Prefix (816 tokens, bidirectional) through Gemma 2B once (18 layers, width 2048, GeGLU 16384, 8 query
  heads / 1 KV head of 256, RoPE base 10000, RMSNorm in fp32 with (1+w)); per-layer K, V kept as the cache.
- 10 Euler steps (t: 1 -> 0, dt = -0.1, `while time >= -dt/2` on a device tensor, i.e. one host sync per
  step as openpi-PyTorch): suffix = state token + 50 action tokens through the expert (width 1024, MLP 4096,
  same heads); each layer attends over cached prefix K/V + suffix K/V (867 keys) with HF eager attention:
  repeat_kv, matmul, +mask, fp32 softmax, matmul. The cache is not extended between steps.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import torch
from torch import nn
import torch.nn.functional as F

#: Masked-logit value used by openpi (docs/workloads.md §3.5).
MASK_VALUE = -2.3819763e38


@dataclass(frozen=True)
class Pi0Config:
    n_images: int = 3
    image: int = 224
    patch: int = 14
    siglip_width: int = 1152
    siglip_depth: int = 27
    siglip_mlp: int = 4304
    siglip_heads: int = 16
    width: int = 2048          # Gemma 2B
    depth: int = 18
    mlp: int = 16384
    heads: int = 8
    kv_heads: int = 1
    head_dim: int = 256
    vocab: int = 257152
    expert_width: int = 1024   # gemma_300m action expert
    expert_mlp: int = 4096
    lang_tokens: int = 48
    lang_valid: int = 20
    state_dim: int = 32
    action_dim: int = 32
    horizon: int = 50
    steps: int = 10


CONFIGS: Dict[str, Pi0Config] = {
    "full": Pi0Config(),
    "tiny": Pi0Config(image=28, siglip_width=32, siglip_depth=2, siglip_mlp=64, siglip_heads=4, width=32,
                      depth=2, mlp=64, heads=2, head_dim=16, vocab=64, expert_width=16, expert_mlp=32,
                      lang_tokens=8, lang_valid=5, state_dim=4, action_dim=4, horizon=5, steps=2),
}


def gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    return F.gelu(x, approximate="tanh")


class RMSNorm(nn.Module):
    """Gemma RMSNorm: x * rsqrt(mean(x^2) + 1e-6) * (1 + w), computed in fp32, weight stored in fp32."""

    def __init__(self, dim: int, device=None) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(dim, device=device, dtype=torch.float32))
        self.eps = 1e-6

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return (out * (1.0 + self.weight.float())).to(x.dtype)


def eager_attention(q, k, v, mask_add, scaling: float) -> torch.Tensor:
    """HF eager attention: (B,H,Lq,d) x (B,Hkv,Lk,d); repeat_kv, matmul, scale, +mask, fp32 softmax, matmul."""
    b, h, lq, d = q.shape
    rep = h // k.shape[1]
    if rep > 1:  # HF repeat_kv: expand + reshape (materialises a copy)
        k = k[:, :, None].expand(b, k.shape[1], rep, k.shape[2], d).reshape(b, h, k.shape[2], d)
        v = v[:, :, None].expand(b, v.shape[1], rep, v.shape[2], d).reshape(b, h, v.shape[2], d)
    att = torch.matmul(q, k.transpose(2, 3)) * scaling
    if mask_add is not None:
        att = att + mask_add
    att = F.softmax(att, dim=-1, dtype=torch.float32).to(q.dtype)
    out = torch.matmul(att, v)
    return out.transpose(1, 2).reshape(b, lq, h * d)


class SiglipLayer(nn.Module):
    def __init__(self, c: Pi0Config, fk: dict) -> None:
        super().__init__()
        w = c.siglip_width
        self.heads = c.siglip_heads
        self.layer_norm1 = nn.LayerNorm(w, eps=1e-6, **fk)
        self.q_proj = nn.Linear(w, w, **fk)
        self.k_proj = nn.Linear(w, w, **fk)
        self.v_proj = nn.Linear(w, w, **fk)
        self.out_proj = nn.Linear(w, w, **fk)
        self.layer_norm2 = nn.LayerNorm(w, eps=1e-6, **fk)
        self.fc1 = nn.Linear(w, c.siglip_mlp, **fk)
        self.fc2 = nn.Linear(c.siglip_mlp, w, **fk)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, l, w = x.shape
        hd = w // self.heads
        h = self.layer_norm1(x)
        q = self.q_proj(h).view(b, l, self.heads, hd).transpose(1, 2)
        k = self.k_proj(h).view(b, l, self.heads, hd).transpose(1, 2)
        v = self.v_proj(h).view(b, l, self.heads, hd).transpose(1, 2)
        x = x + self.out_proj(eager_attention(q, k, v, None, hd ** -0.5))
        return x + self.fc2(gelu_tanh(self.fc1(self.layer_norm2(x))))


class SiglipVision(nn.Module):
    def __init__(self, c: Pi0Config, device, dtype) -> None:
        super().__init__()
        fk = {"device": device, "dtype": dtype}
        f32 = {"device": device, "dtype": torch.float32}
        n = (c.image // c.patch) ** 2
        self.patch_embedding = nn.Conv2d(3, c.siglip_width, c.patch, c.patch, **f32)  # fp32 island
        self.position_embedding = nn.Embedding(n, c.siglip_width, **f32)               # fp32 island
        self.layers = nn.ModuleList([SiglipLayer(c, fk) for _ in range(c.siglip_depth)])
        self.post_layernorm = nn.LayerNorm(c.siglip_width, eps=1e-6, **fk)
        self.projector = nn.Linear(c.siglip_width, c.width, **fk)  # PaliGemma multi-modal projector
        self.dtype = dtype

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        x = self.patch_embedding(img.float()).flatten(2).transpose(1, 2)
        x = (x + self.position_embedding.weight[None]).to(self.dtype)
        for layer in self.layers:
            x = layer(x)
        return self.projector(self.post_layernorm(x))


def rope(x: torch.Tensor, pos: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotary embedding (HF rotate_half form) on (B,H,L,d) with integer positions (B,L)."""
    d = x.shape[-1]
    inv = 1.0 / (base ** (torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d))
    f = pos.float()[..., None] * inv
    emb = torch.cat((f, f), dim=-1)
    cos, sin = emb.cos().to(x.dtype)[:, None], emb.sin().to(x.dtype)[:, None]
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


class GemmaLayer(nn.Module):
    """Gemma decoder layer (no biases): RMSNorm, q/k/v (MQA), RoPE, eager attention, o; RMSNorm, GeGLU MLP."""

    def __init__(self, width: int, mlp: int, c: Pi0Config, fk: dict) -> None:
        super().__init__()
        dev = fk["device"]
        self.c = c
        self.input_layernorm = RMSNorm(width, dev)
        self.q_proj = nn.Linear(width, c.heads * c.head_dim, bias=False, **fk)
        self.k_proj = nn.Linear(width, c.kv_heads * c.head_dim, bias=False, **fk)
        self.v_proj = nn.Linear(width, c.kv_heads * c.head_dim, bias=False, **fk)
        self.o_proj = nn.Linear(c.heads * c.head_dim, width, bias=False, **fk)
        self.post_attention_layernorm = RMSNorm(width, dev)
        self.gate_proj = nn.Linear(width, mlp, bias=False, **fk)
        self.up_proj = nn.Linear(width, mlp, bias=False, **fk)
        self.down_proj = nn.Linear(mlp, width, bias=False, **fk)

    def forward(self, x, pos, mask_add, past: Optional[Tuple[torch.Tensor, torch.Tensor]] = None):
        c = self.c
        b, l, _ = x.shape
        h = self.input_layernorm(x)
        q = rope(self.q_proj(h).view(b, l, c.heads, c.head_dim).transpose(1, 2), pos)
        k = rope(self.k_proj(h).view(b, l, c.kv_heads, c.head_dim).transpose(1, 2), pos)
        v = self.v_proj(h).view(b, l, c.kv_heads, c.head_dim).transpose(1, 2)
        kv = (k, v)
        if past is not None:  # suffix step: cached prefix K/V + this step's K/V (cache not extended)
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        x = x + self.o_proj(eager_attention(q, k, v, mask_add, c.head_dim ** -0.5))
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(gelu_tanh(self.gate_proj(h)) * self.up_proj(h)), kv


class Pi0(nn.Module):
    """forward(images (n_img,1,3,224,224) in [-1,1], tokens (1,48) int64, state (1,32)) -> (1,50,32) fp32."""

    def __init__(self, c: Pi0Config, device=None, dtype=torch.bfloat16) -> None:
        super().__init__()
        fk = {"device": device, "dtype": dtype}
        self.c, self.dtype = c, dtype
        self.vision = SiglipVision(c, device, dtype)
        self.embed_tokens = nn.Embedding(c.vocab, c.width, **fk)
        self.llm = nn.ModuleList([GemmaLayer(c.width, c.mlp, c, fk) for _ in range(c.depth)])
        self.llm_norm = RMSNorm(c.width, device)
        self.expert = nn.ModuleList([GemmaLayer(c.expert_width, c.expert_mlp, c, fk) for _ in range(c.depth)])
        self.expert_norm = RMSNorm(c.expert_width, device)
        ew = c.expert_width
        self.state_proj = nn.Linear(c.state_dim, ew, **fk)
        self.action_in_proj = nn.Linear(c.action_dim, ew, **fk)
        self.action_time_mlp_in = nn.Linear(2 * ew, ew, **fk)
        self.action_time_mlp_out = nn.Linear(ew, ew, **fk)
        self.action_out_proj = nn.Linear(ew, c.action_dim, **fk)

    @torch.no_grad()
    def init_random(self, std: float = 0.02) -> "Pi0":
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding, nn.Conv2d)):
                m.weight.normal_(0.0, std)
                if getattr(m, "bias", None) is not None:
                    m.bias.zero_()
        return self

    def _mask(self, allowed: torch.Tensor) -> torch.Tensor:
        zero = torch.zeros((), dtype=self.dtype, device=allowed.device)
        neg = torch.full((), MASK_VALUE, dtype=self.dtype, device=allowed.device)
        return torch.where(allowed[:, None], zero, neg)  # (B,1,Lq,Lk) additive

    def prefix(self, images, tokens, lang_valid):
        """SigLIP per image + prompt embedding + one Gemma-2B pass; returns per-layer (K, V) and valid mask."""
        c = self.c
        embs = [self.vision(images[i]) for i in range(images.shape[0])]
        lang = self.embed_tokens(tokens)
        lang = lang * torch.tensor(c.width ** 0.5, dtype=lang.dtype, device=lang.device)
        x = torch.cat(embs + [lang], dim=1)
        img_valid = torch.ones(1, x.shape[1] - tokens.shape[1], dtype=torch.bool, device=x.device)
        valid = torch.cat([img_valid, lang_valid], dim=1)            # (1, 816)
        pos = valid.long().cumsum(1) - 1
        mask = self._mask(valid[:, None, :] & valid[:, :, None])     # bidirectional prefix
        cache: List[Tuple[torch.Tensor, torch.Tensor]] = []
        for layer in self.llm:
            x, kv = layer(x, pos, mask)
            cache.append(kv)
        self.llm_norm(x)  # final norm is evaluated by the HF stack although its output is unused
        return cache, valid

    def time_embedding(self, t: torch.Tensor) -> torch.Tensor:
        """sin/cos of t with periods log-spaced in [4e-3, 4.0], dim = expert width (§3.4)."""
        d = self.c.expert_width
        frac = torch.linspace(0.0, 1.0, d // 2, device=t.device, dtype=torch.float32)
        period = 4e-3 * (4.0 / 4e-3) ** frac
        s = (2 * math.pi / period)[None, :] * t.float().reshape(-1, 1)
        return torch.cat([s.sin(), s.cos()], dim=1)

    def denoise(self, state, x_t, t, cache, prefix_valid):
        c = self.c
        st = self.state_proj(state.to(self.dtype))[:, None]                     # (1,1,W)
        act = self.action_in_proj(x_t.to(self.dtype))                           # (1,H,W)
        te = self.time_embedding(t).to(self.dtype)[:, None].expand(-1, c.horizon, -1)
        at = self.action_time_mlp_out(F.silu(self.action_time_mlp_in(torch.cat([act, te], dim=2))))
        x = torch.cat([st, at], dim=1)                                          # (1, 51, W)
        n = x.shape[1]
        ar = torch.zeros(n, dtype=torch.long, device=x.device)
        ar[:2] = 1
        cum = ar.cumsum(0)
        suffix_allowed = (cum[None, :] <= cum[:, None])[None]                   # (1, 51, 51)
        prefix_allowed = prefix_valid[:, None, :].expand(1, n, -1)              # (1, 51, 816)
        mask = self._mask(torch.cat([prefix_allowed, suffix_allowed], dim=2))
        pos = prefix_valid.long().sum(1, keepdim=True) + torch.arange(n, device=x.device)[None]
        for layer, kv in zip(self.expert, cache):
            x, _ = layer(x, pos, mask, past=kv)
        x = self.expert_norm(x)[:, -c.horizon:]
        return self.action_out_proj(x).float()

    def forward(self, images, tokens, state, lang_valid, noise):
        cache, valid = self.prefix(images, tokens, lang_valid)
        dt = -1.0 / self.c.steps
        x_t = noise
        time = torch.tensor(1.0, device=noise.device)
        while bool(time >= -dt / 2):  # host sync each step, as openpi-PyTorch
            v = self.denoise(state, x_t, time, cache, valid)
            x_t = x_t + dt * v
            time = time + dt
        return x_t


def build(config: str = "full", device=None, dtype=torch.bfloat16, seed: int = 0):
    c = CONFIGS[config]
    torch.manual_seed(seed)
    model = Pi0(c, device=device, dtype=dtype).init_random().eval()
    g = torch.Generator(device="cpu").manual_seed(seed + 1)
    images = (torch.rand(c.n_images, 1, 3, c.image, c.image, generator=g) * 2 - 1).to(device)
    tokens = torch.randint(0, c.vocab, (1, c.lang_tokens), generator=g).to(device)
    lang_valid = (torch.arange(c.lang_tokens) < c.lang_valid)[None].to(device)
    state = torch.randn(1, c.state_dim, generator=g).to(device)
    noise = torch.randn(1, c.horizon, c.action_dim, generator=g).to(device)
    return model, (images, tokens, state, lang_valid, noise)
