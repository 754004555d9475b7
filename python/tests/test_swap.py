"""Operator swap: routes by shape, falls back, logs every decision, restores the originals."""
import json

import pytest
import torch
import torch.nn.functional as F

from vxsynth_torch.swap import OpSwap, SwapTarget, call_signature
from vxsynth_torch.workloads import act


class Float64Linear:
    """A real candidate: F.linear computed in float64 (calls F.linear itself, which must not recurse)."""

    def __init__(self):
        self.calls = 0

    def forward(self, x, w, b=None):
        self.calls += 1
        y = F.linear(x.double(), w.double(), None if b is None else b.double())
        return y.to(x.dtype)


def test_routes_matching_shape_only(tmp_path):
    log = tmp_path / "d.jsonl"
    p = Float64Linear()
    x, w, b = torch.randn(7, 5), torch.randn(3, 5), torch.randn(3)
    x2 = torch.randn(4, 5)
    with OpSwap([SwapTarget("linear", (x.shape, w.shape, b.shape), p, name="t")], str(log)) as sw:
        y = F.linear(x, w, b)
        y2 = F.linear(x2, w, b)
        y3 = F.linear(x, w)  # no bias: different signature, passes through
    assert p.calls == 1
    assert torch.allclose(y, F.linear(x, w, b), atol=1e-5)
    assert torch.allclose(y2, x2 @ w.T + b, atol=1e-5) and y3.shape == (7, 3)
    recs = [json.loads(l) for l in log.read_text().splitlines()]
    assert [r["routed"] for r in recs] == [True, False, False]
    assert recs[0]["shapes"] == [[7, 5], [3, 5], [3]] and recs[0]["target"] == "t"
    assert recs[1]["shapes"][0] == [4, 5] and recs[1]["target"] is None
    assert recs == sw.records


def test_dtype_filter():
    p = Float64Linear()
    x, w = torch.randn(2, 3), torch.randn(4, 3)
    with OpSwap([SwapTarget("linear", (x.shape, w.shape), p, dtype=torch.float64)]):
        F.linear(x, w)
    assert p.calls == 0


def test_restores_originals_even_on_error():
    orig = (torch.matmul, F.linear, F.conv1d, F.conv2d)
    with pytest.raises(RuntimeError):
        with OpSwap([SwapTarget("matmul", ((2, 3), (3, 4)), Float64Linear())]):
            assert torch.matmul is not orig[0] and F.conv2d is not orig[3]
            raise RuntimeError("boom")
    assert (torch.matmul, F.linear, F.conv1d, F.conv2d) == orig


def test_conv_and_matmul_logged():
    with OpSwap([]) as sw:
        F.conv1d(torch.randn(1, 2, 8), torch.randn(3, 2, 5), padding=2)
        F.conv2d(torch.randn(1, 2, 8, 8), torch.randn(3, 2, 3, 3))
        torch.matmul(torch.randn(2, 3), torch.randn(3, 4))
    assert [r["op"] for r in sw.records] == ["conv1d", "conv2d", "matmul"]
    assert not sw.routed()


def test_bad_target():
    with pytest.raises(ValueError, match="not swappable"):
        SwapTarget("baddbmm", ((1,),), Float64Linear())
    with pytest.raises(TypeError, match="no callable .forward"):
        SwapTarget("linear", ((1,),), object())


def test_signature_skips_none():
    shapes, dtypes, dev = call_signature((torch.zeros(2, 3), torch.zeros(4, 3), None))
    assert shapes == ((2, 3), (4, 3)) and dtypes == ["float32", "float32"] and dev == "cpu"


def test_inside_act_tiny(tmp_path):
    """The ACT encoder FFN linear1 (S, 1, d) x (ffn, d) is routed once per encoder layer and the
    action chunk is unchanged."""
    c = act.CONFIGS["tiny"]
    model, inputs = act.build("tiny", device="cpu")
    s = 2 + 2 * 3  # 64x96 image -> 2x3 feature map
    p = Float64Linear()
    with torch.inference_mode():
        ref = model(*inputs)
        with OpSwap([SwapTarget("linear", ((s, 1, c.d_model), (c.ffn, c.d_model), (c.ffn,)), p)],
                    str(tmp_path / "d.jsonl")) as sw:
            got = model(*inputs)
    assert p.calls == c.enc_layers == len(sw.routed())
    assert len(sw.records) > p.calls  # every other linear/conv was logged and passed through
    assert torch.allclose(got, ref, rtol=1e-4, atol=1e-5)
