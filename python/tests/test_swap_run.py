"""In-workload swap without a GPU: operator views and matching, the ctypes candidate proxy and the
driver (`vxsynth_torch.swap_run`) end to end on ACT tiny, with a CPU library that implements codegen's
candidate C ABI (python/tests/cpu_candidate/vxs_cpu_candidate.cc) standing in for the CUDA candidate."""
import json
import os
import shutil
import subprocess

import pytest
import torch
import torch.nn.functional as F

from vxsynth_torch import swap_run
from vxsynth_torch.swap import OpSwap, SwapTarget
from vxsynth_torch.swap_candidate import CandidateError, CandidateLibrary, CandidateProxy
from vxsynth_torch.swap_view import SpecMatcher, call_view
from vxsynth_torch.workloads import act

HERE = os.path.dirname(__file__)
CXX = shutil.which("c++") or shutil.which("g++")


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    if CXX is None:
        pytest.skip("no host C++ compiler to build the CPU stand-in candidate")
    d = tmp_path_factory.mktemp("cpu_candidate")
    out = {}
    for fam, defines in (("linear", ["VXS_CPU_LINEAR"]), ("bmm", ["VXS_CPU_BMM"]), ("conv", ["VXS_CPU_CONV"]),
                         ("bmm_bf16", ["VXS_CPU_BMM", "VXS_CPU_BF16"])):
        so = str(d / f"libvxs_cpu_{fam}.so")
        subprocess.run([CXX, "-O2", "-shared", "-fPIC", *[f"-D{x}" for x in defines], "-o", so,
                        os.path.join(HERE, "cpu_candidate", "vxs_cpu_candidate.cc")], check=True)
        out[fam] = so
    return out


def gemm_spec(family, batch, m, n, k, bias, **extra):
    ops = ([{"name": "x", "shape": [m, k]}, {"name": "weight", "shape": [n, k]}] +
           ([{"name": "bias", "shape": [n]}] if bias else [])) if family == "linear" else \
        [{"name": "a", "shape": [batch, m, k]}, {"name": "b", "shape": [batch, k, n]}]
    s = {"schema": "vxsynth.swap_spec/1", "name": "t",
         "op": {"family": family, "gemm": {"batch": batch, "m": m, "n": n, "k": k}, "has_bias": bias,
                "a_batch_stride": -1, "b_batch_stride": -1},
         "storage": "fp32", "operands": ops,
         "output_shape": [m, n] if family == "linear" else [batch, m, n], "workload": "act", "config": "tiny",
         "warmup": 2, "region_iters": 2, "tf32": {"cudnn.allow_tf32": True, "matmul.allow_tf32": False},
         "reference_launches_per_step": 4}
    s.update(extra)
    return s


def conv2d_spec(n, c, h, w, k, r, s, stride, pad, bias=False, **extra):
    p = (h + 2 * pad - (r - 1) - 1) // stride + 1
    q = (w + 2 * pad - (s - 1) - 1) // stride + 1
    sp = {"schema": "vxsynth.swap_spec/1", "name": "conv",
          "op": {"family": "conv2d", "has_bias": bias,
                 "conv": {"n": n, "c": c, "h": h, "w": w, "k": k, "r": r, "s": s, "stride": [stride, stride],
                          "pad": [pad, pad], "dilation": [1, 1], "groups": 1}},
          "storage": "fp32", "operands": [{"name": "x", "shape": [n, c, h, w]}, {"name": "weight", "shape": [k, c, r, s]}],
          "output_shape": [n, k, p, q], "workload": "act", "config": "tiny", "warmup": 1, "region_iters": 1,
          "tf32": {}, "reference_launches_per_step": 3}
    sp.update(extra)
    return sp


def test_linear_view_flattens_leading_dims():
    v = call_view("linear", (torch.randn(7, 1, 5), torch.randn(3, 5), torch.randn(3)), {})
    assert v.key == ("linear", 1, 7, 3, 5, True, -1, -1) and v.contiguous
    m = SpecMatcher(gemm_spec("linear", 1, 7, 3, 5, True))
    assert m("linear", (torch.randn(7, 5), torch.randn(3, 5), torch.randn(3)), {}) == (True, "")
    assert m("linear", (torch.randn(7, 5), torch.randn(3, 5)), {}) == (False, "")  # no bias: other op
    ok, why = m("linear", (torch.randn(7, 5).double(), torch.randn(3, 5).double(), torch.randn(3).double()), {})
    assert not ok and "dtype float64" in why
    ok, why = m("linear", (torch.randn(5, 7).t(), torch.randn(3, 5), torch.randn(3)), {})
    assert not ok and "non-contiguous" in why


def test_bmm_view_broadcast_and_strides():
    a, b = torch.randn(2, 4, 3, 5), torch.randn(5, 6)
    v = call_view("matmul", (a, b), {})
    assert v.family == "bmm" and v.key == ("bmm", 8, 3, 6, 5, False, 15, 0)
    assert SpecMatcher(gemm_spec("bmm", 8, 3, 6, 5, False, op={"family": "bmm", "gemm": {"batch": 8, "m": 3, "n": 6, "k": 5},
                                                            "has_bias": False, "a_batch_stride": -1,
                                                            "b_batch_stride": 0}))("matmul", (a, b), {})[0]
    m = SpecMatcher(gemm_spec("bmm", 8, 3, 6, 5, False))
    assert not m("matmul", (a, b), {})[0]  # the spec's b is per batch, this call broadcasts one b
    assert m("bmm", (torch.randn(8, 3, 5), torch.randn(8, 5, 6)), {})[0]
    assert m.ops == ("matmul", "bmm")


def test_conv_views():
    v = call_view("conv1d", (torch.randn(1, 2, 8), torch.randn(3, 2, 5), None, 1, 2), {})
    assert v.key == ("conv1d", 1, 2, 1, 8, 3, 1, 5, 1, 1, 0, 2, 1, 1, 1, False)
    v = call_view("conv2d", (torch.randn(1, 2, 8, 8), torch.randn(3, 2, 3, 3)), {"padding": 1, "stride": 2})
    assert v.key == ("conv2d", 1, 2, 8, 8, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, False)
    assert call_view("conv2d", (torch.randn(1, 2, 8, 8), torch.randn(3, 2, 3, 3)), {"padding": "same"}) is None


def test_proxy_computes_linear_and_conv(libs):
    spec = gemm_spec("linear", 1, 6, 4, 5, True)
    p = CandidateProxy(CandidateLibrary(libs["linear"], "linear"), spec)
    x, w, b = torch.randn(6, 1, 5), torch.randn(4, 5), torch.randn(4)
    y = p.forward(x, w, b)
    assert y.shape == (6, 1, 4) and torch.allclose(y, F.linear(x, w, b), atol=1e-5) and p.launches == 1
    cs = conv2d_spec(1, 3, 7, 6, 4, 3, 3, 2, 1)
    pc = CandidateProxy(CandidateLibrary(libs["conv"], "conv2d"), cs)
    x, w = torch.randn(1, 3, 7, 6), torch.randn(4, 3, 3, 3)
    assert torch.allclose(pc.forward(x, w, None, 2, 1), F.conv2d(x, w, None, 2, 1), atol=1e-5)
    bad = dict(cs, op=dict(cs["op"], conv=dict(cs["op"]["conv"], groups=0)))
    with pytest.raises(CandidateError, match="returned 11"):
        CandidateProxy(CandidateLibrary(libs["conv"], "conv2d"), bad).forward(x, w, None, 2, 1)


def test_swapped_proxy_inside_opswap(libs):
    spec = gemm_spec("bmm", 3, 4, 2, 5, False)
    m = SpecMatcher(spec)
    p = CandidateProxy(CandidateLibrary(libs["bmm"], "bmm"), spec)
    a, b = torch.randn(3, 4, 5), torch.randn(3, 5, 2)
    with OpSwap([SwapTarget("bmm", (), p, match=m, ops=m.ops)]) as sw:
        y1 = torch.matmul(a, b)
        y2 = torch.bmm(a, b)
        torch.matmul(a[:, :, :4], b[:, :4, :])  # other shape: passes through
    assert [r["routed"] for r in sw.records] == [True, True, False] and p.launches == 2
    assert torch.allclose(y1, a @ b, atol=1e-5) and torch.allclose(y2, a @ b, atol=1e-5)


def _act_tiny_ffn_spec():
    c = act.CONFIGS["tiny"]
    s = 2 + 2 * 3  # 64x96 image -> 2x3 feature map, plus 2 one-dimensional tokens
    return gemm_spec("linear", 1, s, c.ffn, c.d_model, True, reference_launches_per_step=c.enc_layers), c


def _write_inputs(spec, d, seed=3):
    g = torch.Generator().manual_seed(seed)
    for o in spec["operands"]:
        torch.randn(*o["shape"], generator=g).numpy().astype("<f4").tofile(os.path.join(d, o["name"] + ".bin"))


def test_driver_act_tiny_linear(libs, tmp_path):
    spec, c = _act_tiny_ffn_spec()
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    data = tmp_path / "data"
    data.mkdir()
    _write_inputs(spec, data)
    rc = swap_run.main(["--spec", str(tmp_path / "spec.json"), "--lib", libs["linear"], "--out", str(tmp_path / "o"),
                        "--data", str(data), "--device", "cpu"])
    assert rc == 0
    r = json.loads((tmp_path / "o" / "swap_result.json").read_text())
    assert r["failure"] == "" and r["device"] == "cpu"
    assert [s["routed"] for s in r["steps"]] == [c.enc_layers] * 4
    assert [s["candidate_launches"] for s in r["steps"]] == [c.enc_layers] * 4
    assert [s["phase"] for s in r["steps"]] == ["warmup", "warmup", "window", "window"]
    assert len(r["calls_checked"]) == c.enc_layers and r["policy_output_rel_err_vs_unswapped"] < 1e-5
    log = [json.loads(l) for l in (tmp_path / "o" / "dispatch.jsonl").read_text().splitlines()]
    assert {l["step"] for l in log} == {0, 1, 2, 3} and sum(l["routed"] for l in log) == 4 * c.enc_layers
    assert any(l["op"] == "conv2d" and not l["routed"] for l in log)  # every swappable call is logged
    cand = torch.from_file(str(data / "cuda_out.bin"), size=spec["output_shape"][0] * spec["output_shape"][1])
    orig = torch.from_file(str(data / "torch_out.bin"), size=cand.numel())
    assert torch.allclose(cand, orig, atol=1e-5) and not torch.isnan(cand).any()
    for call in r["calls_checked"]:
        a = torch.from_file(str(tmp_path / "o" / "calls" / call["candidate"]), size=call["elements"])
        b = torch.from_file(str(tmp_path / "o" / "calls" / call["original"]), size=call["elements"])
        assert torch.allclose(a, b, atol=1e-5)


def test_driver_act_tiny_conv_and_no_match(libs, tmp_path):
    # ResNet-18 trunk at width 8 on 64x96: layer1's 3x3 convolutions see 8x16x24 (four of them).
    spec = conv2d_spec(1, 8, 16, 24, 8, 3, 3, 1, 1)
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    assert swap_run.main(["--spec", str(tmp_path / "spec.json"), "--lib", libs["conv"], "--out",
                          str(tmp_path / "o"), "--device", "cpu"]) == 0
    r = json.loads((tmp_path / "o" / "swap_result.json").read_text())
    assert [s["routed"] for s in r["steps"]] == [4, 4] and "sampled" not in r
    assert r["policy_output_rel_err_vs_unswapped"] < 1e-4
    none = conv2d_spec(1, 8, 16, 24, 8, 3, 3, 1, 0)  # padding 0: no call of ACT has it
    (tmp_path / "none.json").write_text(json.dumps(none))
    assert swap_run.main(["--spec", str(tmp_path / "none.json"), "--lib", libs["conv"], "--out",
                          str(tmp_path / "n"), "--device", "cpu"]) == 0
    r = json.loads((tmp_path / "n" / "swap_result.json").read_text())
    assert [s["routed"] for s in r["steps"]] == [0, 0] and r["calls_checked"] == []


def test_driver_refuses_bad_spec(tmp_path, capsys):
    (tmp_path / "s.json").write_text(json.dumps({"schema": "vxsynth.swap_spec/1"}))
    assert swap_run.main(["--spec", str(tmp_path / "s.json"), "--lib", "x.so", "--out", str(tmp_path / "o")]) == 2
    assert "missing field(s) op" in capsys.readouterr().err


def _bmm_flat_spec(batch, m, n, k, sb, storage, **extra):
    """A bmm spec with the operand files as the C++ side writes them (check/src/op_spec.cc operands:
    one flat storage per operand, extent (batch - 1) * stride + one matrix)."""
    sbs = k * n if sb < 0 else sb
    spec = gemm_spec("bmm", batch, m, n, k, False, storage=storage, **extra)
    spec["op"]["b_batch_stride"] = sb
    spec["operands"] = [{"name": "a", "shape": [batch * m * k]}, {"name": "b", "shape": [(batch - 1) * sbs + k * n]}]
    return spec


@pytest.mark.parametrize("sb", [-1, 0])
def test_sampled_check_bmm_reads_flat_operands(libs, tmp_path, sb):
    spec = _bmm_flat_spec(3, 4, 6, 5, sb, "fp32")
    _write_inputs(spec, tmp_path)
    proxy = CandidateProxy(CandidateLibrary(libs["bmm"], "bmm"), spec)
    originals = {"matmul": torch.matmul}
    r = swap_run.sampled_check(spec, proxy, str(tmp_path), "cpu", originals)
    assert r["elements"] == 3 * 4 * 6
    cand = torch.from_file(str(tmp_path / "cuda_out.bin"), size=r["elements"]).reshape(3, 4, 6)
    orig = torch.from_file(str(tmp_path / "torch_out.bin"), size=r["elements"]).reshape(3, 4, 6)
    a = torch.from_file(str(tmp_path / "a.bin"), size=3 * 4 * 5).reshape(3, 4, 5)
    b = torch.from_file(str(tmp_path / "b.bin"), size=spec["operands"][1]["shape"][0])
    b = b.reshape(5, 6).expand(3, 5, 6) if sb == 0 else b.reshape(3, 5, 6)
    assert torch.allclose(orig, a @ b, atol=1e-5) and torch.allclose(cand, orig, atol=1e-5)


def test_driver_pi0_tiny_attention_bmm_with_expanded_kv(libs, tmp_path):
    # pi0 tiny's suffix attention: probabilities (1, 2, 6, 26) @ values (1, 2, 26, 16), whose two
    # query heads share one KV head (repeat_kv: head stride 0); four calls per policy step.
    spec = _bmm_flat_spec(2, 6, 16, 26, -1, "bf16", workload="pi0", config="tiny", warmup=1, region_iters=1,
                          tf32={})
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    data = tmp_path / "data"
    data.mkdir()
    g = torch.Generator().manual_seed(5)
    for o in spec["operands"]:
        bits = torch.randn(*o["shape"], generator=g).to(torch.bfloat16).view(torch.int16)
        bits.numpy().astype("<i2").tofile(os.path.join(data, o["name"] + ".bin"))
    rc = swap_run.main(["--spec", str(tmp_path / "spec.json"), "--lib", libs["bmm_bf16"], "--out",
                        str(tmp_path / "o"), "--data", str(data), "--device", "cpu"])
    r = json.loads((tmp_path / "o" / "swap_result.json").read_text())
    assert rc == 0 and r["failure"] == "", r["failure"]
    assert [s["routed"] for s in r["steps"]] == [4, 4]
    assert r["calls_checked"] and r["policy_output_rel_err_vs_unswapped"] < 1e-3
