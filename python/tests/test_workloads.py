"""Workloads: tiny configs build and run on the CPU; full configs (built on the meta device, no memory)
have the layer shapes and parameter counts of docs/workloads.md."""
import math

import pytest
import torch

from vxsynth_torch.workloads import WORKLOADS, act, diffusion_policy as dp, get, pi0


def nparams(m):
    return sum(p.numel() for p in m.parameters())


@pytest.mark.parametrize("name,shape", [("act", (1, 10, 14)), ("diffusion_policy", (1, 16, 2)), ("pi0", (1, 5, 4))])
def test_tiny_runs(name, shape):
    model, inputs = WORKLOADS[name].build("tiny", device="cpu")
    with torch.inference_mode():
        out = model(*inputs)
    assert tuple(out.shape) == shape
    assert torch.isfinite(out).all()


def test_unknown_workload():
    with pytest.raises(ValueError, match="known: act, diffusion_policy, pi0"):
        get("bert")


def test_act_full_shapes_and_params():
    c = act.CONFIGS["full"]
    m = act.ACT(c, device="meta")
    assert (c.d_model, c.ffn, c.heads, c.chunk, c.image_hw) == (512, 3200, 8, 100, (480, 640))
    assert len(m.encoder) == 4 and len(m.decoder) == 1
    enc = m.encoder[0]
    assert tuple(enc.linear1.weight.shape) == (3200, 512) and tuple(enc.linear2.weight.shape) == (512, 3200)
    assert enc.self_attn.num_heads == 8 and enc.self_attn.head_dim == 64
    assert tuple(m.query_pos.weight.shape) == (100, 512)
    assert tuple(m.action_head.weight.shape) == (14, 512)
    assert tuple(m.backbone.layer4[1].conv2.weight.shape) == (512, 512, 3, 3)
    assert tuple(m.backbone.conv1.weight.shape) == (64, 3, 7, 7)
    # §1.3: encoder layer 4.333 M, decoder layer 5.385 M, ResNet-18 convs 11.17 M, inference path 34.2 M
    assert nparams(m.encoder[0]) == 4_333_184
    assert nparams(m.decoder[0]) == 5_384_832
    assert round(nparams(m.backbone) / 1e6, 2) == 11.17  # convs only: FrozenBN holds buffers
    assert round(nparams(m) / 1e6, 1) == 34.2
    convs = [mod for mod in m.backbone.modules() if isinstance(mod, torch.nn.Conv2d)]
    assert len(convs) == 20  # §1.4: 20 convs


def test_act_tiny_token_count():
    c = act.CONFIGS["tiny"]
    m, (img, st) = act.build("tiny", device="cpu")
    with torch.inference_mode():
        f = m.backbone(img[0])
    assert tuple(f.shape) == (1, 8 * c.resnet_width, math.ceil(c.image_hw[0] / 32), math.ceil(c.image_hw[1] / 32))


def test_dp_full_shapes_and_params():
    c = dp.CONFIGS["full"]
    m = dp.DiffusionPolicy(c, device="meta")
    assert c.down_dims == (512, 1024, 2048) and c.kernel == 5 and c.horizon == 16 and c.n_obs == 2 and c.steps == 100
    mid = m.unet.mid_modules[0].blocks[0].block[0]
    assert tuple(mid.weight.shape) == (2048, 2048, 5)
    up0 = m.unet.up_modules[0][0].blocks[0].block[0]
    assert tuple(up0.weight.shape) == (1024, 4096, 5)  # cat skip -> Res(4096 -> 1024)
    film = m.unet.mid_modules[0].cond_encoder[1]
    assert tuple(film.weight.shape) == (4096, 260)      # cond = 128 + 2*(64+2)
    gns = [g for g in m.rgb_encoder.backbone.modules() if isinstance(g, torch.nn.GroupNorm)]
    assert gns and all(g.num_groups == g.num_channels // 16 for g in gns)
    assert tuple(m.rgb_encoder.pool.nets.weight.shape) == (32, 512, 1, 1)
    # §2.3: U-Net 251.5 M, ResNet-18 11.2 M
    assert round(nparams(m.unet) / 1e6, 1) == 251.5
    assert round(nparams(m.rgb_encoder.backbone) / 1e6, 1) == 11.2
    convs = [mod for mod in m.unet.modules() if isinstance(mod, (torch.nn.Conv1d, torch.nn.ConvTranspose1d))]
    # 12 residual blocks x 2 k5 convs + 5 residual 1x1 + 2 downsample + 2 ConvTranspose + final k5 + final 1x1.
    # (§2.4's table says "34 convs"; it leaves out one of these, most likely the 2->512 residual 1x1 at the
    # input, which carries no FLOPs worth counting.)
    assert len(convs) == 35
    films = [mod for mod in m.unet.modules() if isinstance(mod, torch.nn.Linear)]
    assert len(films) == 14  # §2.4: 12 FiLM Linears + the 2 of the diffusion-step encoder


def test_dp_schedule():
    ac = dp.squaredcos_cap_v2_alphas_cumprod(100)
    assert len(ac) == 100 and 0 < ac[-1] < ac[0] < 1


def test_pi0_full_shapes_and_params():
    c = pi0.CONFIGS["full"]
    m = pi0.Pi0(c, device="meta")
    assert (c.n_images, c.image, c.horizon, c.steps, c.lang_tokens) == (3, 224, 50, 10, 48)
    assert len(m.vision.layers) == 27 and len(m.llm) == 18 and len(m.expert) == 18
    v = m.vision.layers[0]
    assert tuple(v.fc1.weight.shape) == (4304, 1152) and v.heads == 16
    assert tuple(m.vision.patch_embedding.weight.shape) == (1152, 3, 14, 14)
    assert m.vision.patch_embedding.weight.dtype == torch.float32  # fp32 island (§3.7)
    g = m.llm[0]
    assert tuple(g.q_proj.weight.shape) == (2048, 2048) and tuple(g.k_proj.weight.shape) == (256, 2048)
    assert tuple(g.gate_proj.weight.shape) == (16384, 2048) and tuple(g.down_proj.weight.shape) == (2048, 16384)
    assert g.q_proj.weight.dtype == torch.bfloat16 and g.input_layernorm.weight.dtype == torch.float32
    e = m.expert[0]
    assert tuple(e.q_proj.weight.shape) == (2048, 1024) and tuple(e.o_proj.weight.shape) == (1024, 2048)
    assert tuple(e.gate_proj.weight.shape) == (4096, 1024)
    # §3.3-3.4: SigLIP 414.8 M incl. projector, Gemma 1.982 B + 0.527 B embedding, expert 311.5 M, 3.238 B
    assert round(nparams(m.vision) / 1e6, 1) == 414.8
    assert round((nparams(m.llm) + nparams(m.llm_norm)) / 1e9, 3) == 1.982
    assert round(nparams(m.embed_tokens) / 1e9, 3) == 0.527
    assert round((nparams(m.expert) + nparams(m.expert_norm)) / 1e6, 1) == 311.5
    assert round(nparams(m) / 1e9, 3) == 3.238


def test_pi0_tiny_kv_cache_reused():
    """The prefix cache holds one (K, V) per layer of 12+8 prefix tokens and is not extended by steps."""
    m, (img, tok, st, valid, noise) = pi0.build("tiny", device="cpu")
    c = pi0.CONFIGS["tiny"]
    with torch.inference_mode():
        cache, v = m.prefix(img, tok, valid)
        n_prefix = c.n_images * (c.image // c.patch) ** 2 + c.lang_tokens
        assert len(cache) == c.depth and tuple(cache[0][0].shape) == (1, c.kv_heads, n_prefix, c.head_dim)
        m.denoise(st, noise, torch.tensor(1.0), cache, v)
        assert tuple(cache[0][0].shape) == (1, c.kv_heads, n_prefix, c.head_dim)
