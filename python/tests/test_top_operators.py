"""`--top-operators N` (docs/suite.md "Re-profiling"): on the committed Diffusion Policy trace, whose
top five kernels by GPU time are four cuDNN layout transposes and one convolution, the cut keeps the
ranks down to the fifth operator kernel, helpers above it included (the C++ ranking and contexts,
`vxsynth hot --json`)."""
import os

from conftest import REPO
from vxsynth_torch import trace
from vxsynth_torch.profile import cut_at_operators, is_operator

DP = os.path.join(REPO, "data", "references", "h200", "diffusion_policy", "trace.json.gz")


def test_diffusion_policy_cut_holds_five_operator_kernels_and_the_helpers_above_them():
    hot = trace.rank_hot_kernels(trace.load_trace(DP), 1 << 30, DP)["hot"]
    assert [is_operator(h) for h in hot[:5]].count(True) == 1
    cut = cut_at_operators(hot, 5)
    ops = [h for h in cut if is_operator(h)]
    assert len(ops) == 5
    assert is_operator(cut[-1])
    assert cut == hot[:len(cut)]
    helpers = [h for h in cut if h["context"]["role"] == "helper"]
    assert helpers and all("nchwToNhwc" in h["name"] or h["context"]["op"] != "other" for h in helpers)
    assert all(h["context"]["op"] in ("linear", "matmul", "bmm", "conv1d", "conv2d") for h in ops)


def test_fewer_operators_than_asked_keeps_every_group():
    hot = [{"context": {"role": "helper", "op": "conv1d"}}, {"context": {"role": "main", "op": "other"}}]
    assert cut_at_operators(hot, 5) == hot
